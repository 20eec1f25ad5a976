"""The local executor: phases in this process, or over one pool of worker processes that lives
as long as the executor (so per-process state such as the ScanCode index is built once)."""

from __future__ import annotations

import logging
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from quarry.engine.stage import Global, GlobalJob, Map, ShardJob, Stage
from quarry.parallel import progress_bar

log = logging.getLogger("quarry.stage")


class LocalExecutor:
    def __init__(self, workers: int = 1, *, echo=None):
        self.workers = max(1, int(workers))
        self.echo = echo  # where summaries go besides the log (the CLI prints them)
        self._pool: ProcessPoolExecutor | None = None

    def map(self, stage: Stage, phase: Map, jobs: list[ShardJob], config: Any) -> list[Any]:
        results: list[Any] = [None] * len(jobs)
        with progress_bar() as progress:
            bar = progress.add_task(f"{stage.name}: {phase.name}", total=len(jobs))
            if self.workers == 1 or len(jobs) <= 1:
                for i, job in enumerate(jobs):
                    results[i] = phase.fn(job, config)
                    progress.advance(bar)
                return results
            pool = self._pool or ProcessPoolExecutor(max_workers=self.workers)
            self._pool = pool
            futures = {pool.submit(phase.fn, job, config): i for i, job in enumerate(jobs)}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                progress.advance(bar)
        return results

    def run_global(self, stage: Stage, phase: Global, job: GlobalJob, config: Any) -> dict:
        return phase.fn(job, config)

    def log(self, message: str) -> None:
        log.info(message)
        if self.echo is not None:
            self.echo(message)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

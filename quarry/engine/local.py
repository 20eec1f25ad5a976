"""The local executor: phases in this process, or over one pool of worker processes that lives
as long as the executor (so per-process state such as the ScanCode index is built once)."""

from __future__ import annotations

import logging
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from quarry.engine.stage import Global, GlobalJob, Map, ShardJob, Stage, job_bytes
from quarry.infra.parallel import map_shards, share_machine

log = logging.getLogger("quarry.engine")



class LocalExecutor:
    def __init__(self, workers: int = 1, *, echo=None):
        self.workers = max(1, int(workers))
        self.echo = echo  # where summaries go besides the log (the CLI prints them)
        self._pool: ProcessPoolExecutor | None = None

    def map(self, stage: Stage, phase: Map, jobs: list[ShardJob], config: Any) -> list[Any]:
        if self.workers > 1 and len(jobs) > 1 and self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=share_machine,
                                             initargs=(self.workers,))
        return map_shards(phase.fn, [(job, config) for job in jobs], workers=self.workers,
                          description=f"{stage.name}: {phase.name}", pool=self._pool, sizes=job_bytes(jobs),
                          log=self.log)

    def run_global(self, stage: Stage, phase: Global, job: GlobalJob, config: Any) -> dict:
        if self._pool is not None and not phase.inline:  # a worker holds the state the maps built (ScanCode)
            return self._pool.submit(phase.fn, job, config).result()
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

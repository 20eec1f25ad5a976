"""The cores a worker process may use, and mapping a phase over shards with its progress shown (quarry.engine.local: in this process or a process pool)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from quarry.infra.progress import ShardProgress


# Worker processes of one run on this machine, set in each of them by the executor that started them
# (quarry.engine.local, flows.runners); per-process state sizes itself to its share of the cores.
PROCESSES_PER_MACHINE = "QUARRY_PROCESSES_PER_MACHINE"


def share_machine(processes: int) -> None:
    """This process is one of ``processes`` workers sharing the machine (a pool initializer)."""
    os.environ[PROCESSES_PER_MACHINE] = str(max(1, int(processes)))


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity: taskset, a container's cpuset), else all."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this platform
        return max(1, os.cpu_count() or 1)


def cores_per_process() -> int:
    """This process's share of the cores it may run on."""
    return max(1, available_cores() // max(1, int(os.environ.get(PROCESSES_PER_MACHINE) or 1)))


def map_shards(fn: Callable[..., Any], jobs: Sequence[tuple], *, workers: int = 1, description: str = "shards",
               pool: ProcessPoolExecutor | None = None, sizes: Sequence[int] | None = None,
               log: Callable[[str], None] | None = None) -> list:
    """``[fn(*job) for job in jobs]`` in order, in this process or spread over ``workers``
    processes (``pool``, when the caller keeps one alive across calls). ``sizes``: the bytes each
    job reads, for the progress shown (quarry.infra.progress); ``log`` gets its plain lines."""
    results: list[Any] = [None] * len(jobs)
    sizes = list(sizes) if sizes is not None else [0] * len(jobs)
    with ShardProgress(description, len(jobs), sum(sizes), log=log) as progress:
        if workers <= 1 or len(jobs) <= 1:
            for i, job in enumerate(jobs):
                results[i] = fn(*job)
                progress.advance(1, sizes[i])
            return results
        own = pool is None
        pool = pool or ProcessPoolExecutor(max_workers=min(workers, len(jobs)))
        try:
            futures = {pool.submit(fn, *job): i for i, job in enumerate(jobs)}
            for future in as_completed(futures):
                i = futures[future]
                results[i] = future.result()
                progress.advance(1, sizes[i])
        finally:
            if own:
                pool.shutdown()
    return results

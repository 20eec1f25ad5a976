"""Consecutive jobs in batches: the ranges a shared-out map's slots start from (tasks.sharing), and
the fixed batches of a map that is not shared out (a few per worker of the flow's task runner, never
more than TASKS_PER_STAGE)."""

from __future__ import annotations

import bisect
import itertools

TASKS_PER_STAGE = 2000
TASKS_PER_WORKER = 4   # per map phase in fixed batches: a Prefect task run costs ~70 ms of CPU on the head and
                       # the worker (bench/dask_task_runs.py), and fewer, larger batches end unevenly


def batches(jobs: list, budget: int, workers: int = 1, per_worker: int = TASKS_PER_WORKER) -> list[list]:
    """Consecutive jobs in at most ``budget`` tasks and ``per_worker`` tasks per worker: of about
    equal bytes where the jobs know their sizes (``size``: a plan's items), else of sizes differing
    by at most one. Consecutive: neighbouring shards often hold one origin, whose license texts one
    worker then detects once. The bytes written are the same for any grouping."""
    count = max(1, min(len(jobs), budget, per_worker * max(1, workers)))
    sizes = [getattr(job, "size", 0) for job in jobs]
    if any(sizes):
        bounds = _balanced_bounds([size + 1 for size in sizes], count)   # an item of unknown size weighs a byte
    else:
        size, extra = divmod(len(jobs), count)
        bounds = [i * size + min(i, extra) for i in range(count + 1)]
    return [jobs[start:end] for start, end in zip(bounds, bounds[1:])]


def _balanced_bounds(sizes: list[int], count: int) -> list[int]:
    """Where ``count`` consecutive, non-empty batches of about equal total size start (and the end)."""
    ends = list(itertools.accumulate(sizes))
    total = ends[-1]
    bounds = [0]
    for k in range(1, count):
        at = bisect.bisect_left(ends, total * k / count) + 1    # the item that reaches the k-th share ends it
        bounds.append(min(max(at, bounds[-1] + 1), len(sizes) - (count - k)))
    return [*bounds, len(sizes)]


def batch_label(first: str, size: int) -> str:
    """A task run's name for a batch: its first item, and "(+N)" for the N that follow."""
    return first + (f" (+{size - 1})" if size > 1 else "")


def runner_workers() -> int:
    """Workers of the running flow's task runner: a Dask cluster's (local or at an address), else 1."""
    from prefect.context import FlowRunContext

    runner = getattr(FlowRunContext.get(), "task_runner", None)
    if hasattr(runner, "client"):  # prefect-dask: the cluster has started with the flow run
        return max(1, len(runner.client.scheduler_info().get("workers", {})))
    return 1

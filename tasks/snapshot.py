"""Prefect tasks of the snapshot stage: plan the origins, snapshot each origin, write the snapshot.

The unit of work is one origin (a repository, an archive, a distribution); a task takes a few
consecutive origins, as the curation stages' tasks take shards. An origin's reuse across runs
is quarry.snapshot.process's own cache, keyed on the origin, its revision and the content hash of
every selected file, so a Prefect input cache here would only duplicate it (and could not see
file content behind a plan): these tasks use no Prefect cache and keep the transient-error retries.
"""

from __future__ import annotations

from pathlib import Path

from prefect.cache_policies import NO_CACHE

from quarry.snapshot import driver
from quarry.snapshot.process import process_origin
from quarry.snapshot.plan import OriginPlan
from tasks.batching import TASKS_PER_STAGE, batch_label, batches, runner_workers
from tasks.caching import cached_task

UNCACHED = dict(cache_policy=NO_CACHE, persist_result=False)


@cached_task(task_run_name="plan snapshot", **UNCACHED)
def plan_snapshot(sources: list[dict] | None, out_dir: Path, params: dict, staging: Path) -> tuple:
    return driver.prepare(sources, out_dir, params, staging)


@cached_task(task_run_name="snapshot {label}", **UNCACHED)
def snapshot_origins(plans: list[OriginPlan], label: str, cfg: dict, cache_dir: Path) -> list[dict]:
    return [process_origin(plan, cfg, cache_dir) for plan in plans]


@cached_task(task_run_name="write snapshot", **UNCACHED)
def write_snapshot(cfg: dict, sources: list[dict], plans: list[OriginPlan], results: list[dict], out_dir: Path,
                   cache_dir: Path) -> dict:
    return driver.finalize(cfg, sources, plans, results, out_dir, cache_dir)


def snapshot_with_tasks(sources: list[dict] | None, out_dir: Path, params: dict,
                        cache_dir: Path | None = None) -> dict:
    """The stage as tasks, for a flow to call: plan, map over origins, write. Returns the manifest."""
    import tempfile

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cache_dir = Path(cache_dir) if cache_dir else driver.cache_root()
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".staging-", dir=out_dir) as staging:
        cfg, sources, plans = plan_snapshot(sources, out_dir, params, Path(staging))
        # a few tasks per worker, as the curation stages (243 origins of ~0.1 s each were 243 task runs)
        groups = batches(plans, TASKS_PER_STAGE, runner_workers())
        futures = [snapshot_origins.submit(group, label=batch_label(group[0].origin, len(group)), cfg=cfg,
                                           cache_dir=cache_dir)
                   for group in groups]
        results = [result for future in futures for result in future.result()]
    return write_snapshot(cfg, sources, plans, results, out_dir, cache_dir)

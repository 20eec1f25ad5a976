"""The Prefect executor: every phase of a stage as cached Prefect tasks, one per shard.

A map phase becomes one task run per shard, a global phase one task run; they run on the flow's
task runner (threads, or prefect-dask's DaskTaskRunner on a LocalCluster or a scheduler address).
The cache key is the phase function's name and the library code, the typed config and the
content of the inputs (the input shard, earlier phases' result files); a cache hit whose output
files are missing or changed runs again (tasks.caching.run_verified).
"""

from __future__ import annotations

from typing import Any

from prefect import get_run_logger

from quarry.engine.stage import Global, GlobalJob, Map, ShardJob, Stage, phase_ref, resolve_phase
from tasks.caching import cached_task, run_verified


@cached_task(outputs=("outputs",), task_run_name="{label}")
def run_phase(phase: str, label: str, job: ShardJob | GlobalJob, config: Any, outputs: list[str]) -> Any:
    """``phase`` (module:function) on one job; ``outputs`` are the files and folders it writes."""
    return resolve_phase(phase)(job, config)


class PrefectExecutor:
    """Runs inside a flow: tasks go to that flow's task runner."""

    def map(self, stage: Stage, phase: Map, jobs: list[ShardJob], config: Any) -> list[Any]:
        label = stage.name if phase.writes else f"{stage.name} {phase.name}"  # shard tasks read as the stage
        return run_verified(run_phase, [{"phase": phase_ref(phase.fn), "label": f"{label} {job.name}", "job": job,
                                         "config": config, "outputs": job.outputs()} for job in jobs])

    def run_global(self, stage: Stage, phase: Global, job: GlobalJob, config: Any) -> dict:
        return run_verified(run_phase, [{"phase": phase_ref(phase.fn), "label": f"{stage.name} {phase.name}",
                                         "job": job, "config": config, "outputs": job.outputs()}])[0]

    def log(self, message: str) -> None:
        get_run_logger().info(message)

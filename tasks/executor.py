"""The Prefect executor: every phase of a stage as cached Prefect tasks over its shards.

A map phase becomes a few task runs per worker, each over consecutive shards (tasks.batching: at
most 2,000 per stage, so a 1 TB corpus of 8 MB shards is not 125,000 tasks), a global phase one
task run; they run on the flow's task runner (threads, or prefect-dask's DaskTaskRunner on a
LocalCluster or a scheduler address). The cache key is the phase function's name and the library
code, the typed config and the content of the inputs (the input shards, earlier phases' result
files); a cache hit whose output files are missing or changed runs again
(tasks.caching.run_verified).
"""

from __future__ import annotations

from typing import Any

from prefect import get_run_logger
from prefect.cache_policies import NO_CACHE

from quarry.engine.stage import Global, GlobalJob, ItemJob, Map, ShardJob, Stage, job_bytes, phase_ref, resolve_phase
from quarry.progress import ShardProgress
from tasks.batching import TASKS_PER_STAGE, TASKS_PER_WORKER, batch_label, batches, runner_workers
from tasks.caching import cached_task, run_verified
from tasks.progress import ProgressArtifact
from tasks.resume import run_resumable


@cached_task(outputs=("outputs",), task_run_name="{label}")
def run_phase(phase: str, label: str, jobs: list[ShardJob | ItemJob | GlobalJob], config: Any, outputs: list[str]) -> list:
    """``phase`` (module:function) on each job; ``outputs`` are the files and folders they write.
    A shard finished by an earlier, killed run of this task is not done again (tasks.resume)."""
    fn = resolve_phase(phase)
    return [run_resumable(fn, phase, job, config) for job in jobs]


class PrefectExecutor:
    """Runs inside a flow: tasks go to that flow's task runner."""

    def __init__(self, tasks_per_stage: int = TASKS_PER_STAGE, tasks_per_worker: int = TASKS_PER_WORKER):
        self.tasks_per_stage = tasks_per_stage
        self.tasks_per_worker = tasks_per_worker  # bench/orchestration.py raises it to load the server

    def map(self, stage: Stage, phase: Map, jobs: list[ShardJob | ItemJob], config: Any) -> list[Any]:
        if not jobs:
            return []
        label = stage.name if phase.writes or phase.over else f"{stage.name} {phase.name}"  # read as the stage
        maps = sum(isinstance(p, Map) for p in stage.phases)
        grouped = batches(jobs, self.tasks_per_stage // maps, runner_workers(), self.tasks_per_worker)
        calls = [{"phase": phase_ref(phase.fn), "config": config, "jobs": batch,
                  "label": f"{label} {batch_label(batch[0].name, len(batch))}",
                  "outputs": [path for job in batch for path in job.outputs()]}
                 for batch in grouped]
        sizes = [sum(job_bytes(batch)) for batch in grouped]
        description = f"{stage.name}: {phase.name}"
        with ShardProgress(description, len(jobs), sum(sizes), log=self.log,
                           sink=ProgressArtifact(stage.name, phase.name, description)) as progress:
            done = run_verified(_task_for(phase), calls, on_done=lambda i: progress.advance(len(grouped[i]), sizes[i]))
        # consecutive batches in order: their answers, flattened, are the jobs' answers in order
        return [answer for batch in done for answer in batch]

    def run_global(self, stage: Stage, phase: Global, job: GlobalJob, config: Any) -> dict:
        if phase.inline:
            return phase.fn(job, config)
        [[result]] = run_verified(_task_for(phase), [{"phase": phase_ref(phase.fn), "jobs": [job], "config": config,
                                                      "label": f"{stage.name} {phase.name}", "outputs": job.outputs()}])
        return result

    def log(self, message: str) -> None:
        get_run_logger().info(message)


def _task_for(phase: Map | Global):
    """run_phase, uncached for a phase whose inputs' content the job does not hold (a plan reads
    files it names by path: keyed on the job alone, a hit could hand back a stale answer)."""
    return run_phase if phase.cached else run_phase.with_options(cache_policy=NO_CACHE, persist_result=False)

"""The Prefect executor: every phase of a stage as Prefect tasks over its shards.

A map (over the input shards, or over a plan's items) becomes one task run per worker of the flow's
task runner, which share its jobs out as they go (tasks.sharing); each job's resume record
(tasks.resume) is its cache: the key covers the phase, the typed config, the library code and the
content of its inputs, and a record whose files are missing or changed runs again (an uncached
map's items keep none: they run again). A global phase is one cached task run, keyed on the phase
function, the library code, the typed config and the content of the inputs; a cache hit whose
output files are missing or changed runs again (tasks.caching.run_verified). Tasks run on the
flow's task runner (threads, or prefect-dask's DaskTaskRunner on a LocalCluster or a scheduler
address).
"""

from __future__ import annotations

import shutil
import threading
import uuid
from pathlib import Path
from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from quarry.engine.stage import Global, GlobalJob, ItemJob, Map, ShardJob, Stage, job_bytes, phase_ref, resolve_phase
from quarry.infra.progress import ShardProgress
from tasks.batching import TASKS_PER_STAGE, TASKS_PER_WORKER, batch_label, batches, runner_workers
from tasks.caching import cached_task, retry_transient, run_verified
from tasks.progress import ProgressArtifact
from tasks.resume import run_resumable
from tasks.sharing import claim_order, finished, mark_done, read_jobs, take, write_jobs

POLL_S = 1.0  # how often the flow counts a shared map's finished shards (progress)


@cached_task(outputs=("outputs",), task_run_name="{label}")
def run_phase(phase: str, label: str, jobs: list[ShardJob | ItemJob | GlobalJob], config: Any, outputs: list[str]) -> list:
    """``phase`` (module:function) on each job; ``outputs`` are the files and folders they write.
    A shard finished by an earlier, killed run of this task is not done again (tasks.resume)."""
    fn = resolve_phase(phase)
    return [run_resumable(fn, phase, job, config)[0] for job in jobs]


@task(cache_policy=NO_CACHE, persist_result=False, retries=2, retry_delay_seconds=1,
      retry_condition_fn=retry_transient, task_run_name="{label}")
def run_shared(phase: str, label: str, config: Any, claims: str, slot: int, slots: int) -> dict[int, Any]:
    """``phase`` on every job (a shard, or a plan's item) this slot takes (tasks.sharing) of those
    in the claims folder; their answers by index. Uncached: each job's resume record answers for one
    an earlier run finished."""
    fn = resolve_phase(phase)
    folder, answers, reused = Path(claims), {}, 0
    jobs = read_jobs(folder)
    for index in claim_order(len(jobs), slot, slots):
        if take(folder, index, slot):
            answers[index], recorded = run_resumable(fn, phase, jobs[index], config)
            reused += recorded
            mark_done(folder, index)
    if reused:
        get_run_logger().info(f"{label}: {reused} of {len(answers)} shards finished by an earlier run")
    return answers


class PrefectExecutor:
    """Runs inside a flow: tasks go to that flow's task runner."""

    def __init__(self, tasks_per_stage: int = TASKS_PER_STAGE, tasks_per_worker: int = TASKS_PER_WORKER,
                 share_out: bool = True):
        self.tasks_per_stage = tasks_per_stage
        self.tasks_per_worker = tasks_per_worker  # bench/orchestration.py raises it to load the server
        self.share_out = share_out  # False: every map in fixed batches of consecutive jobs (that bench)

    def map(self, stage: Stage, phase: Map, jobs: list[ShardJob | ItemJob], config: Any) -> list[Any]:
        if not jobs:
            return []
        if self.share_out and all(job.work for job in jobs):  # the claims go in the phase's folder
            label = stage.name if phase.writes else f"{stage.name} {phase.name}"  # read as the stage
            return self._shared(stage, phase, label, jobs, config)
        label = stage.name if phase.writes or phase.over else f"{stage.name} {phase.name}"  # a batch names its items
        maps = sum(isinstance(p, Map) for p in stage.phases)
        grouped = batches(jobs, self.tasks_per_stage // maps, runner_workers(), self.tasks_per_worker)
        calls = [{"phase": phase_ref(phase.fn), "config": config, "jobs": batch,
                  "label": f"{label} {batch_label(batch[0].name, len(batch))}",
                  "outputs": [path for job in batch for path in job.outputs()]}
                 for batch in grouped]
        sizes = [sum(job_bytes(batch)) for batch in grouped]
        with self._progress(stage, phase, len(jobs), sum(sizes)) as progress:
            done = run_verified(_task_for(phase), calls, on_done=lambda i: progress.advance(len(grouped[i]), sizes[i]))
        # consecutive batches in order: their answers, flattened, are the jobs' answers in order
        return [answer for batch in done for answer in batch]

    def _shared(self, stage: Stage, phase: Map, label: str, jobs: list[ShardJob | ItemJob], config: Any) -> list[Any]:
        slots = min(len(jobs), runner_workers())
        claims_root = Path(jobs[0].work).parent / ".claims"
        shutil.rmtree(claims_root, ignore_errors=True)  # a killed run's (one writer per project: quarry.infra.lock)
        claims = claims_root / uuid.uuid4().hex
        write_jobs(claims, jobs)  # read by every slot: not sent with each task run
        sizes = job_bytes(jobs)
        futures = [run_shared.submit(phase=phase_ref(phase.fn), label=f"{label} {slot + 1}/{slots}", config=config,
                                     claims=str(claims), slot=slot, slots=slots) for slot in range(slots)]
        answers: dict[int, Any] = {}
        with self._progress(stage, phase, len(jobs), sum(sizes)) as progress:
            counted: set[int] = set()
            all_done = _all_done(futures)
            while True:
                ended = all_done.wait(POLL_S)
                for index in sorted(finished(claims) - counted):
                    counted.add(index)
                    progress.advance(1, sizes[index])
                if ended:
                    break
            for future in futures:
                answers.update(future.result())
        missing = [i for i in range(len(jobs)) if i not in answers]  # taken by a slot that died for good
        if missing:
            [redone] = run_verified(_task_for(phase), [{"phase": phase_ref(phase.fn), "config": config,
                                                         "jobs": [jobs[i] for i in missing], "label": f"{label} rest",
                                                         "outputs": [p for i in missing for p in jobs[i].outputs()]}])
            answers.update(zip(missing, redone))
        shutil.rmtree(claims_root, ignore_errors=True)
        return [answers[i] for i in range(len(jobs))]

    def _progress(self, stage: Stage, phase: Map, jobs: int, nbytes: int) -> ShardProgress:
        """A map's progress, in the log and as a Prefect progress artifact."""
        description = f"{stage.name}: {phase.name}"
        return ShardProgress(description, jobs, nbytes, log=self.log,
                             sink=ProgressArtifact(stage.name, phase.name, description))

    def run_global(self, stage: Stage, phase: Global, job: GlobalJob, config: Any) -> dict:
        if phase.inline:
            return phase.fn(job, config)
        [[result]] = run_verified(_task_for(phase), [{"phase": phase_ref(phase.fn), "jobs": [job], "config": config,
                                                      "label": f"{stage.name} {phase.name}", "outputs": job.outputs()}])
        return result

    def log(self, message: str) -> None:
        get_run_logger().info(message)


def _all_done(futures: list) -> threading.Event:
    """Set once every one of ``futures`` has finished."""
    event, lock, left = threading.Event(), threading.Lock(), [len(futures)]

    def one_done(_future) -> None:
        with lock:
            left[0] -= 1
            if not left[0]:
                event.set()

    for future in futures:
        future.add_done_callback(one_done)
    return event


def _task_for(phase: Map | Global):
    """run_phase, uncached for a phase whose inputs' content the job does not hold (a plan reads
    files it names by path: keyed on the job alone, a hit could hand back a stale answer)."""
    return run_phase if phase.cached else run_phase.with_options(cache_policy=NO_CACHE, persist_result=False)

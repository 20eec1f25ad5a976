"""Run a stage description with an executor: the one driver of every curation stage.

The CLI command of a stage calls ``run_stage`` with a local executor, the DAG's flow with the
Prefect one; both go through the same phases, staged output and ledger code, so they write the
same bytes.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from quarry.engine.output import StagedOutput
from quarry.engine.stage import Global, GlobalJob, Map, ShardJob, Stage
from quarry.ledger import merge_ledgers
from quarry.parallel import input_shards, relative_name
from quarry.records import write_json


class Executor(Protocol):
    def map(self, stage: Stage, phase: Map, jobs: list[ShardJob], config: Any) -> list[Any]: ...

    def run_global(self, stage: Stage, phase: Global, job: GlobalJob, config: Any) -> dict: ...

    def log(self, message: str) -> None: ...


@dataclass
class StageRun:
    stage: str
    ledger: dict[str, Any]
    input_bytes: int                       # bytes of the input shards on disk
    seconds: float
    phases: dict[str, float] = field(default_factory=dict)   # phase -> seconds

    def summary(self) -> str:
        ledger = self.ledger
        dropped = ", ".join(f"{reason} {n}" for reason, n in ledger["dropped"].items()) or "none"
        mb = self.input_bytes / 1e6
        rate = mb / self.seconds if self.seconds > 0 else 0.0
        return (f"{self.stage}: {ledger['input']} in, {ledger['kept']} kept, dropped: {dropped}; "
                f"{mb:.1f} MB of shards in {self.seconds:.1f} s ({rate:.2f} MB/s)")


def run_stage(stage: Stage, src_dir: Path, dst_dir: Path, params: dict[str, Any] | None, executor: Executor, *,
              work_dir: Path | None = None, keep_work: bool = True) -> StageRun:
    """Every phase of ``stage`` over the shards of ``src_dir``; the output replaces ``dst_dir`` whole
    (shards, rejects/, ledger.json and the stage's reports) once the last phase is done."""
    started = time.perf_counter()
    config = stage.config(params or {})  # a bad section fails before anything is written
    src_dir, dst_dir = Path(src_dir), Path(dst_dir)
    shards = input_shards(src_dir)
    names = [relative_name(shard, src_dir) for shard in shards]
    output = StagedOutput(src_dir, dst_dir)
    staging = output.open()
    work = Path(work_dir) if work_dir else output.work
    results: dict[str, Any] = {}
    timings: dict[str, float] = {}
    for phase in stage.phases:
        begun = time.perf_counter()
        folder = work / phase.name
        if isinstance(phase, Map):
            jobs = [_shard_job(phase, shard, name, i, staging, folder, results, stage)
                    for i, (shard, name) in enumerate(zip(shards, names, strict=True))]
            results[phase.name] = executor.map(stage, phase, jobs, config)
        else:
            results[phase.name] = executor.run_global(stage, phase, GlobalJob(names, dict(results), str(folder)),
                                                      config)
        timings[phase.name] = time.perf_counter() - begun
    ledger = merge_ledgers(stage.name, [r["ledger"] for r in results[stage.writer.name]]).to_dict()
    output.prune({*names, *(f"rejects/{name}" for name in names)})
    if stage.finish is not None:
        ledger.update(stage.finish(config, results, staging))
    write_json(staging / "ledger.json", ledger)
    output.commit()
    if not keep_work:
        shutil.rmtree(work, ignore_errors=True)
    run = StageRun(stage.name, ledger, sum(s.stat().st_size for s in shards), time.perf_counter() - started, timings)
    executor.log(run.summary())
    return run


def _shard_job(phase: Map, shard: Path, name: str, index: int, staging: Path, folder: Path,
               results: dict[str, Any], stage: Stage) -> ShardJob:
    inputs = {}
    for earlier in stage.phases:
        if earlier.name == phase.name:
            break
        value = results[earlier.name]
        if isinstance(value, list):
            inputs[earlier.name] = value[index]
        elif "shards" in value:
            inputs[earlier.name] = value["shards"][index]  # a global's decision for this shard
        else:
            inputs[earlier.name] = value
    dst = str(staging / name) if phase.writes else None
    rejects = str(staging / "rejects" / name) if phase.writes else None
    return ShardJob(shard, name, dst, rejects, str(folder / name.replace("/", "__")), inputs)


def run_local(stage: Stage, src_dir: Path, dst_dir: Path, params: dict[str, Any] | None, *, workers: int = 1,
              work_dir: Path | None = None, echo=None) -> dict[str, Any]:
    """The stage over ``workers`` local processes (the CLI's way); returns its ledger. Scratch
    files go unless ``work_dir`` names where to keep them."""
    from quarry.engine.local import LocalExecutor

    with LocalExecutor(workers, echo=echo) as executor:
        return run_stage(stage, src_dir, dst_dir, params, executor, work_dir=work_dir,
                         keep_work=work_dir is not None).ledger

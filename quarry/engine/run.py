"""Run a stage description with an executor: the one driver of every stage of the DAG.

The CLI command of a stage calls ``run_stage`` with a local executor, the DAG's flow with the
Prefect one; both go through the same phases, staged output and ledger code, so they write the
same bytes.
"""

from __future__ import annotations

import resource
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from quarry.config import Params, as_params
from quarry.engine import provenance
from quarry.engine.local import LocalExecutor
from quarry.engine.output import StagedOutput
from quarry.engine.stage import Global, GlobalJob, ItemJob, Map, PerShard, Plan, Private, ShardJob, Stage
from quarry.errors import QuarryError
from quarry.ledger import merge_ledgers
from quarry.infra.lock import writing
from quarry.records import input_shards, relative_name, write_json

C = TypeVar("C")
R = TypeVar("R")


class Executor(Protocol):
    def map(self, stage: Stage[C], phase: Map[R], jobs: list[ShardJob | ItemJob], config: C) -> list[R]: ...

    def run_global(self, stage: Stage[C], phase: Global[R], job: GlobalJob, config: C) -> R: ...

    def log(self, message: str) -> None: ...


@dataclass
class StageRun:
    stage: str
    result: dict[str, Any]                 # the ledger of a stage that writes shards, else what finish returned
    input_bytes: int                       # bytes of the input shards on disk
    seconds: float
    phases: dict[str, float] = field(default_factory=dict)   # phase -> seconds
    cpu_seconds: float = 0.0               # this process and its finished children (not remote workers)

    def summary(self) -> str:
        timing = f"in {self.seconds:.1f} s"
        if self.input_bytes:
            mb = self.input_bytes / 1e6
            timing = f"{mb:.1f} MB of shards {timing} ({mb / self.seconds if self.seconds > 0 else 0.0:.2f} MB/s)"
        ledger = self.result
        if not {"input", "kept", "dropped"} <= set(ledger):
            notice = f"; {ledger['notice']}" if ledger.get("notice") else ""  # the stage's own words
            return f"{self.stage}: done, {timing}{notice}"
        dropped = ", ".join(f"{reason} {n}" for reason, n in ledger["dropped"].items()) or "none"
        changed = ", ".join(f"{reason} {n}" for reason, n in (ledger.get("changed") or {}).items())
        changed = f", changed: {changed}" if changed else ""  # PII's redactions by type
        return f"{self.stage}: {ledger['input']} in, {ledger['kept']} kept, dropped: {dropped}{changed}; {timing}"


def run_stage(stage: Stage, src_dir: Path | None, dst_dir: Path, params: Params | dict | None, executor: Executor, *,
              args: Any = None, work_dir: Path | None = None, keep_work: bool = True) -> StageRun:
    """Every phase of ``stage`` over the shards of ``src_dir`` (or the items its plan names); the
    output replaces ``dst_dir`` whole (shards, rejects/, ledger.json and the stage's reports) once
    the last phase is done. ``args``: what the stage reads besides params and its input folder.
    ``params``: the typed Params, or a mapping shaped like params.yaml (quarry.config.as_params)."""
    started, cpu_started = time.perf_counter(), _cpu_seconds()
    config = stage.config(as_params(params))  # a bad section fails before anything is written
    src = Path(src_dir) if src_dir is not None else None
    dst = Path(dst_dir)
    shards = input_shards(src) if stage.reads_shards else []
    names = [relative_name(shard, src) for shard in shards]
    output = StagedOutput(src, dst) if stage.staged else None
    work = Path(work_dir) if work_dir else dst.parent / f".{dst.name}.work"
    try:
        target = output.open() if output else dst
        result, timings = _run_phases(stage, config, args, src, names, shards, target, work, executor, output)
        provenance.write(target, provenance.record(stage.name, config, args, src, target, dst))
        if output is not None:
            output.commit()
    except BaseException as exc:
        # a failed run leaves the last complete output and takes its scratch with it: a full disk
        # is not kept full by the attempt (a killed run's staging is reused by the next one)
        if output is not None:
            output.discard()
        if not (keep_work and stage.keeps_work) or isinstance(exc, OSError):
            shutil.rmtree(work, ignore_errors=True)
        if isinstance(exc, OSError) and not isinstance(exc, QuarryError):
            where = exc.filename or dst
            raise QuarryError(f"{stage.name}: writing {dst} failed at {where}: {exc.strerror or exc}") from exc
        raise
    if not (keep_work and stage.keeps_work):
        shutil.rmtree(work, ignore_errors=True)
    run = StageRun(stage.name, result, sum(s.stat().st_size for s in shards), time.perf_counter() - started, timings,
                   _cpu_seconds() - cpu_started)
    executor.log(run.summary())
    return run


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _run_phases(stage: Stage, config: Any, args: Any, src: Path | None, names: list[str], shards: list[Path],
                target: Path, work: Path, executor: Executor,
                output: StagedOutput | None) -> tuple[dict[str, Any], dict[str, float]]:
    """Every phase in order, then the ledger (a stage that writes shards) and the finish."""
    results: dict[str, Any] = {}
    timings: dict[str, float] = {}
    for phase in stage.phases:
        begun = time.perf_counter()
        folder = work / phase.name
        if isinstance(phase, Map):
            jobs = (_item_jobs(phase, results, stage, folder) if phase.over else
                    [_shard_job(phase, shard, name, i, target, folder, results, stage)
                     for i, (shard, name) in enumerate(zip(shards, names, strict=True))])
            given = config if phase.needs_config else None
            results[phase.name] = _checked(stage, phase, executor.map(stage, phase, jobs, given))
        else:
            job = GlobalJob(names, dict(results), str(folder), _str(src), str(target), args)
            results[phase.name] = _checked(stage, phase, executor.run_global(stage, phase, job, config))
        timings[phase.name] = time.perf_counter() - begun
    if output is not None:  # files of an earlier, larger input go; a finish writes its own anew
        output.prune({*names, *(f"rejects/{name}" for name in names)} if stage.writer else None)
    result: dict[str, Any] = {}
    if stage.writer is not None:
        result = merge_ledgers(stage.name, [written.ledger for written in results[stage.writer.name]]).to_dict()
    if stage.finish is not None:
        job = GlobalJob(names, results, str(work / "finish"), _str(src), str(target), args)
        result.update(stage.finish(job, config))
    if stage.writer is not None:
        write_json(target / "ledger.json", result)
    return result, timings


def _str(path: Path | None) -> str | None:
    return None if path is None else str(path)


def _checked(stage: Stage, phase: Map | Global, result: Any) -> Any:
    """The result, if it is of the type the phase declares (every job's, for a map)."""
    for value in (result if isinstance(phase, Map) else [result]):
        if not isinstance(value, phase.returns):
            raise QuarryError(f"stage {stage.name}: phase {phase.name} returned {type(value).__name__}, "
                              f"but declares {phase.returns.__name__}")
    return result


def _earlier_results(phase: Map, stage: Stage, results: dict[str, Any], index: int) -> dict[str, Any]:
    """What job ``index`` of ``phase`` receives of each earlier phase, by the kind it declares."""
    inputs = {}
    for earlier in stage.phases:
        if earlier.name == phase.name:
            break
        value = results[earlier.name]
        if isinstance(earlier, Map):
            if earlier.over == phase.over:  # a map over the same units as this one: its result for this unit
                inputs[earlier.name] = value[index]
        elif issubclass(earlier.returns, (Plan, Private)):
            continue  # a plan reaches its maps as their jobs' items; a private result no map
        elif issubclass(earlier.returns, PerShard):
            inputs[earlier.name] = value.shards[index]  # a global's decision for this shard
        else:
            inputs[earlier.name] = value
    return inputs


def _shard_job(phase: Map, shard: Path, name: str, index: int, staging: Path, folder: Path,
               results: dict[str, Any], stage: Stage) -> ShardJob:
    dst = str(staging / name) if phase.writes else None
    rejects = str(staging / "rejects" / name) if phase.writes else None
    return ShardJob(shard, name, dst, rejects, str(folder / name.replace("/", "__")),
                    _earlier_results(phase, stage, results, index))


def _item_jobs(phase: Map, results: dict[str, Any], stage: Stage, folder: Path) -> list[ItemJob]:
    """One job per item of the plan, each with a scratch name (a cached map's resume records go there)."""
    items = results[phase.over].items
    return [ItemJob(item.value, item.name, tuple(item.writes), _earlier_results(phase, stage, results, i),
                    str(folder / f"{i:06d}"), item.size, phase.cached)
            for i, item in enumerate(items)]


def run_local(stage: Stage, src_dir: Path | None, dst_dir: Path, params: Params | dict | None, *, workers: int = 1,
              args: Any = None, work_dir: Path | None = None, echo=None) -> dict[str, Any]:
    """The stage over ``workers`` local processes (the CLI's way); returns its result (the ledger
    of a stage that writes shards). Scratch files go unless ``work_dir`` names where to keep them.
    Writing into the project, it holds the project's lock (quarry.infra.lock)."""
    with writing(Path(dst_dir)), LocalExecutor(workers, echo=echo) as executor:
        return run_stage(stage, src_dir, dst_dir, params, executor, args=args, work_dir=work_dir,
                         keep_work=work_dir is not None).result

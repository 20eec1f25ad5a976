"""A stage as data: its phases, its typed config, what each phase hands the next.

    FILTERS = Stage("filters", folder="filtered", config=lambda params: params.filters,
                    phases=(Map("filter", filter_phase, Written, writes=True),))

A ``Map`` phase is a pure function ``fn(job, config)`` of one unit of work. By default the units
are the input folder's shards (``ShardJob``); the one phase with ``writes=True`` writes the output
shard and its rejects and returns a ``Written`` (its ``ledger``). A map ``over`` a global phase
runs over that phase's plan (``ItemJob``: an origin to snapshot, a split to write, a shard to
score). A ``Global`` phase ``fn(job: GlobalJob, config)`` sees every earlier result.

Every phase declares the type it returns, and the engine routes a result by that declared kind,
never by looking inside it:
- a ``Plan`` (``items``: the work of the maps ``over`` it) reaches only those maps;
- a ``PerShard`` (``shards``: one value per input shard) hands value i to shard i of later maps;
- a ``Private`` reaches only later global phases and the finish (what a map's cache key must not
  cover: a plan's list of every input file);
- any other type reaches every later job whole (a summary, a layout);
- a map's results reach later maps over the same units, one each, and global phases as a list.

Phases read earlier results by phase, typed: ``job.of(PLAN)`` (a global's result),
``job.each(INDEX)`` (a map's results in job order), ``job.input(DECISIONS)`` (a map job's own
share). ``finish`` is a global step run last in the driver's process, which may write into the
output folder; what it returns is the stage's result. A ``Stage[C]`` is generic in its config
type ``C``: ``config`` derives it from Params and every phase receives it as typed.
Executors (quarry.engine.local, tasks.executor) run the phases; quarry.engine.run drives them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

C = TypeVar("C")      # a stage's config type
R = TypeVar("R")      # a phase's result type


@dataclass(frozen=True, kw_only=True)
class Plan:
    """A global phase's work list: the maps ``over`` it run once per item (subclasses add what
    later phases read besides)."""

    items: list[WorkItem]


@dataclass(frozen=True, kw_only=True)
class PerShard:
    """A global phase's decision for each input shard: shard i of the later maps gets ``shards[i]``."""

    shards: list[Any]


class Private:
    """A global phase's result that no map job receives, only later global phases and the finish."""


@dataclass(frozen=True, kw_only=True)
class Written:
    """What a map that writes the stage's output shards returns: the shard's ledger."""

    ledger: dict[str, Any]


@dataclass(frozen=True)
class Map(Generic[R]):
    name: str
    fn: Callable[[Any, Any], R]
    returns: type[R]          # each job's result (a Written for the phase that writes)
    writes: bool = False
    over: str | None = None   # a Global phase returning a Plan, whose items this map runs over (default: the input shards)
    cached: bool = True       # False where the inputs' content is not in the job (files a plan names by path)
    # False: the map reads nothing of the config (its plan put what it needs into the items), so its
    # jobs get None and a param change that leaves the items as they were re-runs none of them
    needs_config: bool = True


@dataclass(frozen=True)
class Global(Generic[R]):
    name: str
    fn: Callable[[GlobalJob, Any], R]
    returns: type[R]          # a Plan, a PerShard, or a value every later job receives
    cached: bool = True
    # bookkeeping (count, name files, write a small list): run where the driver runs, not as a task
    # of its own, whose round trip costs more than the step (never cached)
    inline: bool = False


Phase = Map | Global


@dataclass(frozen=True)
class Stage(Generic[C]):
    name: str                                  # the ledger's stage name
    folder: str                                # its folder under the curated output ("" outside curation)
    config: Callable[[Any], C]                 # Params -> its section (or a frozen config derived from it)
    phases: tuple[Map | Global, ...]
    # (job with every phase's result and the output folder, config) -> the stage's result; for a stage
    # that writes shards, extra ledger keys. May write report files into job.dst.
    finish: Callable[[GlobalJob, C], dict[str, Any]] | None = None
    reads_shards: bool = True     # its input is a folder of record shards
    staged: bool = True           # the output is built in a staging folder and swapped in whole
    keeps_work: bool = True       # scratch files stay for the next run's cache hits

    def __post_init__(self) -> None:
        globals_by_name = {p.name: p for p in self.phases if isinstance(p, Global)}
        for phase in self.phases:
            if isinstance(phase, Map) and phase.over is not None:
                planner = globals_by_name.get(phase.over)
                if planner is None or not issubclass(planner.returns, Plan):
                    raise TypeError(f"stage {self.name}: map {phase.name} runs over {phase.over!r}, "
                                    "which is not a global phase that returns a Plan")
            if isinstance(phase, Map) and phase.writes and not issubclass(phase.returns, Written):
                raise TypeError(f"stage {self.name}: map {phase.name} writes the output, so it returns a Written")

    @property
    def writer(self) -> Map | None:
        return next((p for p in self.phases if isinstance(p, Map) and p.writes), None)


class _Results:
    """Typed reads of earlier phases' results, by phase (the phase object, not its name)."""

    inputs: dict[str, Any]

    def input(self, phase: Map[R] | Global[R]) -> R:
        """This job's share of an earlier phase's result (routed by the engine)."""
        return self.inputs[phase.name]


@dataclass(frozen=True)
class WorkItem:
    """One unit of work a planning phase hands to the map over it."""

    name: str                      # how progress and task runs name it
    value: Any                     # what the map's function receives as ``job.item``
    writes: tuple[str, ...] = ()   # the files it writes (checked on a cache hit)
    size: int = 0                  # the bytes it reads, about: task runs over items are balanced by it


@dataclass(frozen=True)
class ShardJob(_Results):
    """One shard's call of a map phase. Paths it writes are strings, so that a cache key over
    the job's content sees the input shard's bytes but not the files the call produces."""

    src: Path
    name: str                      # the shard's name relative to the input folder
    dst: str | None = None         # the output shard (writing phase only)
    rejects: str | None = None     # its rejects file
    work: str = ""                 # this shard's scratch folder for this phase
    inputs: dict[str, Any] = field(default_factory=dict)  # earlier phases' results for this shard

    @property
    def record(self) -> str | None:
        """Where an executor may keep what this call finished, to skip it when run again."""
        return f"{self.work}.done" if self.work else None

    def outputs(self) -> list[str]:
        written = [p for p in (self.dst, self.rejects) if p] or [self.work]
        return [*written, self.record] if self.record else written


@dataclass(frozen=True)
class ItemJob(_Results):
    """One work item's call of a map ``over`` a planning phase."""

    item: Any
    name: str
    writes: tuple[str, ...] = ()
    inputs: dict[str, Any] = field(default_factory=dict)  # earlier maps' results for this item
    work: str = ""                 # this item's scratch name in the phase's folder
    size: int = 0                  # WorkItem.size
    # whether an executor may record what this call finished, beside ``work`` (not for a map whose
    # job does not hold its inputs' content: a record keyed on it could answer for changed files)
    cached: bool = True

    @property
    def record(self) -> str | None:
        return f"{self.work}.done" if self.work and self.cached else None

    def outputs(self) -> list[str]:
        return [*self.writes, self.record] if self.record else list(self.writes)


@dataclass(frozen=True)
class GlobalJob:
    names: list[str]               # input shard names, in order ([] for a stage that reads none)
    results: dict[str, Any]        # earlier phases: per-job result lists (maps), dicts (globals)
    work: str                      # the phase's scratch folder
    src: str | None = None         # the stage's input folder
    dst: str | None = None         # the folder the output is built in (staging, for a staged stage)
    args: Any = None               # what the stage reads besides params and its input (a frozen dataclass)

    def of(self, phase: Global[R]) -> R:
        """What an earlier global phase returned."""
        return self.results[phase.name]

    def each(self, phase: Map[R]) -> list[R]:
        """What an earlier map returned, one result per job, in job order."""
        return self.results[phase.name]

    def outputs(self) -> list[str]:
        return [self.work]


@dataclass(frozen=True)
class Keyed:
    """A value that task cache keys see only by ``key`` (an in-memory tokenizer, by its id)."""

    key: str | None
    value: Any

    def cache_fingerprint(self) -> Any:
        return {"keyed": self.key}


def phase_ref(fn: Callable) -> str:
    """``module:qualname`` of a phase function (how a remote worker finds it)."""
    return f"{fn.__module__}:{fn.__qualname__}"


def resolve_phase(ref: str) -> Callable:
    module, _, name = ref.partition(":")
    target: Any = importlib.import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    return target


def job_bytes(jobs: list) -> list[int]:
    """The bytes each job reads: its input shard's size, or the size its plan gave its item (0: unknown)."""
    return [Path(job.src).stat().st_size if isinstance(job, ShardJob) and Path(job.src).is_file() else
            getattr(job, "size", 0) for job in jobs]

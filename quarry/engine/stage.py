"""A stage as data: its phases, its typed config, what its output holds.

    FILTERS = Stage("filters", folder="filtered", config=lambda params: params.filters,
                    phases=(Map("filter", filter_phase, writes=True),))

A ``Map`` phase is a pure function ``fn(job, config)`` of one unit of work. By default the units
are the input folder's shards (``ShardJob``), and the one phase with ``writes=True`` writes the
output shard and its rejects and returns ``{"ledger": ..., ...}``. A map ``over`` a global phase
runs over the ``"items"`` that phase returned instead (``ItemJob``: an origin to snapshot, a split
to write, a shard to score). A ``Global`` phase ``fn(job: GlobalJob, config)`` sees every earlier
result and returns a small dict; its ``"shards"`` list, when present, hands item i to shard i of
the next maps. ``finish`` is a global step run last in the driver's process, which may write into
the output folder; what it returns is the stage's result. Executors (quarry.engine.local,
tasks.executor) run the phases; quarry.engine.run drives them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Map:
    name: str
    fn: Callable[[Any, Any], Any]
    writes: bool = False
    over: str | None = None   # a Global phase whose "items" this map runs over (default: the input shards)
    cached: bool = True       # False where the inputs' content is not in the job (files a plan names by path)


@dataclass(frozen=True)
class Global:
    name: str
    fn: Callable[[GlobalJob, Any], dict]
    cached: bool = True
    # bookkeeping (count, name files, write a small list): run where the driver runs, not as a task
    # of its own, whose round trip costs more than the step (never cached)
    inline: bool = False


@dataclass(frozen=True)
class Stage:
    name: str                                  # the ledger's stage name
    folder: str                                # its folder under the curated output ("" outside curation)
    config: Callable[[Any], Any]               # Params -> its section (or a frozen config derived from it)
    phases: tuple[Map | Global, ...]
    # (job with every phase's result and the output folder, config) -> the stage's result; for a stage
    # that writes shards, extra ledger keys. May write report files into job.dst.
    finish: Callable[[GlobalJob, Any], dict[str, Any]] | None = None
    reads_shards: bool = True     # its input is a folder of record shards
    staged: bool = True           # the output is built in a staging folder and swapped in whole
    keeps_work: bool = True       # scratch files stay for the next run's cache hits

    @property
    def writer(self) -> Map | None:
        return next((p for p in self.phases if isinstance(p, Map) and p.writes), None)


@dataclass(frozen=True)
class WorkItem:
    """One unit of work a planning phase hands to the map over it."""

    name: str                      # how progress and task runs name it
    value: Any                     # what the map's function receives as ``job.item``
    writes: tuple[str, ...] = ()   # the files it writes (checked on a cache hit)


@dataclass(frozen=True)
class ShardJob:
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
class ItemJob:
    """One work item's call of a map ``over`` a planning phase."""

    item: Any
    name: str
    writes: tuple[str, ...] = ()
    inputs: dict[str, Any] = field(default_factory=dict)  # earlier maps' results for this item

    def outputs(self) -> list[str]:
        return list(self.writes)


@dataclass(frozen=True)
class GlobalJob:
    names: list[str]               # input shard names, in order ([] for a stage that reads none)
    results: dict[str, Any]        # earlier phases: per-job result lists (maps), dicts (globals)
    work: str                      # the phase's scratch folder
    src: str | None = None         # the stage's input folder
    dst: str | None = None         # the folder the output is built in (staging, for a staged stage)
    args: Any = None               # what the stage reads besides params and its input (a frozen dataclass)

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
    """The bytes each job reads: its input shard's size (a job over a plan's item reads none known)."""
    return [Path(job.src).stat().st_size if isinstance(job, ShardJob) and Path(job.src).is_file() else 0 for job in jobs]

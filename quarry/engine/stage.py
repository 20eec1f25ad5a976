"""A stage as data: its phases over shards, its typed config, what its output holds.

    FILTERS = Stage("filters", folder="filtered", config=filters_config,
                    phases=(Map("filter", filter_phase, writes=True),))

A ``Map`` phase is a pure function ``fn(job: ShardJob, config)`` of one input shard (and of the
results earlier phases gave for that shard); the one phase with ``writes=True`` writes the output
shard and its rejects and returns ``{"ledger": ..., ...}``. A ``Global`` phase ``fn(job:
GlobalJob, config)`` sees every shard's results of the earlier phases and returns a small dict;
its ``"shards"`` list, when present, hands item i to shard i of the next maps. Executors
(quarry.engine.local, tasks.executor) run the phases; quarry.engine.run drives them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Map:
    name: str
    fn: Callable[[ShardJob, Any], Any]
    writes: bool = False


@dataclass(frozen=True)
class Global:
    name: str
    fn: Callable[[GlobalJob, Any], dict]


@dataclass(frozen=True)
class Stage:
    name: str                                  # the ledger's stage name
    folder: str                                # its folder under the curated output
    config: Callable[[dict[str, Any]], Any]    # params -> typed config (raises on a bad section)
    phases: tuple[Map | Global, ...]
    # (config, results by phase, output folder) -> extra ledger keys; may write report files there
    finish: Callable[[Any, dict[str, Any], Path], dict[str, Any]] | None = None

    @property
    def writer(self) -> Map:
        return next(p for p in self.phases if isinstance(p, Map) and p.writes)


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

    def outputs(self) -> list[str]:
        return [p for p in (self.dst, self.rejects) if p] or [self.work]


@dataclass(frozen=True)
class GlobalJob:
    names: list[str]               # shard names, in order
    results: dict[str, Any]        # earlier phases: per-shard result lists (maps), dicts (globals)
    work: str                      # the phase's scratch folder

    def outputs(self) -> list[str]:
        return [self.work]


def phase_ref(fn: Callable) -> str:
    """``module:qualname`` of a phase function (how a remote worker finds it)."""
    return f"{fn.__module__}:{fn.__qualname__}"


def resolve_phase(ref: str) -> Callable:
    import importlib

    module, _, name = ref.partition(":")
    target: Any = importlib.import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    return target

"""Run one step over one shard: the unit of work that tasks/ caches and flows/ schedule.

A step is any object with ``name`` and ``apply(record) -> StepResult``; datatrove-style filters
and mappers (quarry.curation.filters.base) are steps. The output shard and its rejects file are written
atomically, so an interrupted run leaves either a complete shard or none.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from quarry.ledger import Ledger
from quarry.records import JsonDict, Record, RecordWriter, read_records


@dataclass(frozen=True)
class Drop:
    reason: str
    detail: dict | None = None


# A step returns the (possibly changed) record, or Drop(reason).
StepResult = "JsonDict | Drop"


class Step(Protocol):
    name: str

    def apply(self, record: Record) -> JsonDict | Drop: ...


@contextlib.contextmanager
def shard_output(stage: str, dst: str | os.PathLike, *, rejects: str | os.PathLike | None = None,
                 level: int = 3) -> Iterator[tuple[Ledger, RecordWriter]]:
    """The ledger (its drops written to ``rejects``) and the output writer of one shard. Both
    files are put in place when the block ends; if it raises, neither is."""
    ledger = Ledger(stage)
    rejects_writer = RecordWriter(rejects, level=level, validate=False) if rejects else None
    ledger.rejects = rejects_writer
    try:
        with RecordWriter(dst, level=level) as out:
            yield ledger, out
    except BaseException:
        if rejects_writer is not None:
            rejects_writer.abort()
        raise
    if rejects_writer is not None:
        rejects_writer.close()
    ledger.rejects = None


def run_step_on_shard(step: Step, src: str | os.PathLike, dst: str | os.PathLike, *,
                      rejects: str | os.PathLike | None = None, level: int = 3) -> Ledger:
    """Stream ``src`` through ``step`` into ``dst``; returns the shard's ledger."""
    with shard_output(step.name, dst, rejects=rejects, level=level) as (ledger, out):
        for record in read_records(src):
            ledger.seen()
            result = step.apply(record)
            if isinstance(result, Drop):
                ledger.drop(record, result.reason, **(result.detail or {}))
                continue
            out.write(result)
            ledger.keep()
    return ledger

"""Per-stage ledger: how many records came in, were kept, changed, or dropped and why.

A record is never silently lost: a stage that drops one calls ``drop(record, reason)``, which
counts it and (when a rejects writer is attached) writes its id, origin, path and reason.
Ledgers of shards merge by addition, so a stage's ledger is the same whatever the sharding.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TypedDict

from quarry.records import Record, RecordWriter


class LedgerDict(TypedDict):
    """A ledger as ledger.json holds it (a stage's finish may add keys of its own beside these)."""

    stage: str
    input: int
    kept: int
    dropped: dict[str, int]    # reason -> documents
    changed: dict[str, int]    # what changed -> documents


@dataclass
class Ledger:
    stage: str
    input: int = 0
    kept: int = 0
    dropped: Counter = field(default_factory=Counter)
    changed: Counter = field(default_factory=Counter)
    rejects: RecordWriter | None = field(default=None, repr=False, compare=False)

    def seen(self, n: int = 1) -> None:
        self.input += n

    def keep(self, n: int = 1) -> None:
        self.kept += n

    def change(self, reason: str, n: int = 1) -> None:
        self.changed[reason] += n

    def drop(self, record: Record, reason: str, **detail: Any) -> None:
        self.dropped[reason] += 1
        if self.rejects is not None:
            meta = record.get("meta", {})
            self.rejects.write({
                "text": "",  # the dropped text is not copied: ids trace it back to the snapshot
                "meta": {"id": meta.get("id"), "origin": meta.get("origin"), "path": meta.get("path"),
                         "stage": self.stage, "reason": reason, **detail},
            })

    @property
    def dropped_total(self) -> int:
        return sum(self.dropped.values())

    def merge(self, other: Ledger | dict) -> Ledger:
        other = other if isinstance(other, Ledger) else Ledger.from_dict(other)
        self.input += other.input
        self.kept += other.kept
        self.dropped.update(other.dropped)
        self.changed.update(other.changed)
        return self

    def to_dict(self) -> LedgerDict:
        return {"stage": self.stage, "input": self.input, "kept": self.kept,
                "dropped": dict(sorted(self.dropped.items())), "changed": dict(sorted(self.changed.items()))}

    @classmethod
    def from_dict(cls, data: LedgerDict) -> Ledger:
        return cls(stage=data["stage"], input=data.get("input", 0), kept=data.get("kept", 0),
                   dropped=Counter(data.get("dropped", {})), changed=Counter(data.get("changed", {})))


def merge_ledgers(stage: str, ledgers) -> Ledger:
    total = Ledger(stage)
    for ledger in ledgers:
        total.merge(ledger)
    return total

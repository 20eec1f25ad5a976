"""The composition table: documents, bytes and (with a tokenizer) tokens by subset, language,
license category and split. Exact integer counts, added up record by record, so a recount from
the shards gives the same numbers."""

from __future__ import annotations

from collections.abc import Iterable

from quarry.splits import subset_of
from quarry.records import JsonDict, Record

DIMENSIONS = ("split", "subset", "language", "license_category")


def record_keys(record: Record) -> dict[str, str]:
    meta = record.get("meta") or {}
    license_info = meta.get("license") or {}
    category = license_info.get("category") if isinstance(license_info, dict) else None
    return {
        "split": str(meta.get("split") or "unsplit"),
        "subset": subset_of(record),
        "language": str(meta.get("language") or "unknown"),
        "license_category": str(category or "unknown"),
    }


class Composition:
    """Counts per dimension value, plus split x subset (the table a datacard shows)."""

    def __init__(self, with_tokens: bool = False):
        self.with_tokens = with_tokens
        self.total = self._zero()
        self.by: dict[str, dict[str, dict[str, int]]] = {dim: {} for dim in DIMENSIONS}
        self.split_subset: dict[str, dict[str, dict[str, int]]] = {}

    def _zero(self) -> dict[str, int]:
        return {"documents": 0, "bytes": 0, **({"tokens": 0} if self.with_tokens else {})}

    def _bump(self, cell: dict[str, int], counts: dict[str, int]) -> None:
        for key, value in counts.items():
            cell[key] += value

    def add(self, record: Record, tokens: int | None = None) -> None:
        counts = {"documents": 1, "bytes": len(record["text"].encode("utf-8"))}
        if self.with_tokens:
            counts["tokens"] = int(tokens or 0)
        self.add_counts(record_keys(record), counts)

    def add_counts(self, keys: dict[str, str], counts: dict[str, int]) -> None:
        self._bump(self.total, counts)
        for dim in DIMENSIONS:
            self._bump(self.by[dim].setdefault(keys[dim], self._zero()), counts)
        per_split = self.split_subset.setdefault(keys["split"], {})
        self._bump(per_split.setdefault(keys["subset"], self._zero()), counts)

    def merge(self, other: Composition | JsonDict) -> Composition:
        other = other if isinstance(other, Composition) else Composition.from_dict(other)
        self._bump(self.total, other.total)
        for dim in DIMENSIONS:
            for value, counts in other.by[dim].items():
                self._bump(self.by[dim].setdefault(value, self._zero()), counts)
        for split, subsets in other.split_subset.items():
            for subset, counts in subsets.items():
                self._bump(self.split_subset.setdefault(split, {}).setdefault(subset, self._zero()), counts)
        return self

    def to_dict(self) -> JsonDict:
        def ordered(table: JsonDict) -> JsonDict:
            return {key: table[key] for key in sorted(table)}

        return {
            "total": dict(self.total),
            **{f"by_{dim}": ordered(self.by[dim]) for dim in DIMENSIONS},
            "by_split_and_subset": {split: ordered(s) for split, s in sorted(self.split_subset.items())},
        }

    @classmethod
    def from_dict(cls, data: JsonDict) -> Composition:
        comp = cls(with_tokens="tokens" in data.get("total", {}))
        comp.total = dict(data["total"])
        comp.by = {dim: {k: dict(v) for k, v in data.get(f"by_{dim}", {}).items()} for dim in DIMENSIONS}
        comp.split_subset = {s: {k: dict(v) for k, v in t.items()}
                             for s, t in data.get("by_split_and_subset", {}).items()}
        return comp


def count_records(records: Iterable[Record], tokenizer=None) -> JsonDict:
    """The composition of a stream of records (a recount from shards uses this too)."""
    comp = Composition(with_tokens=tokenizer is not None)
    for record in records:
        comp.add(record, len(tokenizer.encode(record["text"])) if tokenizer is not None else None)
    return comp.to_dict()

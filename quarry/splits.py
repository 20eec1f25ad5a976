"""Train / validation / test membership by a stable hash of the document id, stratified by subset.

A document's split depends on its id and the split fractions (``split_of``), so it keeps its
split between dataset versions. Hashing alone leaves a small subset without held-out documents
(77 documents at 2% test expect 1.5, and get none one time in five), so no bits per byte can be
reported for it: ``stratify`` then moves the subset's documents that rank first by a second hash
from the training split into each held-out split that lacks them. The choice depends only on the
subset's own documents, so it is stable when other subsets change, and it is made once over a
census of every shard (``SplitCensus``, mergeable, a few ids per subset). Decontamination makes
it and records it (``SPLITS_FILE``) so assembly releases exactly the test split it protected.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from quarry.config.datasets import AssembleParams, StratifyParams
from quarry.records import Record, read_json, write_json

DEFAULT_FRACTIONS = AssembleParams().splits   # assemble.splits when params.yaml names none
SPLIT_SALT = "quarry-split-v1"
STRATIFY_SALT = "quarry-stratify-v1"
SPLITS_FILE = "splits.json"   # the stratified assignment, beside the decontaminated shards
UNKNOWN_SUBSET = "unknown"


def subset_of(record: Record) -> str:
    """The subset a record belongs to: meta.pile_set_name, else its language."""
    meta = record.get("meta") or {}
    return str(meta.get("pile_set_name") or meta.get("language") or UNKNOWN_SUBSET)


def doc_id_of(record: Record) -> str | None:
    meta = record.get("meta")
    return meta.get("id") if isinstance(meta, dict) else None


def document_of(record: Record) -> tuple[str, str] | None:
    """(doc id, subset): what a census counts; None for a record without meta.id (it has no split)."""
    doc_id = doc_id_of(record)
    return None if doc_id is None else (doc_id, subset_of(record))


def unit_interval(doc_id: str, salt: str = SPLIT_SALT) -> float:
    """A uniform number in [0, 1) derived from the id alone."""
    digest = hashlib.sha256(f"{salt}\0{doc_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_of(doc_id: str, fractions: Mapping[str, float] = DEFAULT_FRACTIONS, salt: str = SPLIT_SALT) -> str:
    total = sum(fractions.values())
    if total <= 0:
        raise ValueError("split fractions must add up to a positive number")
    point = unit_interval(doc_id, salt) * total
    acc = 0.0
    name = next(iter(fractions))
    for name, share in fractions.items():  # noqa: B007 - the last name is the fallback
        acc += share
        if point < acc:
            return name
    return name


def pool_split(fractions: Mapping[str, float]) -> str:
    """The split documents are moved out of: the largest (training)."""
    return max(fractions, key=lambda name: fractions[name])


def heldout_splits(fractions: Mapping[str, float]) -> list[str]:
    pool = pool_split(fractions)
    return [name for name, share in fractions.items() if name != pool and share > 0]


@dataclass(frozen=True)
class Splits:
    """Split membership: by hash, except the documents stratification moved."""

    fractions: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_FRACTIONS))
    moved: Mapping[str, str] = field(default_factory=dict)   # doc id -> held-out split

    def of(self, doc_id: str) -> str:
        return self.moved.get(doc_id) or split_of(doc_id, self.fractions)


@dataclass
class SplitCensus:
    """Per subset: documents per hash split, and the pool's first-ranked documents (rank, id,
    where) - enough to stratify, and mergeable across shards."""

    keep: int                                                    # candidates kept per subset
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    candidates: dict[str, list[tuple[float, str, str]]] = field(default_factory=dict)

    @classmethod
    def of(cls, documents: Iterable[tuple[str, str]], fractions: Mapping[str, float], stratify: StratifyParams,
           where: str = "") -> SplitCensus:
        """The census of (doc id, subset) pairs found at ``where`` (a shard path)."""
        census = cls(keep=stratify.per_split * len(heldout_splits(fractions)))
        pool = pool_split(fractions)
        for doc_id, subset in documents:
            split = split_of(doc_id, fractions)
            counts = census.counts.setdefault(subset, {})
            counts[split] = counts.get(split, 0) + 1
            if split == pool and census.keep:
                census.candidates.setdefault(subset, []).append((unit_interval(doc_id, STRATIFY_SALT), doc_id, where))
        census._trim()
        return census

    @classmethod
    def merged(cls, parts: Iterable[SplitCensus]) -> SplitCensus:
        whole = None
        for part in parts:
            whole = part if whole is None else whole.merge(part)
        return whole if whole is not None else cls(keep=0)

    def merge(self, other: SplitCensus) -> SplitCensus:
        for subset, counts in other.counts.items():
            mine = self.counts.setdefault(subset, {})
            for split, n in counts.items():
                mine[split] = mine.get(split, 0) + n
        for subset, found in other.candidates.items():
            self.candidates.setdefault(subset, []).extend(tuple(c) for c in found)
        self._trim()
        return self

    def _trim(self) -> None:
        for subset, found in self.candidates.items():
            self.candidates[subset] = sorted(set(found))[:self.keep]

    def to_dict(self) -> dict:
        return {"keep": self.keep, "counts": self.counts, "candidates": self.candidates}

    @classmethod
    def from_dict(cls, data: Mapping) -> SplitCensus:
        return cls(data["keep"], {s: dict(c) for s, c in data["counts"].items()},
                   {s: [tuple(c) for c in found] for s, found in data["candidates"].items()})


def stratify(census: SplitCensus, fractions: Mapping[str, float], params: StratifyParams) -> dict[str, str]:
    """doc id -> held-out split for the documents moved: in every subset of at least
    ``params.min_docs`` documents, each held-out split short of ``params.per_split`` documents
    takes the pool's next first-ranked ones."""
    moved: dict[str, str] = {}
    for subset in sorted(census.counts):
        counts = census.counts[subset]
        if params.min_docs == 0 or sum(counts.values()) < params.min_docs:
            continue
        candidates = iter(census.candidates.get(subset, ()))
        for split in heldout_splits(fractions):
            for _ in range(params.per_split - counts.get(split, 0)):
                found = next(candidates, None)
                if found is not None:
                    moved[found[1]] = split
    return dict(sorted(moved.items()))


def moved_where(census: SplitCensus, moved: Mapping[str, str]) -> dict[str, list[str]]:
    """Where (shard) -> the moved documents found there, to read their texts."""
    where: dict[str, list[str]] = {}
    for found in census.candidates.values():
        for _, doc_id, place in found:
            if doc_id in moved:
                where.setdefault(place, []).append(doc_id)
    return where


# splits.json: written by decontamination, read by assembly. The fractions are pairs: their order
# decides the hash split, and JSON objects are written with sorted keys.

def write_record(path: Path, fractions: Mapping[str, float], stratify_params: StratifyParams,
                 moved: Mapping[str, str], counts: Mapping[str, Mapping[str, int]]) -> None:
    """``counts``: the census's documents per subset and hash split."""
    write_json(path, {"fractions": [[name, share] for name, share in fractions.items()],
                      "stratify": stratify_params.as_dict(), "moved": dict(moved),
                      "documents_by_hash": {subset: dict(sorted(c.items())) for subset, c in sorted(counts.items())}})


def recorded_moves(path: Path, fractions: Mapping[str, float], stratify_params: StratifyParams) -> dict[str, str] | None:
    """The moves recorded at ``path`` for these fractions and settings; None when there is no
    record, or it was made for others."""
    if not path.exists():
        return None
    recorded = read_json(path)
    if recorded["fractions"] != [[name, share] for name, share in fractions.items()] \
            or recorded["stratify"] != stratify_params.as_dict():
        return None
    return dict(recorded["moved"])


def moved_counts(moved: Mapping[str, str]) -> dict[str, int]:
    """Documents moved into each held-out split."""
    return dict(sorted(Counter(moved.values()).items()))

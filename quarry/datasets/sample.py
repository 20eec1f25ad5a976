"""A deterministic sample of one split of a dataset version, stratified by subset: what the
tokenizer learns from (a tokenizer needs a representative sample, not 67 TB).

Each subset gets its proportional share of the byte budget (at least ``MIN_SHARE`` of it, so a
small subset is not lost), turned into a rate: the share of its documents taken. A document is
taken when a hash of its id falls below its subset's rate, so the sample depends only on the
documents and the budget, never on their order, sharding or the worker count. The subsets' sizes
come from the version's manifest (one counting pass over a plain folder of shards without one).
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from quarry.records import JsonDict, Record, RecordWriter, read_folder, read_json, read_records, shard_paths
from quarry.splits import doc_id_of, subset_of

SALT = "quarry-sample-v1"
MIN_SHARE = 0.01   # a subset's floor, as a share of the budget (never more than the subset itself)


def split_folder(dataset_dir: str | os.PathLike, split: str) -> Path:
    """The split's folder of a dataset version; a folder of shards without one is taken whole."""
    root = Path(dataset_dir)
    return root / split if (root / split).is_dir() else root


def _unit(doc_id: str) -> float:
    """A document's place in [0, 1), from its id alone."""
    digest = hashlib.sha256(f"{SALT}\0{doc_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True)
class SamplePlan:
    split: str
    budget_bytes: int | None          # None: the whole split
    rates: dict[str, float]           # subset -> share of its documents taken (1.0: all)

    def takes(self, record: Record) -> bool:
        rate = self.rates.get(subset_of(record), 1.0)
        if rate >= 1.0:
            return True
        doc_id = doc_id_of(record)
        return doc_id is not None and _unit(str(doc_id)) < rate


@dataclass
class SampleCount:
    """What a sample took, by subset."""

    documents: Counter = field(default_factory=Counter)
    bytes: Counter = field(default_factory=Counter)

    def add(self, record: Record) -> None:
        subset = subset_of(record)
        self.documents[subset] += 1
        self.bytes[subset] += len(record["text"].encode("utf-8"))

    @classmethod
    def summed(cls, counts: Iterable[SampleCount]) -> SampleCount:
        """What several samples (a split's shards) took together."""
        total = cls()
        for count in counts:
            total.documents.update(count.documents)
            total.bytes.update(count.bytes)
        return total


def subset_bytes(dataset_dir: str | os.PathLike, split: str) -> dict[str, int]:
    """UTF-8 bytes of text per subset in the split: the manifest's composition, else counted."""
    manifest = Path(dataset_dir) / "manifest.json"
    if manifest.is_file():
        composition = (read_json(manifest).get("composition") or {}).get("by_split_and_subset") or {}
        if split in composition:
            return {subset: int(entry["bytes"]) for subset, entry in sorted(composition[split].items())}
    counted: Counter = Counter()
    for record in read_folder(split_folder(dataset_dir, split)):
        counted[subset_of(record)] += len(record["text"].encode("utf-8"))
    return dict(sorted(counted.items()))


def plan_sample(dataset_dir: str | os.PathLike, split: str, budget_mb: float | None) -> SamplePlan:
    """The rates that take about ``budget_mb`` MB of the split's text, stratified by subset."""
    if budget_mb is None:
        return SamplePlan(split, None, {})
    budget = int(budget_mb * 1e6)
    sizes = subset_bytes(dataset_dir, split)
    total = sum(sizes.values())
    if total <= budget:
        return SamplePlan(split, budget, {subset: 1.0 for subset in sizes})
    rates = {}
    for subset, size in sizes.items():
        target = max(budget * size / total, min(size, budget * MIN_SHARE))
        rates[subset] = min(1.0, target / size) if size else 1.0
    return SamplePlan(split, budget, rates)


def split_shards(dataset_dir: str | os.PathLike, split: str) -> list[Path]:
    """The split's record shards, in the order the sample reads them."""
    return shard_paths(split_folder(dataset_dir, split))


def sample_shard(shard: str | os.PathLike, plan: SamplePlan, out: str | os.PathLike) -> SampleCount:
    """The texts of one shard's records the plan takes, in order, written to ``out`` (records of
    ``text`` alone); returns what it took."""
    count = SampleCount()
    with RecordWriter(out) as writer:
        for record in read_records(shard):
            if plan.takes(record):
                count.add(record)
                writer.write({"text": record["text"]})
    return count


def sampled_texts(files: Iterable[str | os.PathLike]) -> Iterator[str]:
    """The texts of sample files (``sample_shard``'s), file after file."""
    for path in files:
        for record in read_records(path):
            yield record["text"]


def describe(plan: SamplePlan, count: SampleCount) -> JsonDict:
    """The sample's definition and what it took: the record a tokenizer's lineage keeps."""
    return {"split": plan.split, "budget_mb": None if plan.budget_bytes is None else plan.budget_bytes / 1e6,
            "salt": SALT, "rates": {subset: round(rate, 6) for subset, rate in sorted(plan.rates.items())},
            "documents": sum(count.documents.values()), "bytes": sum(count.bytes.values()),
            "by_subset": {subset: {"documents": count.documents[subset], "bytes": count.bytes[subset]}
                          for subset in sorted(count.documents)}}

"""Write the splits of a dataset as Pile-style jsonl.zst shards, from every input shard at once.

Assembly is an exchange through hash partitions on disk, as dedup's partitions are. Each input
shard is scattered on its own (``scatter_shard``): every document copy of each split goes into a
run sorted by its order key, a hash of the copy's id (as the Pile's shards are shuffled). A split
of B bytes is then written as N = ceil(B / shard_bytes) shards, shard j holding the copies whose
keys fall in the j-th of N ranges of the key space (``write_partition``: it reads only that range
of every input's run). So a split's bytes depend only on which documents it holds and on the
params: not on the order or sharding of the sources, nor on the worker count; no process holds
more than one output shard. Without shuffling, each input shard's copies are written in source
order, pass by pass (every second copy after all first copies), a shard per input and pass.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

import orjson

from quarry.datasets.attribution import Credits
from quarry.datasets.changelog import index_row
from quarry.datasets.composition import Composition
from quarry.datasets.mixture import Mixture
from quarry.engine.partitions import Runs, read_part, write_runs
from quarry.errors import RecordError
from quarry.ledger import Ledger
from quarry.records import JsonDict, Record, RecordWriter, read_records, write_records
from quarry.splits import subset_of

STAGE = "assemble"
ORDER_SALT = "quarry-order-v1"


def shard_name(index: int) -> str:
    return f"part-{index:05d}.jsonl.zst"


def prepare(record: Record, split: str, subset: str) -> JsonDict:
    """The record as released: meta gains its split, subset and UTF-8 byte count."""
    meta = dict(record.get("meta") or {})
    meta["pile_set_name"] = subset
    meta["split"] = split
    meta["bytes"] = len(record["text"].encode("utf-8"))
    return {**record, "meta": meta}


def order_key(doc_id: str, copy: int) -> int:
    """A document copy's place in a shuffled split: a hash of its id, so the order never depends
    on how the sources were sharded."""
    digest = hashlib.sha256(f"{ORDER_SALT}\0{doc_id}\0{copy}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class ShardScatter:
    """One input shard scattered: its part of each split, its documents' index rows (a file,
    sorted by id), from which the version's index is merged without reading the version back, and
    its origins' credits for the attribution bundle (runs by origin hash)."""

    splits: list[SplitScatter]
    index: str
    credits: Runs


@dataclass(frozen=True)
class SplitScatter:
    """One input shard's part of a split: its runs (one per pass without shuffling), the JSON bytes
    of its copies, and its ledger and rejects."""

    split: str
    runs: tuple[str, ...]
    bytes: int
    ledger: JsonDict
    rejects: str


def scatter_shard(source: Path, work: Path, splits: list[str], mixture: Mixture, *, shuffle: bool = True,
                  level: int = 3) -> ShardScatter:
    """Every copy of every document of ``source`` into its split's run under ``work``, keyed by its
    order key (shuffled) or by its row (source order, a run per pass)."""
    ledgers = {split: Ledger(STAGE) for split in splits}
    credits = Credits()   # the bundle credits an origin for every split alike
    entries: dict[tuple[str, int], list[tuple[int, bytes]]] = {}
    sizes = dict.fromkeys(splits, 0)
    rows: list[JsonDict] = []
    work.mkdir(parents=True, exist_ok=True)
    for split in splits:
        ledgers[split].rejects = RecordWriter(work / f"rejects-{split}.jsonl.zst", level=level, validate=False)
    try:
        for row, record in enumerate(read_records(source)):
            doc_id = (record.get("meta") or {}).get("id")
            if not doc_id:
                raise RecordError(source, None, None, "record without meta.id (needed for its split)")
            split = mixture.split(doc_id)
            if split not in ledgers:
                continue
            subset = subset_of(record)
            copies = mixture.copies(doc_id, subset, split)
            ledger = ledgers[split]
            ledger.seen()
            if copies == 0:
                ledger.drop(record, "not sampled by the mixture")
                continue
            ledger.keep()
            prepared = prepare(record, split, subset)
            credits.add(prepared)
            line = orjson.dumps(prepared)
            passes = copies if shuffle or split == "train" else 1   # unshuffled held-out splits: once
            rows.append(index_row(prepared["meta"], passes))
            for copy in range(passes):
                key = order_key(doc_id, copy) if shuffle else row
                entries.setdefault((split, 0 if shuffle else copy), []).append((key, line))
                sizes[split] += len(line) + 1
        for ledger in ledgers.values():
            ledger.rejects.close()
    except BaseException:
        for ledger in ledgers.values():
            ledger.rejects.abort()
        raise
    found = []
    for split in splits:
        runs = []
        for (of_split, pass_no), listed in sorted(entries.items()):
            if of_split == split:
                runs.append(str(work / f"{split}.p{pass_no}"))
                write_runs(runs[-1], listed)
        ledgers[split].rejects = None
        found.append(SplitScatter(split, tuple(runs), sizes[split], ledgers[split].to_dict(),
                                  str(work / f"rejects-{split}.jsonl.zst")))
    index = work / "index.jsonl.zst"
    write_records(index, sorted(rows, key=lambda row: row["id"]), level=level, validate=False)
    return ShardScatter(found, str(index), Runs(str(work / "credits"), credits.write_runs(work / "credits")))


def shard_count(split_bytes: int, shard_bytes: int) -> int:
    """How many shards a shuffled split of ``split_bytes`` is written as."""
    return max(1, math.ceil(split_bytes / shard_bytes))


def write_partition(runs: list[str], part: int, parts: int, out: Path, *, level: int = 3, threads: int = 1,
                    tokenizer=None) -> JsonDict:
    """Output shard ``part`` of ``parts``: the copies of every run whose keys fall in its range, in key
    order (ties by their bytes), or every copy of the runs in order when ``parts`` is 0 (source
    order); returns its record count, bytes and composition (nothing is written for none)."""
    found = [entry for run in runs for entry in read_part(run, *((part, parts) if parts else (0, 1)))]
    if parts:
        found.sort()
    composition = Composition(with_tokens=tokenizer is not None)
    if not found:
        return {"path": None, "records": 0, "bytes": 0, "composition": composition.to_dict()}
    with RecordWriter(out, level=level, threads=threads) as writer:
        for _, line in found:
            record = orjson.loads(line)
            writer.write(record)
            composition.add(record, len(tokenizer.encode(record["text"])) if tokenizer is not None else None)
    stats = writer.stats
    return {"path": str(out), "records": stats.records, "bytes": stats.bytes, "composition": composition.to_dict()}

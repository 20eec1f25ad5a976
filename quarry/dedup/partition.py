"""Near-duplicate clustering split into partitions, each a task of its own (quarry.stages.dedup).

1. Buckets, partition p of P: band by band, the keys of the live documents that fall in p's
   range of the 64-bit key space, read shard by shard from the memory-mapped index, and their
   star pairs (pairs.star_pairs). A bucket lies whole in one partition, so these are the pairs
   the one-process path finds. Each pair goes on to the verify partition a hash of it names:
   one file per bucket partition, sorted by destination.
2. Verify, partition q: the pairs sent to q by every bucket partition, each once (a pair found
   in several bands is verified once), verified where they meet, reduced to a forest
   (components.forest): at most one edge per document.
3. Merge: the forests, one file at a time, hooked into one label array over the documents that
   have a verified edge (never every edge, nor every document); each label is the smallest
   member of its cluster.

Pairs, edges and clusters do not depend on P, so the decisions and bytes do not either.
Memory per partition is estimated from what it held (``*_BYTES``); the ledger reports the peaks.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from quarry.dedup.components import forest, hook
from quarry.dedup.config import DedupConfig
from quarry.dedup.index import ShardIndex, save_scratch
from quarry.dedup.pairs import star_pairs, unique_pairs, verified
from quarry.dedup.shingles import sorted_unique
from quarry.records import JsonDict

BUCKET_BYTES = 48   # per document of one band's slice: key, document, sort order, sorted key, flags
PAIR_BYTES = 48     # per candidate pair: the pair, its destination and sort order, deduplication's copy
LABEL_BYTES = 24    # per document in the merge: document, label, hooking temporaries
MB = 1e6


def partition_count(live: int, config: DedupConfig) -> int:
    """``config.partitions``, or as many as keep one band's slice within ``partition_mb``."""
    return config.partitions or max(1, math.ceil(live * BUCKET_BYTES / (config.partition_mb * MB)))


def key_range(keys: np.ndarray, parts: int) -> np.ndarray:
    """The partition owning each uint64 key: its range of the key space (the top 32 bits)."""
    return ((keys >> np.uint64(32)) * np.uint64(parts)) >> np.uint64(32)


def pair_owner(pairs: np.ndarray, parts: int) -> np.ndarray:
    """The verify partition of each (a, b) pair: a mix of both numbers, so load spreads evenly."""
    mixed = pairs[:, 0].astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    mixed ^= pairs[:, 1].astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
    mixed ^= mixed >> np.uint64(29)
    mixed *= np.uint64(0xBF58476D1CE4E5B9)
    mixed ^= mixed >> np.uint64(32)
    return key_range(mixed, parts).astype(np.int64)


def band_slice(index: ShardIndex, live_file: Path, band: int, part: int, parts: int) -> tuple[np.ndarray, np.ndarray]:
    """(keys, documents ascending) of the live documents whose key in ``band`` is in ``part``."""
    keys, docs = [], []
    for first, files in zip(index.offsets.tolist(), index.files, strict=False):
        row = np.load(files["bands"], mmap_mode="r")[band]  # one shard's row, unmapped when it goes
        live = np.fromfile(live_file, dtype=np.bool_, count=len(row), offset=first)
        rows = np.flatnonzero(live & (key_range(row, parts) == part))
        keys.append(np.asarray(row[rows]))
        docs.append(rows + first)
    if not keys:
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
    return np.concatenate(keys), np.concatenate(docs)


def bucket_partition(index: ShardIndex, live_file: Path, bands: int, part: int, parts: int, out: Path) -> JsonDict:
    """Partition ``part``'s candidate pairs, sorted by destination into ``out``.pairs.npy (row
    ranges per destination in ``out``.offsets.npy)."""
    found, held = [], 0
    for band in range(bands):
        keys, docs = band_slice(index, live_file, band, part, parts)
        held = max(held, len(keys))
        found.append(star_pairs(keys, docs))
    found_total = sum(len(f) for f in found)
    pairs = unique_pairs(found)
    owner = pair_owner(pairs, parts)
    order = np.argsort(owner, kind="stable")  # pairs stay in (a, b) order within each destination
    offsets = np.zeros(parts + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=parts), out=offsets[1:])
    files = routed_files(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_scratch(files[0], pairs[order])
    save_scratch(files[1], offsets)
    return {"pairs": files[0], "offsets": files[1], "peak_mb": round((held * BUCKET_BYTES + found_total * PAIR_BYTES) / MB, 3)}


def routed_files(out: Path) -> tuple[Path, Path]:
    return Path(f"{out}.pairs.npy"), Path(f"{out}.offsets.npy")


def verify_partition(index: ShardIndex, sources: list[tuple[Path, Path]], part: int, config: DedupConfig,
                     out: Path) -> JsonDict:
    """The pairs every bucket partition sent to ``part``, verified; their forest into ``out``."""
    chunks = []
    for pairs_file, offsets_file in sources:
        offsets = np.load(offsets_file)
        chunks.append(np.array(np.load(pairs_file, mmap_mode="r")[offsets[part]:offsets[part + 1]]))
    pairs = unique_pairs(chunks)
    del chunks
    edges = verified(index, pairs, config)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_scratch(out, forest(edges))
    return {"forest": out, "candidate_pairs": int(len(pairs)), "verified_pairs": int(len(edges)),
            "peak_mb": round(len(pairs) * PAIR_BYTES / MB, 3)}


def merge_forests(files: list[Path]) -> tuple[np.ndarray, np.ndarray, float]:
    """Every document with a verified edge (ascending), the smallest member of its cluster, and
    the merge's estimated peak in MB."""
    docs = np.empty(0, dtype=np.int64)
    largest = 0
    for file in files:
        edges = np.load(file)
        largest = max(largest, len(edges))
        docs = sorted_unique(np.concatenate([docs, edges.ravel()]))
    labels = np.arange(len(docs), dtype=np.int64)
    for file in files:
        hook(labels, np.searchsorted(docs, np.load(file)))
    return docs, docs[labels], round((len(docs) * LABEL_BYTES + largest * PAIR_BYTES) / MB, 3)

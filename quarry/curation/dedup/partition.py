"""Near-duplicate clustering split into partitions, each a task of its own (quarry.stages.dedup).

1. Buckets, partition p of P: band by band, the keys of the live documents that fall in p's
   range of the 64-bit key space, read shard by shard from the memory-mapped index, and their
   star pairs (pairs.star_pairs). A bucket lies whole in one partition, so these are the pairs
   the one-process path finds. Each band's pairs go to disk at once, sorted by the verify
   partition a hash of the pair names: a partition holds one band's slice, never all its pairs.
2. Verify, partition q: the pairs sent to q by every bucket partition, each once (a pair found
   in several bands is verified once), verified where they meet, reduced to a forest
   (components.forest): at most one edge per document.
3. Merge: the forests, one file at a time, hooked into one label array over the documents that
   have a verified edge (never every edge, nor a label per document); each label names the
   smallest member of its cluster.

Pairs, edges and clusters do not depend on P, so the decisions and bytes do not either.
Memory per partition is estimated from what it held (``*_BYTES``); the ledger reports the peaks.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from quarry.curation.dedup.components import forest, hook
from quarry.curation.dedup.config import DedupConfig
from quarry.curation.dedup.index import ShardIndex, save_scratch
from quarry.curation.dedup.pairs import star_pairs, unique_pairs, verified
from quarry.curation.dedup.parts import RoutedBuckets, VerifiedForest
from quarry.engine.partitions import owner

BUCKET_BYTES = 48   # per document of one band's slice: key, document, sort order, sorted key, flags
PAIR_BYTES = 48     # per candidate pair: the pair, its destination and sort order, deduplication's copy
LABEL_BYTES = 24    # per document in the merge: document, label, hooking temporaries (+ 1 per document seen)
MB = 1e6


def pair_owner(pairs: np.ndarray, parts: int) -> np.ndarray:
    """The verify partition of each (a, b) pair: a mix of both numbers, so load spreads evenly."""
    mixed = pairs[:, 0].astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    mixed ^= pairs[:, 1].astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
    mixed ^= mixed >> np.uint64(29)
    mixed *= np.uint64(0xBF58476D1CE4E5B9)
    mixed ^= mixed >> np.uint64(32)
    return owner(mixed, parts).astype(np.int64)


def band_slice(index: ShardIndex, live_file: Path, band: int, part: int, parts: int) -> tuple[np.ndarray, np.ndarray]:
    """(keys, documents ascending) of the live documents whose key in ``band`` is in ``part``."""
    keys, docs = [], []
    for first, files in zip(index.offsets.tolist(), index.files, strict=False):
        row = np.load(files["bands"], mmap_mode="r")[band]  # one shard's row, unmapped when it goes
        live = np.fromfile(live_file, dtype=np.bool_, count=len(row), offset=first)
        rows = np.flatnonzero(live & (owner(row, parts) == part))
        keys.append(np.asarray(row[rows]))
        docs.append(rows + first)
    if not keys:
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
    return np.concatenate(keys), np.concatenate(docs)


def bucket_partition(index: ShardIndex, live_file: Path, bands: int, part: int, parts: int, out: Path) -> RoutedBuckets:
    """Partition ``part``'s candidate pairs, band by band, each band's sorted by destination, into
    ``out``.pairs.bin (int64 rows); ``out``.offsets.npy holds each (band, destination)'s rows."""
    pairs_file, offsets_file = routed_files(out)
    offsets = np.zeros((bands, parts + 1), dtype=np.int64)
    held = written = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = pairs_file.with_name(f".{pairs_file.name}.tmp")
    with open(partial, "wb") as fh:
        for band in range(bands):
            keys, docs = band_slice(index, live_file, band, part, parts)
            pairs = star_pairs(keys, docs)
            held = max(held, len(keys) * BUCKET_BYTES + len(pairs) * PAIR_BYTES)
            del keys, docs
            destination = pair_owner(pairs, parts)
            pairs[np.argsort(destination, kind="stable")].tofile(fh)  # a band's pairs go to disk, not on
            offsets[band] = written
            np.cumsum(np.bincount(destination, minlength=parts), out=offsets[band, 1:])
            offsets[band, 1:] += written
            written += len(pairs)
    os.replace(partial, pairs_file)
    save_scratch(offsets_file, offsets)
    return RoutedBuckets(pairs=pairs_file, offsets=offsets_file, peak_mb=round(held / MB, 3))


def routed_files(out: Path) -> tuple[Path, Path]:
    return Path(f"{out}.pairs.bin"), Path(f"{out}.offsets.npy")


def routed_pairs(pairs_file: Path, offsets: np.ndarray, band: int, part: int) -> np.ndarray:
    start, end = int(offsets[band, part]), int(offsets[band, part + 1])
    return np.fromfile(pairs_file, dtype=np.int64, count=2 * (end - start), offset=16 * start).reshape(-1, 2)


def verify_partition(index: ShardIndex, sources: list[tuple[Path, Path]], part: int, config: DedupConfig,
                     out: Path) -> VerifiedForest:
    """The pairs every bucket partition sent to ``part``, each once, verified; their forest into ``out``."""
    pairs, held = np.empty((0, 2), dtype=np.int64), 0
    for pairs_file, offsets_file in sources:  # distinct so far, merged one bucket partition at a time
        offsets = np.load(offsets_file)
        chunks = [routed_pairs(pairs_file, offsets, band, part) for band in range(len(offsets))]
        held = max(held, len(pairs) + sum(len(chunk) for chunk in chunks))
        pairs = unique_pairs([pairs, *chunks])
        del chunks
    edges = verified(index, pairs, config)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_scratch(out, forest(edges))
    return VerifiedForest(forest=out, candidate_pairs=int(len(pairs)), verified_pairs=int(len(edges)),
                          peak_mb=round(held * PAIR_BYTES / MB, 3))


def merge_forests(files: list[Path], total: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Every document with a verified edge (ascending), its cluster's name (the position of the
    cluster's smallest member among them), and the merge's estimated peak in MB. ``total``: the
    number of documents (one flag each marks those in a forest)."""
    seen = np.zeros(total, dtype=bool)
    largest = 0
    for file in files:
        edges = np.load(file)
        largest = max(largest, len(edges))
        seen[edges.ravel()] = True
    docs = np.flatnonzero(seen)
    del seen
    labels = np.arange(len(docs), dtype=np.int64)
    for file in files:
        hook(labels, np.searchsorted(docs, np.load(file)))
    return docs, labels, round((total + len(docs) * LABEL_BYTES + largest * PAIR_BYTES) / MB, 3)

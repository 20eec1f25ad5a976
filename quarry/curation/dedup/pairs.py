"""Candidate pairs from band-key buckets, and their verification.

In one band, documents with the same key share a bucket; each member pairs with the bucket's
first (smallest) document, a star rather than a chain, so a bucket of n costs n - 1 pairs.
A pair becomes an edge only if verified (DedupConfig.verify), which stops chains of weak links.
"""

from __future__ import annotations

import numpy as np

from quarry.curation.dedup.config import DedupConfig
from quarry.curation.dedup.index import ShardIndex
from quarry.curation.dedup.minhash import estimated_jaccard
from quarry.curation.dedup.shingles import sorted_unique

PAIR_BATCH = 1 << 18
ESTIMATE_SLACK = 0.2


def star_pairs(keys: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """(a, b) pairs, a < b, of the documents ``docs`` (ascending) whose ``keys`` are equal."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    same = np.zeros(len(order), dtype=bool)
    same[1:] = ordered[1:] == ordered[:-1]
    if not same.any():
        return np.empty((0, 2), dtype=np.int64)
    first = np.maximum.accumulate(np.where(same, 0, np.arange(len(order))))
    a, b = docs[order[first[same]]], docs[order[same]]
    return np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1).astype(np.int64, copy=False)


def unique_pairs(found: list[np.ndarray]) -> np.ndarray:
    """The distinct pairs, sorted: packed into one uint64 each where the numbers fit in 32 bits
    (np.unique's hash-then-sort path holds several times the input)."""
    pairs = np.concatenate(found) if found else np.empty((0, 2), dtype=np.int64)
    if len(pairs) == 0 or pairs.max() >= 1 << 32:
        return np.unique(pairs, axis=0) if len(pairs) else pairs
    packed = sorted_unique((pairs[:, 0].astype(np.uint64) << np.uint64(32)) | pairs[:, 1].astype(np.uint64))
    del pairs
    return np.stack([packed >> np.uint64(32), packed & np.uint64(0xFFFFFFFF)], axis=1).astype(np.int64)


def candidate_pairs(index: ShardIndex, live: np.ndarray, bands: int) -> np.ndarray:
    """Unique (a, b) pairs, a < b, of live documents sharing a bucket in some band (all in memory)."""
    docs = np.flatnonzero(live)
    return unique_pairs([star_pairs(index.concat("bands", band)[docs], docs) for band in range(bands)])


def verified(index: ShardIndex, pairs: np.ndarray, config: DedupConfig) -> np.ndarray:
    """The candidate pairs whose similarity reaches the threshold (see DedupConfig.verify)."""
    if config.verify == "none" or len(pairs) == 0:
        return pairs
    # exact mode first drops pairs whose estimate is far (~4.5 standard errors) below the threshold
    floor = config.verify_threshold if config.verify == "estimate" else config.threshold - ESTIMATE_SLACK
    keep = np.zeros(len(pairs), dtype=bool)
    for start in range(0, len(pairs), PAIR_BATCH):
        batch = pairs[start:start + PAIR_BATCH]
        similarity = estimated_jaccard(index.gather("sig", batch[:, 0]), index.gather("sig", batch[:, 1]))
        keep[start:start + PAIR_BATCH] = similarity >= floor
    if config.verify == "exact":
        for i in np.flatnonzero(keep).tolist():
            a, b = index.shingle_set(int(pairs[i, 0])), index.shingle_set(int(pairs[i, 1]))
            shared = len(np.intersect1d(a, b, assume_unique=True))
            keep[i] = shared >= config.threshold * (len(a) + len(b) - shared)
    return pairs[keep]

"""Batched MinHash signatures and LSH band keys, vectorised in numpy.

Each permutation is a multiply-add hash ``a * h + b`` over uint64 (wrap-around, ``a`` odd) of a
shingle hash ``h``; the signature entry is the top 32 bits of the minimum. Shingles of many
documents are concatenated into one (num_perm x shingles) block and reduced per document with
``np.minimum.reduceat``, so the per-document Python overhead is one slice, not num_perm loops.
Band sizes come from datasketch's optimiser for the chosen threshold unless given explicitly.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from quarry.curation.dedup.shingles import shingles

BLOCK = 4096  # shingles per reduction block: bounds the (num_perm x BLOCK) uint64 work array (4 MiB)


@functools.lru_cache(maxsize=64)
def choose_bands(threshold: float, num_perm: int, fp_weight: float = 0.5, fn_weight: float = 0.5) -> tuple[int, int]:
    """(bands, rows) minimising datasketch's weighted false positive / negative areas."""
    from datasketch.lsh import _optimal_param

    return _optimal_param(threshold, num_perm, fp_weight, fn_weight)


@dataclass(frozen=True)
class MinHasher:
    num_perm: int = 128
    ngram: int = 5
    seed: int = 1
    min_shingles: int = 1

    def __post_init__(self):
        rng = np.random.default_rng(self.seed)
        a = rng.integers(0, 2**63, self.num_perm, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        b = rng.integers(0, 2**64 - 1, self.num_perm, dtype=np.uint64, endpoint=True)
        object.__setattr__(self, "_a", a[:, None])
        object.__setattr__(self, "_b", b[:, None])

    def signature_of_shingles(self, hashes: np.ndarray) -> np.ndarray:
        """Signature (uint32, num_perm) of one set of shingle hashes, in bounded-memory slices."""
        mins = np.full(self.num_perm, np.iinfo(np.uint64).max, dtype=np.uint64)
        for start in range(0, len(hashes), BLOCK):
            block = self._a * hashes[None, start:start + BLOCK] + self._b
            np.minimum(mins, block.min(axis=1), out=mins)
        return (mins >> np.uint64(32)).astype(np.uint32)

    def signatures(self, texts: Iterable[str | bytes]) -> tuple[np.ndarray, np.ndarray]:
        """Signatures of many texts (see ``signatures_of_sets``)."""
        return self.signatures_of_sets(shingles(text, self.ngram) for text in texts)

    def signatures_of_sets(self, shingle_sets: Iterable[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Signatures of many shingle arrays: (uint32 array (n, num_perm), bool array: has one).

        A document with fewer than ``min_shingles`` shingles gets no signature (its row is zeros
        and its flag False): too short to say anything about near-duplication.
        """
        flags: list[bool] = []
        out: list[np.ndarray | None] = []
        pending: list[tuple[int, np.ndarray]] = []
        pending_size = 0

        def flush():
            nonlocal pending, pending_size
            if pending:
                for (index, _), sig in zip(pending, self._reduce([h for _, h in pending]), strict=True):
                    out[index] = sig
            pending, pending_size = [], 0

        for hashes in shingle_sets:
            ok = len(hashes) >= max(1, self.min_shingles)
            flags.append(ok)
            out.append(None)
            if not ok:
                continue
            if len(hashes) > BLOCK:  # a big document alone, so no block outgrows the cache
                out[-1] = self.signature_of_shingles(hashes)
                continue
            pending.append((len(out) - 1, hashes))
            pending_size += len(hashes)
            if pending_size >= BLOCK:
                flush()
        flush()
        zeros = np.zeros(self.num_perm, dtype=np.uint32)
        rows = [zeros if sig is None else sig for sig in out]
        sigs = np.vstack(rows) if rows else np.empty((0, self.num_perm), dtype=np.uint32)
        return sigs, np.array(flags, dtype=bool)

    def _reduce(self, batch: list[np.ndarray]) -> np.ndarray:
        lengths = np.fromiter((len(h) for h in batch), dtype=np.int64, count=len(batch))
        starts = np.zeros(len(batch), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        flat = np.concatenate(batch)
        block = np.multiply(self._a, flat[None, :])
        np.add(block, self._b, out=block)
        mins = np.minimum.reduceat(block, starts, axis=1)
        return (mins >> np.uint64(32)).astype(np.uint32).T


def estimated_jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> np.ndarray:
    """Share of equal signature entries (row-wise for 2-D inputs)."""
    return (np.asarray(sig_a) == np.asarray(sig_b)).mean(axis=-1)


def band_keys(signatures: np.ndarray, bands: int, rows: int, seed: int = 1) -> np.ndarray:
    """One uint64 bucket key per (document, band): a hash of the band's rows and its index.

    Keys of different bands differ even for equal rows, so all bands can share one key space.
    """
    n = signatures.shape[0]
    if bands * rows > signatures.shape[1]:
        raise ValueError(f"{bands} bands x {rows} rows need {bands * rows} permutations, "
                         f"signatures have {signatures.shape[1]}")
    rng = np.random.default_rng(seed + 0xBA4D)
    mult = rng.integers(0, 2**63, (bands, rows), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    salt = rng.integers(0, 2**63, bands, dtype=np.uint64)
    cube = signatures[:, :bands * rows].reshape(n, bands, rows).astype(np.uint64)
    keys = (cube * mult[None]).sum(axis=2, dtype=np.uint64) + salt[None]
    # a final xor-shift-multiply so keys spread over all 64 bits
    keys ^= keys >> np.uint64(31)
    keys *= np.uint64(0x9E3779B97F4A7C15)
    keys ^= keys >> np.uint64(29)
    return keys

"""Words, word n-gram shingles and normalised content hashes.

Text is lower-cased and split into words by one compiled byte regex (ASCII word characters plus
any non-ASCII byte, so UTF-8 letters stay inside words). Each word is hashed once with xxh3; an
n-gram's hash is a fixed linear combination of its words' hashes (odd multipliers, wrap-around
uint64 arithmetic), computed for all n-grams of a document at once in numpy. That is what makes
shingling cheap compared with joining and hashing every n-gram string.
"""

from __future__ import annotations

import re

import numpy as np
import xxhash

WORD = re.compile(rb"[0-9A-Za-z_\x80-\xff]+")
_xxh3 = xxhash.xxh3_64_intdigest
# Odd 64-bit multipliers, one per n-gram position (fixed: shingle hashes must never change).
_POSITION_MULTIPLIERS = np.random.default_rng(0x5EED_5A1E).integers(0, 2**63, 64, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def words(text: str) -> list[bytes]:
    """Lower-cased words of a text: punctuation and whitespace never matter."""
    return WORD.findall(text.encode("utf-8", "surrogatepass").lower())


def word_hashes(text: str) -> np.ndarray:
    tokens = words(text)
    return np.fromiter(map(_xxh3, tokens), dtype=np.uint64, count=len(tokens))


def ngram_hashes(hashes: np.ndarray, n: int) -> np.ndarray:
    """Hash of every window of ``n`` consecutive word hashes (empty if fewer than n words)."""
    if n > len(_POSITION_MULTIPLIERS):
        raise ValueError(f"n-gram size {n} is larger than {len(_POSITION_MULTIPLIERS)}")
    count = len(hashes) - n + 1
    if count <= 0:
        return np.empty(0, dtype=np.uint64)
    out = hashes[:count] * _POSITION_MULTIPLIERS[0]
    for k in range(1, n):
        out += hashes[k:k + count] * _POSITION_MULTIPLIERS[k]
    return out


def shingles(text: str, n: int = 5) -> np.ndarray:
    """Hashed word n-gram shingles of a text, in document order (duplicates kept)."""
    return ngram_hashes(word_hashes(text), n)


def normalized_content_hash(text: str) -> tuple[int, int]:
    """128-bit hash of the text with every whitespace run collapsed to one space.

    Copies that differ only in indentation, line endings or trailing spaces hash alike.
    """
    digest = xxhash.xxh3_128_intdigest(" ".join(text.split()).encode("utf-8", "surrogatepass"))
    return digest >> 64, digest & 0xFFFF_FFFF_FFFF_FFFF

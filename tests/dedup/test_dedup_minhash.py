"""MinHash signatures, band keys and parameter choice against datasketch and exact Jaccard."""

from __future__ import annotations

import numpy as np
import pytest
from datasketch import MinHash
from datasketch.lsh import _optimal_param

from dedup_corpus import source
from quarry.curation.dedup import MinHasher, band_keys, choose_bands, estimated_jaccard, shingles, words
from quarry.curation.dedup.config import DedupConfig
from quarry.curation.dedup.unionfind import UnionFind
from quarry.errors import ConfigError


def _pairs_with_known_jaccard(rng: np.random.Generator, count: int = 40):
    """Sets of random 64-bit shingle hashes whose exact Jaccard spans 0.1 .. 1."""
    for _ in range(count):
        shared = rng.integers(0, 2**63, int(rng.integers(50, 400)), dtype=np.uint64)
        only_a = rng.integers(0, 2**63, int(rng.integers(0, 300)), dtype=np.uint64)
        only_b = rng.integers(0, 2**63, int(rng.integers(0, 300)), dtype=np.uint64)
        a, b = np.concatenate([shared, only_a]), np.concatenate([shared, only_b])
        exact = len(shared) / (len(shared) + len(only_a) + len(only_b))
        yield a, b, exact


def test_signatures_estimate_jaccard_as_well_as_datasketch():
    hasher = MinHasher(num_perm=128, seed=3)
    ours, theirs = [], []
    for a, b, exact in _pairs_with_known_jaccard(np.random.default_rng(7)):
        ours.append(abs(estimated_jaccard(hasher.signature_of_shingles(a), hasher.signature_of_shingles(b)) - exact))
        ma, mb = (MinHash(num_perm=128, seed=3, hashfunc=lambda v: int(v) & 0xFFFFFFFF) for _ in range(2))
        ma.update_batch(a.tolist())
        mb.update_batch(b.tolist())
        theirs.append(abs(ma.jaccard(mb) - exact))
    # standard error of a 128-permutation estimate is at most 0.044
    assert np.mean(ours) < 0.045
    assert np.mean(ours) < np.mean(theirs) * 1.5 + 0.01
    assert max(ours) < 0.2


def test_batched_signatures_equal_one_at_a_time():
    hasher = MinHasher(num_perm=64, seed=1)
    texts = [source("json/decoder.py"), "one two three four five six", source("difflib.py"), source("bisect.py")]
    assert len(shingles(texts[2])) > 4096  # bigger than one reduction block
    sigs, ok = hasher.signatures(texts)
    assert ok.tolist() == [True, True, True, True]
    for text, sig in zip(texts, sigs, strict=True):
        assert np.array_equal(sig, hasher.signature_of_shingles(shingles(text, 5)))
    hasher = MinHasher(num_perm=64, seed=1, min_shingles=6)
    sigs, ok = hasher.signatures(texts)
    assert ok.tolist() == [True, False, True, True]
    assert not sigs[1].any()
    # a slice-wise minimum equals the minimum over the whole set
    whole = shingles(texts[2])
    direct = ((hasher._a * whole[None, :] + hasher._b).min(axis=1) >> np.uint64(32)).astype(np.uint32)
    assert np.array_equal(hasher.signature_of_shingles(whole), direct)


def test_words_ignore_case_punctuation_and_whitespace():
    assert words("def Foo(x):\n    return x+1  # café") == [b"def", b"foo", b"x", b"return", b"x", b"1",
                                                            "café".encode()]
    assert np.array_equal(shingles("a b c d e f", 5), shingles("A  b\tc-d e;f", 5))
    assert len(shingles("a b c d", 5)) == 0
    # order matters: a shuffled n-gram is a different shingle
    assert not np.array_equal(shingles("a b c d e", 5), shingles("e d c b a", 5))


def test_text_similarity_estimates_follow_exact_jaccard():
    hasher = MinHasher(num_perm=128, seed=1)
    base = source("difflib.py")
    tokens = base.split(" ")
    wb = words(base)
    sa = {tuple(wb[i:i + 5]) for i in range(len(wb) - 4)}
    for every in (7, 15, 40):
        edited = " ".join(t + "x" if i % every == 0 else t for i, t in enumerate(tokens))
        we = words(edited)
        sb = {tuple(we[i:i + 5]) for i in range(len(we) - 4)}
        exact = len(sa & sb) / len(sa | sb)
        est = estimated_jaccard(hasher.signature_of_shingles(shingles(base)),
                                hasher.signature_of_shingles(shingles(edited)))
        assert abs(est - exact) < 0.12, (every, est, exact)


def test_bands_come_from_datasketch_optimiser_or_params():
    assert choose_bands(0.7, 128) == _optimal_param(0.7, 128, 0.5, 0.5)
    config = DedupConfig.from_params({"dedup": {"threshold": 0.8, "verify": False}})
    assert config.band_shape() == _optimal_param(0.8, 128, 0.5, 0.5)
    assert DedupConfig.from_params({"dedup": {"bands": 16, "rows": 8}}).band_shape() == (16, 8)
    with pytest.raises(ConfigError, match="exceeds"):
        DedupConfig.from_params({"dedup": {"bands": 20, "rows": 8}})
    with pytest.raises(ConfigError, match="unknown key"):
        DedupConfig.from_params({"dedup": {"treshold": 0.7}})


def test_band_keys_collide_only_on_equal_bands():
    rng = np.random.default_rng(0)
    sigs = rng.integers(0, 2**32, (3, 12), dtype=np.uint32)
    sigs[1, :4] = sigs[0, :4]          # same first band
    sigs[2, 4:8] = sigs[0, :4]         # same values but in the second band
    keys = band_keys(sigs, 3, 4)
    assert keys.shape == (3, 3)
    assert keys[0, 0] == keys[1, 0]
    assert keys[0, 1] != keys[1, 1] and keys[0, 2] != keys[1, 2]
    assert keys[2, 1] != keys[0, 0]     # band index is part of the key


def test_union_find_components():
    uf = UnionFind(6)
    uf.union_pairs(np.array([[0, 1], [1, 2], [4, 5]]))
    roots = uf.roots()
    assert roots[0] == roots[1] == roots[2]
    assert roots[4] == roots[5] != roots[0]
    assert roots[3] == 3

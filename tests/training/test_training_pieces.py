"""The piece cache gives exactly the tokenizer's own ids: on real source files (ASCII and not),
on generated texts built from the characters where cutting could go wrong, cold and warm, and
only for tokenizers whose encoding is piece by piece."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quarry.tokenizer import Tokenizer, train_tokenizer
from quarry.training.pieces import LINE_CUT, PIECE, PieceCache, cacheable
from quarry.training.tokens import ShardEncoder

DTYPE = np.dtype("<u2")


def _sources(limit: int) -> list[str]:
    """Standard library sources, the ones with non-ASCII characters included."""
    root = Path(sysconfig.get_paths()["stdlib"])
    texts, wide = [], 0
    for path in sorted(root.glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        wide += not text.isascii()
        texts.append(text)
        if len(texts) >= limit and wide >= 3:
            break
    return texts


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return _sources(120)


@pytest.fixture(scope="module")
def tokenizer(texts) -> Tokenizer:
    wide = "naïve café ünïcödé 東京 ２０２４ ٣ «quotes» — dash"
    return train_tokenizer(texts[:40] + [wide], vocab_size=600)


def _reference(tokenizer: Tokenizer, texts: list[str], dtype: np.dtype = DTYPE) -> list[bytes]:
    return [np.asarray(tokenizer.encode(t), dtype).tobytes() for t in texts]


@pytest.mark.parametrize("dtype", [DTYPE, np.dtype("<u4")])
def test_real_sources_encode_to_the_tokenizers_ids_cold_and_warm(tokenizer, texts, dtype):
    assert any(not t.isascii() for t in texts) and any(t.isascii() for t in texts)
    cache = PieceCache(tokenizer.backend, dtype, limit=500)  # small: the cache is cleared along the way
    expected = _reference(tokenizer, texts, dtype)
    for _ in range(2):
        got = [body for i in range(0, len(texts), 16) for body in cache.encode(texts[i:i + 16])]
        assert got == expected
    assert cache.pieces  # the second pass was answered from the cache


TRICKY = st.sampled_from([
    "a", "Z", "s", "t", "re", "ll", "d", "m", "ve", "'", "''", "0", "42", " ", "  ", "\t", "\n", "\r\n", "\x0b",
    "\x0c", "\x1c", "\x1f", "\x00", "\x7f", ".", "(", ")", "_", "-", "#", "=", "\"", "\\", "<|end_of_text|>",
    "<|begin_of_text|>", "é", "ß", "東", "٣", "２", "\u00a0", "\u2028", "\x85", "\u3000", "😀", "\u0301", "ǅ",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(TRICKY, max_size=40).map("".join), min_size=1, max_size=6))
def test_generated_texts_encode_to_the_tokenizers_ids(tokenizer, batch):
    cache = PieceCache(tokenizer.backend, DTYPE)
    assert cache.encode(batch) == _reference(tokenizer, batch)
    assert cache.encode(batch[::-1]) == _reference(tokenizer, batch[::-1])


def _tokenizer_pieces(text: str) -> list[str]:
    from tokenizers.pre_tokenizers import ByteLevel

    return [text[a:b] for _, (a, b) in ByteLevel(add_prefix_space=False).pre_tokenize_str(text)]


@settings(max_examples=500, deadline=None)
@given(st.lists(TRICKY, max_size=60).map("".join))
def test_text_is_cut_where_the_tokenizer_cuts_it(text):
    """Equal ids could hide a different cut (a pair the vocabulary never merges): compare the cuts."""
    pieces = _tokenizer_pieces(text)
    if text.isascii():
        assert PIECE.findall(text) == pieces
    boundaries = set(np.cumsum([len(p) for p in pieces]).tolist())
    cuts = np.cumsum([len(s) for s in LINE_CUT.split(text)])[:-1].tolist()
    assert set(cuts) <= boundaries


def test_shard_encoder_adds_bos_and_eos_and_counts(tokenizer, texts):
    encoder = ShardEncoder(tokenizer)
    assert encoder.pieces is not None
    tokens, counts = encoder.encode(texts[:5])
    expected = [tokenizer.encode(t, bos=True, eos=True) for t in texts[:5]]
    assert counts == [len(e) for e in expected]
    assert np.frombuffer(tokens, DTYPE).tolist() == [i for e in expected for i in e]


def _variant(tokenizer: Tokenizer, change) -> Tokenizer:
    from tokenizers import Tokenizer as Backend

    config = json.loads(tokenizer.to_json())
    change(config)
    return Tokenizer(Backend.from_str(json.dumps(config)), bos=tokenizer.bos_token, eos=tokenizer.eos_token)


def test_only_piece_by_piece_tokenizers_take_the_cache(tokenizer):
    assert cacheable(tokenizer.backend)

    def normalizer(c):
        c["normalizer"] = {"type": "NFKC"}

    def prefix_space(c):
        c["pre_tokenizer"]["add_prefix_space"] = True

    def plain_added_token(c):
        c["added_tokens"].append({"id": len(c["model"]["vocab"]) + 5, "content": "def", "single_word": False,
                                  "lstrip": False, "rstrip": False, "normalized": False, "special": False})

    def split_regex(c):  # Llama 3's shape: a Split then a ByteLevel without its own regex
        c["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": r"\s+|\w+|[^\s\w]+"}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}

    for change in (normalizer, prefix_space, plain_added_token, split_regex):
        other = _variant(tokenizer, change)
        assert not cacheable(other.backend), change.__name__
        assert ShardEncoder(other).pieces is None
        tokens, counts = ShardEncoder(other).encode(["def f(x):\n    return x  # é"])
        assert np.frombuffer(tokens, DTYPE).tolist() == other.encode("def f(x):\n    return x  # é", bos=True,
                                                                     eos=True)

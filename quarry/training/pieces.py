"""Byte-level BPE through a cache of pieces: the ids the tokenizer gives, with fewer calls to it.

A byte-level BPE tokenizer (GPT-2's pre-tokenizer regex, no normalizer) cuts a text into pieces
and encodes every piece on its own, so a text's ids are its pieces' ids back to back. Code and
prose repeat their pieces (identifiers, keywords, indentation), so a per-process map from piece
to ids answers most of them; only pieces not seen yet go to the tokenizer, in one call per batch.

The cutting is redone in Python only where it provably agrees with the tokenizer's: on ASCII,
where GPT-2's classes (letters, numbers, whitespace) are plain ASCII ranges. A text with other
characters is first cut before each line break standing between two printable ASCII characters
(always a piece boundary: the line break is a piece of its own there); its ASCII segments take
the cache and the others go to the tokenizer whole. tests/training/test_training_pieces.py
checks the ids against the tokenizer's own on real and generated texts.
"""

from __future__ import annotations

import json
import re
from itertools import chain, filterfalse
from typing import Any

import numpy as np

_WS = r"\t\n\x0b\x0c\r "  # Unicode White_Space within ASCII (\x1c-\x1f are not, unlike Python's \s)
PIECE = re.compile(rf"'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^{_WS}A-Za-z0-9]+|[{_WS}]+(?![^{_WS}])|[{_WS}]+")
LINE_CUT = re.compile(r"(?<=[!-~])(?=\n[!-~])")
LONG_PIECE = 256  # longer pieces (rare runs of one character) are encoded but not kept


def cacheable(backend: Any) -> bool:
    """Whether ``backend`` (a tokenizers.Tokenizer) encodes exactly piece by piece as above."""
    config = json.loads(backend.to_str())
    pre = config.get("pre_tokenizer") or {}
    model = config.get("model") or {}
    added = backend.get_added_tokens_decoder().values()
    return (config.get("normalizer") is None and config.get("truncation") is None
            and config.get("padding") is None
            and pre.get("type") == "ByteLevel" and pre.get("use_regex", True) and not pre.get("add_prefix_space")
            and not model.get("dropout")
            # added tokens are matched across pieces; special ones are not matched when encoded as text
            and bool(backend.encode_special_tokens) and all(token.special for token in added))


class PieceCache:
    """Ids of texts (without BOS/EOS) as little-endian ``dtype`` bytes, one bytes object per text."""

    def __init__(self, backend: Any, dtype: np.dtype, limit: int = 1 << 20):
        self.backend, self.dtype, self.limit = backend, np.dtype(dtype).newbyteorder("<"), limit
        self.pieces: dict[str, bytes] = {}

    def encode(self, texts: list[str]) -> list[bytes]:
        cache = self.pieces
        if len(cache) > self.limit:
            cache.clear()  # bounds memory; the ids do not depend on what is cached
        known = cache.__contains__
        missing: set[str] = set()
        whole: list[str] = []        # segments with non-ASCII characters, for the tokenizer as they are
        plans: list[Any] = []        # per text: a list of its pieces, or a tuple of segments (pieces or whole)
        for text in texts:
            if text.isascii():
                pieces = PIECE.findall(text)
                missing.update(filterfalse(known, pieces))
                plans.append(pieces)
                continue
            parts: list[Any] = []
            for segment in LINE_CUT.split(text):
                if segment.isascii():
                    pieces = PIECE.findall(segment)
                    missing.update(filterfalse(known, pieces))
                    parts.append(pieces)
                else:
                    parts.append(len(whole))
                    whole.append(segment)
            plans.append(tuple(parts))
        new = list(missing)  # any order: a piece's ids do not depend on the others
        encoded = self._encode(new + whole)
        cache.update(zip(new, encoded))
        get = cache.__getitem__
        out = []
        for plan in plans:
            if isinstance(plan, list):
                out.append(b"".join(map(get, plan)))
            else:
                out.append(b"".join(encoded[len(new) + part] if isinstance(part, int) else b"".join(map(get, part))
                                    for part in plan))
        for piece in new:
            if len(piece) > LONG_PIECE:
                del cache[piece]
        return out

    def _encode(self, texts: list[str]) -> list[bytes]:
        if not texts:
            return []
        ids = [e.ids for e in self.backend.encode_batch_fast(texts, add_special_tokens=False)]
        ends = np.cumsum([len(i) for i in ids]) * self.dtype.itemsize
        count = int(ends[-1]) // self.dtype.itemsize
        buffer = np.fromiter(chain.from_iterable(ids), dtype=self.dtype, count=count).tobytes()
        starts = np.concatenate(([0], ends[:-1]))
        return [buffer[a:b] for a, b in zip(starts.tolist(), ends.tolist())]

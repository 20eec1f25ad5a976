"""A second reader of a nameless record's language, for the languages Magika's model lacks: a
multinomial naive Bayes over the record's tokens (identifiers and keywords, runs of punctuation,
the first token of each line, neighbouring pairs), trained offline by scripts/train_language_model.py on public code
(the source is named in the README). Only the compact counts ship; no training text is read here.
"""

from __future__ import annotations

import functools
import gzip
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from importlib import resources

import numpy as np

MODEL = "language_tokens.json.gz"
MAX_TOKENS = 3000              # the first tokens of a record say as much as the whole
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[^\sA-Za-z0-9_]{1,3}")
LINE_START = re.compile(r"^[ \t]*(\S{1,12})", re.M)


def tokens(text: str) -> list[str]:
    """Identifiers, numbers (as one token) and punctuation runs, then `^` and each line's first word,
    then pairs of neighbouring tokens from the first thousand."""
    words = ["0" if token.isdigit() else token for token in _first(TOKEN, text, MAX_TOKENS)]
    found = words + ["^" + token for token in _first(LINE_START, text, MAX_TOKENS // 4)]
    found += [f"{a} {b}" for a, b in zip(words, words[1:MAX_TOKENS // 3])]   # pairs: `end if`, `:= begin`
    return found


def _first(pattern: re.Pattern, text: str, limit: int) -> list[str]:
    """``pattern.findall(text)[:limit]`` without reading far past the last one wanted: found in a
    prefix, every match but the prefix's last is the whole text's, so more than ``limit`` are enough."""
    found = pattern.findall(text[:limit * 16])
    return found[:limit] if len(found) > limit or len(text) <= limit * 16 else pattern.findall(text)[:limit]


@dataclass(frozen=True)
class Guess:
    language: str
    margin: float    # mean log-likelihood per token, best language over the runner-up


@dataclass
class TokenModel:
    """Per seen token a run of (language, log P(token | language) - log P(unseen | language)) in
    flat arrays: a record's score is a gather and an ordered sum, not a loop per token and language."""
    languages: list[str]
    log_unseen: np.ndarray     # per language: log P(a token it never saw)
    rows: dict[str, int]       # token -> its run: entries starts[row]:starts[row + 1]
    starts: np.ndarray
    language_of: np.ndarray    # per entry: the language's index
    lead: np.ndarray           # per entry: how much more likely the language makes the token than unseen

    def guess(self, text: str) -> Guess | None:
        counts = {token: count for token, count in Counter(tokens(text)).items() if token in self.rows}
        total = sum(counts.values())
        if total == 0:
            return None
        rows = np.fromiter((self.rows[token] for token in counts), dtype=np.int64, count=len(counts))
        times = np.fromiter(counts.values(), dtype=np.int64, count=len(counts))
        firsts, lengths = self.starts[rows], self.starts[rows + 1] - self.starts[rows]
        entries = np.repeat(firsts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
        scores = self.log_unseen * total
        # unbuffered, in entry order: the same float additions in the same order as a loop over
        # tokens and their languages, so the answers are the bits they were
        np.add.at(scores, self.language_of[entries], self.lead[entries] * np.repeat(times, lengths))
        best, second = sorted(range(len(scores)), key=lambda i: (-scores[i], self.languages[i]))[:2]
        return Guess(self.languages[best], float(scores[best] - scores[second]) / total)


def build(languages: list[str], counts: list[dict[str, int]], vocabulary: int) -> TokenModel:
    """Laplace-smoothed token probabilities per language from its token counts."""
    seen: dict[str, list[tuple[int, float]]] = {}
    log_unseen = []
    for index, table in enumerate(counts):
        denominator = sum(table.values()) + vocabulary
        log_unseen.append(-math.log(denominator))
        for token, count in sorted(table.items()):
            seen.setdefault(token, []).append((index, math.log(count + 1) - math.log(denominator)))
    entries = [(index, log_p - log_unseen[index]) for runs in seen.values() for index, log_p in runs]
    return TokenModel(languages, np.array(log_unseen, dtype=np.float64), {token: row for row, token in enumerate(seen)},
                      np.cumsum([0] + [len(runs) for runs in seen.values()], dtype=np.int64),
                      np.array([index for index, _ in entries], dtype=np.int64),
                      np.array([lead for _, lead in entries], dtype=np.float64))


@functools.cache
def model() -> TokenModel:
    raw = json.loads(gzip.decompress(resources.files(__package__).joinpath(MODEL).read_bytes()))
    return build(raw["languages"], raw["counts"], raw["vocabulary"])

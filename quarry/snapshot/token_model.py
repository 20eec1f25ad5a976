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

MODEL = "language_tokens.json.gz"
MAX_TOKENS = 3000              # the first tokens of a record say as much as the whole
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[^\sA-Za-z0-9_]{1,3}")
LINE_START = re.compile(r"^[ \t]*(\S{1,12})", re.M)


def tokens(text: str) -> list[str]:
    """Identifiers, numbers (as one token) and punctuation runs, then `^` and each line's first word,
    then pairs of neighbouring tokens from the first thousand."""
    words = ["0" if token.isdigit() else token for token in TOKEN.findall(text)[:MAX_TOKENS]]
    found = words + ["^" + token for token in LINE_START.findall(text)[:MAX_TOKENS // 4]]
    found += [f"{a} {b}" for a, b in zip(words, words[1:MAX_TOKENS // 3])]   # pairs: `end if`, `:= begin`
    return found


@dataclass(frozen=True)
class Guess:
    language: str
    margin: float    # mean log-likelihood per token, best language over the runner-up


@dataclass
class TokenModel:
    languages: list[str]
    log_unseen: list[float]                        # per language: log P(a token it never saw)
    log_seen: dict[str, list[tuple[int, float]]]   # token -> (language index, log P(token | language))

    def guess(self, text: str) -> Guess | None:
        counts = Counter(token for token in tokens(text) if token in self.log_seen)
        total = sum(counts.values())
        if total == 0:
            return None
        scores = [unseen * total for unseen in self.log_unseen]
        for token, count in counts.items():
            for index, log_p in self.log_seen[token]:
                scores[index] += count * (log_p - self.log_unseen[index])
        best, second = sorted(range(len(scores)), key=lambda i: (-scores[i], self.languages[i]))[:2]
        return Guess(self.languages[best], (scores[best] - scores[second]) / total)


def build(languages: list[str], counts: list[dict[str, int]], vocabulary: int) -> TokenModel:
    """Laplace-smoothed token probabilities per language from its token counts."""
    log_seen: dict[str, list[tuple[int, float]]] = {}
    log_unseen = []
    for index, table in enumerate(counts):
        denominator = sum(table.values()) + vocabulary
        log_unseen.append(-math.log(denominator))
        for token, count in sorted(table.items()):
            log_seen.setdefault(token, []).append((index, math.log(count + 1) - math.log(denominator)))
    return TokenModel(languages, log_unseen, log_seen)


@functools.cache
def model() -> TokenModel:
    raw = json.loads(gzip.decompress(resources.files(__package__).joinpath(MODEL).read_bytes()))
    return build(raw["languages"], raw["counts"], raw["vocabulary"])

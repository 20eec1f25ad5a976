"""What a detector reports: a span, its placeholder type, the detector's name and a confidence.

A Finding holds offsets, never the value, so it can be logged, counted and hashed without
leaking what it points at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

EMAIL, KEY, PASSWORD, IP_ADDRESS, PHONE, CARD = "EMAIL", "KEY", "PASSWORD", "IP_ADDRESS", "PHONE", "CARD"
TYPES = (EMAIL, KEY, PASSWORD, IP_ADDRESS, PHONE, CARD)


@dataclass(frozen=True, slots=True)
class Finding:
    start: int  # offsets in characters (code points) of the str, end exclusive
    end: int
    type: str  # one of TYPES: what the span is replaced by
    kind: str  # the detector that found it, e.g. "github_token"
    confidence: float


def word_before(text: str, start: int) -> bool:
    """Is the character before ``start`` part of a word (so a token would not start there)?"""
    return start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")


def line_prefix(text: str, start: int, limit: int = 4096) -> str:
    """The line before ``start``, at most ``limit`` characters of it (a minified file is one line)."""
    return text[max(text.rfind("\n", max(0, start - limit), start) + 1, start - limit):start]


@lru_cache(maxsize=1)  # the detectors that look for words lower the same text in turn
def lowered(text: str) -> str:
    """text.lower() with the same offsets (a few non-ASCII letters lower to two characters)."""
    lower = text.lower()
    if len(lower) == len(text):
        return lower
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


@lru_cache(maxsize=64)  # roots several detectors look for ('token', 'pass') are found once per text
def occurrences(lower: str, word: str) -> tuple[int, ...]:
    """Where ``word`` occurs in ``lower`` (each occurrence after the previous one's end), with
    str.find: far faster than a case-insensitive alternation, which stops at every letter."""
    found = []
    at = lower.find(word)
    while at >= 0:
        found.append(at)
        at = lower.find(word, at + len(word))
    return tuple(found)


# Characters of source code, most common first (counted on Python, JavaScript and docs sources);
# those not listed are rarer still.
_COMMON_CHARS = " etsarionl\nfdpc_mu.gh\",)(:=by-AxwvkT`INE#[]01SPFCR2DL>z'OM/B*Gj3U{}q|8\\65H4+WVY9KX7@<!Q;J%Z?~$&^"


def _rarity(c: str) -> int:
    at = _COMMON_CHARS.find(c)
    return len(_COMMON_CHARS) if at < 0 else at


def literal_finder(words: Iterable[str]) -> Callable[[str], set[str]]:
    """A function telling which of ``words`` occur in a text, in one regex scan of it. Each word is
    looked for from its rarest character, then the rest of it ('AKIA' as 'K', 'IA', and 'AKIA'
    behind): the engine skips to the few positions holding one of those characters instead of
    stopping at every common letter, and only an occurrence costs Python work."""
    anchored: dict[str, list[tuple[str, int]]] = {}  # anchor character -> (word, its offset in the word)
    # Words made of common characters only choose first; a word holding an anchor already chosen
    # takes it (one more branch there is cheaper than one more character to stop at).
    for word in sorted(set(words), key=lambda w: (max(map(_rarity, w)), w)):
        shared = [i for i, c in enumerate(word) if c in anchored]
        offset = max(shared or range(len(word)), key=lambda i: _rarity(word[i]))
        anchored.setdefault(word[offset], []).append((word, offset))

    def after(entries: list[tuple[str, int]]) -> str:
        """What follows an anchor: the rest of a word, then the whole word behind. Words that end
        at their anchor share one look-behind per length, whose branches the engine rejects by
        their first character (one look-behind per word costs more than the scan)."""
        branches = [re.escape(w[i + 1:]) + (f"(?<={re.escape(w)})" if i else "")
                    for w, i in entries if w[i + 1:] or not i]
        ending: dict[int, list[str]] = {}
        for w, i in entries:
            if i and not w[i + 1:]:
                ending.setdefault(len(w), []).append(re.escape(w))
        branches += [f"(?<={'|'.join(same_length)})" for same_length in ending.values()]
        return "(?:" + "|".join(branches) + ")"

    # The most common anchor's branch first: the engine tries the branches in order.
    pattern = re.compile("|".join(re.escape(c) + after(entries)
                                  for c, entries in sorted(anchored.items(), key=lambda a: _rarity(a[0]))))

    def present(text: str) -> set[str]:
        found = set()
        m = pattern.search(text)
        while m:  # from the next character on: one occurrence must not hide another
            at = m.start()
            found.update(w for w, i in anchored[text[at]] if at >= i and text.startswith(w, at - i))
            m = pattern.search(text, at + 1)
        return found

    return present

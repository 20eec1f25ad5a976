"""What a detector reports: a span, its placeholder type, the detector's name and a confidence.

A Finding holds offsets, never the value, so it can be logged, counted and hashed without
leaking what it points at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

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


def literal_finder(words: Iterable[str]) -> Callable[[str], set[str]]:
    """A function telling which of ``words`` occur in a text, in one regex pass over it: the words
    form a trie, so each position costs a character test or two, not one substring search per word."""
    trie: dict = {}
    for word in words:
        node = trie
        for c in word:
            node = node.setdefault(c, {})
        node[""] = {}

    def build(node: dict) -> str:
        branches = [re.escape(c) + build(child) for c, child in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 and "" not in node else "(?:" + "|".join(branches) + ")"
        return body + ("?" if "" in node else "")

    pattern = re.compile(build(trie))
    return lambda text: set(pattern.findall(text))

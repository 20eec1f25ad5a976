"""What a detector reports: a span, its placeholder type, the detector's name and a confidence.

A Finding holds offsets, never the value, so it can be logged, counted and hashed without
leaking what it points at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

EMAIL, KEY, PASSWORD, IP_ADDRESS, PHONE, CARD = "EMAIL", "KEY", "PASSWORD", "IP_ADDRESS", "PHONE", "CARD"
TYPES = (EMAIL, KEY, PASSWORD, IP_ADDRESS, PHONE, CARD)
# The words a credential-like name holds (db_password, apiKey, AUTH_TOKEN): where the assignment
# finders anchor (quarry.curation.pii.assignments, quarry.curation.pii.pairs); "cred" and "auth" are
# found once for the unkeyed detector too (occurrences)
CREDENTIAL_ROOTS = ("pass", "pw", "psk", "secret", "token", "cred", "key", "auth")
# pw and a Wi-Fi pre-shared key's psk (wpa_supplicant) name a password only as a name's last part,
# after a separator or a camel hump: db_pw, dbPw, wpa_psk; not PW-002 (a country code),
# TLS_PSK_WITH_AES (a cipher suite), kRSAPSK, upward
SHORT_PASSWORD_NAME = re.compile(r"(?:(?<![A-Za-z])(?i:pw|psk)|(?<=[a-z])(?:Pw|PW|Psk|PSK))(?![\w.-])")
# A name naming a password (judged as one: any plain value may be), not another secret
PASSWORD_WORD = re.compile(r"(?i:pass|pwd)|" + SHORT_PASSWORD_NAME.pattern)


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


def word_after(text: str, end: int) -> bool:
    """Is the character at ``end`` part of a word (so a token would not end there)?"""
    return end < len(text) and (text[end].isalnum() or text[end] == "_")


def line_prefix(text: str, start: int, limit: int = 4096) -> str:
    """The line before ``start``, at most ``limit`` characters of it (a minified file is one line)."""
    return text[max(text.rfind("\n", max(0, start - limit), start) + 1, start - limit):start]


def line_end(text: str, start: int) -> int:
    """Where the line holding ``start`` ends (its newline, or the end of the text)."""
    end = text.find("\n", start)
    return len(text) if end < 0 else end


@lru_cache(maxsize=1)  # the detectors that look for words lower the same text in turn
def lowered(text: str) -> str:
    """text.lower() with the same offsets (a few non-ASCII letters lower to two characters)."""
    lower = text.lower()
    if len(lower) == len(text):
        return lower
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def finditer_from(pattern: re.Pattern, text: str, starts: Iterable[int]) -> Iterator[re.Match]:
    """What ``pattern.finditer(text)`` yields, given every position where a match can start, in
    order: the first match at or after the end of the one before. A pattern that starts at a
    character class or a case-insensitive word is scanned at ~10-100 ns a character; from the
    positions another, cheaper scan found, it costs only those positions."""
    end = 0
    for at in starts:
        if at >= end and (m := pattern.match(text, at)):
            end = m.end()
            yield m


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


def line_starts(text: str, words: Iterable[str]) -> list[int]:
    """Where each line holding one of ``words`` starts, in order (``text`` may be the lowered text:
    its offsets are the same)."""
    return sorted({text.rfind("\n", 0, at) + 1 for word in words for at in occurrences(text, word)})


def finditer_in_lines(pattern: re.Pattern, text: str, words: Iterable[str]) -> Iterator[re.Match]:
    """What ``pattern.finditer`` yields within the lines holding one of ``words``: for a pattern
    whose literal stands after its start, or whose literal is a common word, read only there."""
    for start in line_starts(text, words):
        yield from pattern.finditer(text, start, line_end(text, start))



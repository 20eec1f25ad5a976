"""Run the detectors over a text at a sensitivity level and resolve overlapping findings.

The settings come from the ``pii`` section of params.yaml; every key has a default, so an
empty section means "every detector on, medium sensitivity, typed placeholders".
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from quarry.config import Params, as_params
from quarry.config.curation import PiiParams
from quarry.curation.pii.detectors import DETECTORS, Finding
from quarry.curation.pii.findings import KEY, PASSWORD, word_after, word_before
from quarry.curation.pii.values import words_run_together
from quarry.curation.pii.personal import find_ips
from quarry.curation.pii.scanner_rules import find_rules
from quarry.curation.pii.fake_ips import FAKE_IP_POOL
from quarry.records import JsonDict

# Sensitivity level -> the lowest confidence a finding needs to count.
SENSITIVITY = {"low": 0.8, "medium": 0.5, "high": 0.3}


class PiiConfig(PiiParams):
    """The ``pii`` section (fields and defaults: quarry.config.curation.PiiParams) and what the
    detectors derive from it."""

    @property
    def min_confidence(self) -> float:
        return SENSITIVITY[self.sensitivity]

    @classmethod
    def from_params(cls, params: Params | Mapping[str, Any] | None = None) -> PiiConfig:
        """From the ``pii`` section of the typed params (or of a mapping shaped like params.yaml)."""
        return cls.from_section(as_params(params).pii)

    def to_dict(self) -> JsonDict:
        return {"sensitivity": self.sensitivity, "types": list(self.types),
                "ip_replacement": self.ip_replacement, "detectors": list(self.detectors)}


DEFAULT = PiiConfig()


def detect(text: str, config: PiiConfig = DEFAULT) -> list[Finding]:
    """Non-overlapping findings in text order; where two overlap, the more confident (then the
    longer) one wins."""
    floor = config.min_confidence
    wanted = set(config.types)
    candidates = []
    for name in config.detectors:
        if name == "ips":
            found = find_ips(text, FAKE_IP_POOL)
        elif name == "rules":  # rules below the floor are not even run: the generic rule is the costly one
            found = find_rules(text, floor)
        else:
            found = DETECTORS[name](text)
        candidates.extend(f for f in found if f.confidence >= floor and f.type in wanted)
    if not candidates:
        return candidates
    candidates.extend(_echoes(text, candidates))
    candidates.sort(key=lambda f: (-f.confidence, f.start - f.end, f.start))
    # the kept spans, disjoint, in text order: a candidate overlaps one only if it overlaps the one
    # starting before its end (a bisection, not a scan of all kept: documents hold thousands)
    starts: list[int] = []
    kept: list[Finding] = []
    dropped: list[Finding] = []
    for f in candidates:
        at = bisect.bisect_left(starts, f.end)
        if at and kept[at - 1].end > f.start:
            dropped.append(f)
            continue
        starts.insert(at, f.start)
        kept.insert(at, f)
    return _widened(kept, starts, dropped)


_CREDENTIALS = (KEY, PASSWORD)


def _widened(kept: list[Finding], starts: list[int], dropped: list[Finding]) -> list[Finding]:
    """A credential kept for its confidence takes the span of a less confident one around it that
    overlaps nothing else: a provider's shape read a token's documented length while the assignment
    it stands in holds the token whole ('sq0atp-' + 22 characters, then more of the same token), and
    the rest would be left in the clear."""
    for wide in dropped:
        if wide.type not in _CREDENTIALS:
            continue
        at = bisect.bisect_left(starts, wide.end) - 1   # the last kept finding starting before its end
        inner = kept[at] if at >= 0 else None
        if (inner is None or inner.type not in _CREDENTIALS or not wide.start <= inner.start <= inner.end <= wide.end
                or (inner.start, inner.end) == (wide.start, wide.end) or at and kept[at - 1].end > wide.start):
            continue
        kept[at] = dataclasses.replace(inner, start=wide.start, end=wide.end)
        starts[at] = wide.start
    return kept


# Not addresses: the IP detector reads a version-like context at each occurrence ('1.0.0.59' of a
# package list), which an echo would overrule.
_ECHOED = (KEY, PASSWORD)
_MAX_ECHOED_VALUES = 64  # a document of hundreds of distinct credentials is a dump: each is found where it stands


def _echoes(text: str, found: list[Finding]) -> list[Finding]:
    """Every other occurrence of a credential found in the text, as a whole token: a password
    quoted again in the prose after its assignment ('replace the sample password secret99') or a
    token compared again in a test is the same secret, though no syntax names it there."""
    values = {}
    for f in found:
        if f.type in _ECHOED and _unmistakable(text[f.start:f.end]):
            values.setdefault(text[f.start:f.end], f)
    if len(values) > _MAX_ECHOED_VALUES:
        return []
    echoes = []
    for value, f in values.items():
        at = text.find(value)
        while at >= 0:
            end = at + len(value)
            if at != f.start and _whole_token(text, at, end):
                echoes.append(Finding(at, end, f.type, f.kind, f.confidence))
            at = text.find(value, end)
    return echoes


def _whole_token(text: str, start: int, end: int) -> bool:
    """Not part of a longer word or dotted number ('abc123' in 'xabc123' or 'abc123.1')."""
    after = text[end:end + 2]
    return not (word_before(text, start) or text[start - 2:start].rstrip(".")[-1:].isdigit() and text[start - 1] == "."
                or word_after(text, end) or after[:1] == "." and after[1:].isdigit())


def _unmistakable(value: str) -> bool:
    """A credential whose every other occurrence is surely the same secret: eight characters or
    more, digits among letters, not a name of several words ('DINOv3ViTBackbone', 'utf8_decode':
    a detector may have judged such a name under a credential's, and it recurs as code)."""
    return (len(value) >= 8 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
            and not (words_run_together(value) and ("_" in value or _CAMEL.search(value))))


_CAMEL = re.compile(r"[a-z][A-Z]")

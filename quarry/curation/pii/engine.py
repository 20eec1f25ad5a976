"""Run the detectors over a text at a sensitivity level and resolve overlapping findings.

The settings come from the ``pii`` section of params.yaml; every key has a default, so an
empty section means "every detector on, medium sensitivity, typed placeholders".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quarry.config import Params, as_params
from quarry.config.curation import PiiParams
from quarry.curation.pii.detectors import DETECTORS, Finding
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
    if len(candidates) < 2:
        return candidates
    candidates.sort(key=lambda f: (-f.confidence, f.start - f.end, f.start))
    kept: list[Finding] = []
    for f in candidates:
        if all(f.end <= k.start or f.start >= k.end for k in kept):
            kept.append(f)
    kept.sort(key=lambda f: f.start)
    return kept

"""Run the detectors over a text at a sensitivity level and resolve overlapping findings.

The settings come from the ``pii`` section of params.yaml; every key has a default, so an
empty section means "every detector on, medium sensitivity, typed placeholders".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quarry.errors import ConfigError
from quarry.pii.detectors import DETECTORS, TYPES, Finding
from quarry.pii.personal import find_ips
from quarry.pii.fake_ips import FAKE_IP_POOL

# Sensitivity level -> the lowest confidence a finding needs to count.
SENSITIVITY = {"low": 0.8, "medium": 0.5, "high": 0.3}


@dataclass(frozen=True)
class PiiConfig:
    sensitivity: str = "medium"
    types: tuple[str, ...] = TYPES  # which placeholder types to detect and redact
    ip_replacement: str = "fake"  # "fake": deterministic fake public address; "placeholder": <IP_ADDRESS>
    detectors: tuple[str, ...] = field(default=tuple(DETECTORS))

    @property
    def min_confidence(self) -> float:
        return SENSITIVITY[self.sensitivity]

    @classmethod
    def from_params(cls, params: dict[str, Any] | None) -> PiiConfig:
        """From the whole params dict (its ``pii`` section) or from the section itself."""
        section = (params or {}).get("pii", params or {})
        section = section if isinstance(section, dict) else {}
        config = cls(
            sensitivity=str(section.get("sensitivity", cls.sensitivity)),
            types=tuple(section.get("types") or TYPES),
            ip_replacement=str(section.get("ip_replacement", cls.ip_replacement)),
            detectors=tuple(section.get("detectors") or DETECTORS),
        )
        config.validate()
        return config

    def validate(self) -> None:
        if self.sensitivity not in SENSITIVITY:
            raise ConfigError(f"params: pii.sensitivity must be one of {', '.join(SENSITIVITY)}, "
                              f"got {self.sensitivity!r}")
        if unknown := sorted(set(self.types) - set(TYPES)):
            raise ConfigError(f"params: pii.types has unknown types {unknown}; valid: {', '.join(TYPES)}")
        if unknown := sorted(set(self.detectors) - set(DETECTORS)):
            raise ConfigError(f"params: pii.detectors has unknown detectors {unknown}; valid: {', '.join(DETECTORS)}")
        if self.ip_replacement not in ("fake", "placeholder"):
            raise ConfigError("params: pii.ip_replacement must be 'fake' or 'placeholder', "
                              f"got {self.ip_replacement!r}")

    def to_dict(self) -> dict[str, Any]:
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
        found = find_ips(text, FAKE_IP_POOL) if name == "ips" else DETECTORS[name](text)
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

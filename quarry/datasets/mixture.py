"""The mixture: which subsets go into a dataset, how often each is repeated, and which split a
document belongs to.

As in the Pile's table, each subset has a number of epochs: 2.0 repeats every training document
twice, 0.5 keeps a stable half of them, 0 leaves the subset out. A weight instead of epochs asks
for a share of the mixture's bytes; the epochs then follow from the subsets' sizes. Which
documents a fractional epoch keeps depends only on their ids, so the choice is the same for every
build and every version. Validation and test documents are never repeated.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from quarry.errors import ConfigError
from quarry.records import JsonDict
from quarry.splits import DEFAULT_FRACTIONS, Splits, unit_interval

MIXTURE_SALT = "quarry-mixture-v1"


@dataclass
class Mixture:
    epochs: dict[str, float] = field(default_factory=dict)  # subset -> epochs; absent means 1.0
    fractions: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_FRACTIONS))
    moved: dict[str, str] = field(default_factory=dict)      # doc id -> split, by stratification

    @classmethod
    def from_params(cls, section: Mapping[str, Any], subset_bytes: Mapping[str, int] | None = None) -> Mixture:
        """Build from the ``assemble`` params section; ``subset_bytes`` resolves weights to epochs."""
        fractions = dict(section.get("splits") or DEFAULT_FRACTIONS)
        if any(not isinstance(v, (int, float)) or v < 0 for v in fractions.values()) or sum(fractions.values()) <= 0:
            raise ConfigError(f"params: assemble.splits must be non-negative numbers with a positive sum, "
                              f"got {fractions}")
        subsets = section.get("subsets") or {}
        epochs: dict[str, float] = {}
        weights: dict[str, float] = {}
        for name, spec in subsets.items():
            spec = spec if isinstance(spec, Mapping) else {"epochs": spec}
            if "weight" in spec and "epochs" in spec:
                raise ConfigError(f"params: assemble.subsets.{name} has both weight and epochs; give one")
            value = spec.get("weight", spec.get("epochs", 1.0))
            if not isinstance(value, (int, float)) or value < 0:
                raise ConfigError(f"params: assemble.subsets.{name} needs a non-negative number, got {value!r}")
            (weights if "weight" in spec else epochs)[str(name)] = float(value)
        if weights:
            epochs.update(weights_to_epochs(weights, subset_bytes or {}))
        return cls(epochs=epochs, fractions=fractions)

    def epochs_of(self, subset: str) -> float:
        return self.epochs.get(subset, 1.0)

    def split(self, doc_id: str) -> str:
        return Splits(self.fractions, self.moved).of(doc_id)

    def copies(self, doc_id: str, subset: str, split: str) -> int:
        """How many times the document is written: floor(epochs), plus one for a stable fraction."""
        epochs = self.epochs_of(subset)
        whole = math.floor(epochs)
        extra = 1 if unit_interval(doc_id, MIXTURE_SALT) < epochs - whole else 0
        n = whole + extra
        return min(n, 1) if split != "train" else n

    @property
    def max_copies(self) -> int:
        return max([1, *(math.ceil(e) for e in self.epochs.values())])

    def to_dict(self) -> JsonDict:
        return {"epochs": dict(sorted(self.epochs.items())), "splits": self.fractions}


def weights_to_epochs(weights: Mapping[str, float], subset_bytes: Mapping[str, int]) -> dict[str, float]:
    """Epochs that give each weighted subset its share of the weighted subsets' total bytes."""
    total_weight = sum(weights.values())
    total_bytes = sum(subset_bytes.get(name, 0) for name in weights)
    epochs = {}
    for name, weight in weights.items():
        size = subset_bytes.get(name, 0)
        if size == 0 or total_weight == 0:
            epochs[name] = 0.0
            continue
        # rounded so the float formatting of the manifest cannot differ between platforms
        epochs[name] = round(weight / total_weight * total_bytes / size, 6)
    return epochs


def uses_weights(section: Mapping[str, Any]) -> bool:
    return any(isinstance(spec, Mapping) and "weight" in spec for spec in (section.get("subsets") or {}).values())

"""Train / validation / test membership by a stable hash of the document id.

A document's split depends only on its id and the split fractions, never on which other
documents exist, so it never changes split between dataset versions. Decontamination and
assembly both ask this one function.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from quarry.config.datasets import AssembleParams

DEFAULT_FRACTIONS = AssembleParams().splits   # assemble.splits when params.yaml names none
SPLIT_SALT = "quarry-split-v1"


def unit_interval(doc_id: str, salt: str = SPLIT_SALT) -> float:
    """A uniform number in [0, 1) derived from the id alone."""
    digest = hashlib.sha256(f"{salt}\0{doc_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_of(doc_id: str, fractions: Mapping[str, float] = DEFAULT_FRACTIONS, salt: str = SPLIT_SALT) -> str:
    total = sum(fractions.values())
    if total <= 0:
        raise ValueError("split fractions must add up to a positive number")
    point = unit_interval(doc_id, salt) * total
    acc = 0.0
    name = next(iter(fractions))
    for name, share in fractions.items():  # noqa: B007 - the last name is the fallback
        acc += share
        if point < acc:
            return name
    return name

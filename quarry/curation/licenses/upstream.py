"""Upstream licence labels (a Parquet source's ``detected_licenses``, ``license_type`` ...) against
the licence Quarry decides: the licences stage counts where they agree and where they differ."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# an upstream category label -> the Quarry categories it agrees with
CATEGORY_LABELS = {"permissive": {"permissive", "public-domain"}, "no_license": {"no-license"},
                   "no-license": {"no-license"}, "copyleft": {"weak-copyleft", "strong-copyleft"}}
_OPERATORS = {"and", "or", "with"}


def spdx_ids(expression: str | None) -> set[str]:
    return {token.lower() for token in re.findall(r"[A-Za-z0-9.+:-]+", expression or "")} - _OPERATORS


def agreement(labels: Mapping[str, Any], decided: Mapping[str, Any]) -> str | None:
    """"agrees" or "differs": by the first category label (license_type), else by the first list
    of SPDX ids (detected_licenses, compared as sets); None when no label says either."""
    for value in labels.values():
        if isinstance(value, str) and value.lower() in CATEGORY_LABELS:
            return "agrees" if decided.get("category") in CATEGORY_LABELS[value.lower()] else "differs"
    for value in labels.values():
        if isinstance(value, list):
            theirs = {str(v).lower() for v in value}
            return "agrees" if theirs == spdx_ids(decided.get("spdx")) else "differs"
    return None

"""The snapshot stage's tunables (params.yaml `snapshot:`) as the plain mapping its code reads."""

from __future__ import annotations

from typing import Any, get_args

from quarry.config.snapshot import SnapshotParams, SourceKind
from quarry.hashing import value_hash

# Keys whose values change what a processed origin looks like (its cache key depends on them).
PROCESSING_KEYS = ("max_file_bytes", "binary_extensions", "generated_markers", "minified_line_length",
                   "natural_languages", "prose_languages", "subsets", "default_subset")

SOURCE_KINDS = get_args(SourceKind)


def settings(params: Any) -> dict[str, Any]:
    """The ``snapshot`` section (of the whole params or the section itself), checked, every
    default filled in (quarry.config.snapshot holds them)."""
    return SnapshotParams.of(params).as_dict()


def processing_hash(cfg: dict[str, Any]) -> str:
    return value_hash({key: cfg[key] for key in PROCESSING_KEYS})

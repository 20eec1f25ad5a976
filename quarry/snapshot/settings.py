"""What the snapshot stage derives from its settings (params.yaml `snapshot:`, typed in
quarry.config.snapshot.SnapshotParams): the hash of those that change a processed origin."""

from __future__ import annotations

from typing import get_args

from quarry.config.snapshot import SnapshotParams, SourceKind
from quarry.infra.hashing import value_hash

# Keys whose values change what a processed origin looks like (its cache key depends on them).
PROCESSING_KEYS = ("max_file_bytes", "max_document_bytes", "binary_extensions", "generated_markers", "minified_line_length",
                   "natural_languages", "prose_languages", "subsets", "default_subset")

SOURCE_KINDS = get_args(SourceKind)


def processing_hash(cfg: SnapshotParams) -> str:
    values = cfg.as_dict()  # the plain values params.yaml writes: same settings, same hash, whatever the code
    return value_hash({key: values[key] for key in PROCESSING_KEYS})

"""A table's layout from its columns: The Stack v2 (repository-grouped or file-level), The Stack
v1, a Pile-style table, a plain ``text`` dataset. A source that names neither ``preset`` nor
``columns`` is read with the first layout its first file's columns fit; a table that fits none is
refused in one line naming the presets and the columns it has."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from quarry.config.snapshot import COLUMN_PRESETS, Columns
from quarry.errors import ConfigError

# The columns that make each layout unmistakable, most specific first ("a.b": field b of the
# struct a, or of the structs a list holds).
SIGNATURES: tuple[tuple[str, frozenset[str]], ...] = (
    ("stack-v2-repos", frozenset({"repo_name", "files", "files.blob_id", "files.path"})),
    ("stack-v2", frozenset({"repo_name", "blob_id", "path"})),
    ("stack-v1", frozenset({"content", "hexsha", "max_stars_repo_name", "max_stars_repo_path"})),
    ("pile", frozenset({"text", "meta.pile_set_name"})),
    ("text", frozenset({"text"})),
)


def column_names(schema: pa.Schema) -> list[str]:
    """Top-level names, then ``a.b`` for each field of a struct column or of a list of structs."""
    names = list(schema.names)
    for column in schema:
        inner = column.type
        if pa.types.is_list(inner) or pa.types.is_large_list(inner):
            inner = inner.value_type
        if pa.types.is_struct(inner):
            names += [f"{column.name}.{inner.field(i).name}" for i in range(inner.num_fields)]
    return names


def recognise(names: list[str]) -> str | None:
    have = set(names)
    return next((preset for preset, needed in SIGNATURES if needed <= have), None)


def presets_line() -> str:
    return "; ".join(f"{name} ({', '.join(sorted(needed))})" for name, needed in SIGNATURES)


def layout_of(file: Path, names: list[str]) -> tuple[str, Columns]:
    preset = recognise(names)
    if preset is None:
        raise ConfigError(f"{file}: no layout fits its columns ({', '.join(names)}); presets and the columns "
                          f"they need: {presets_line()}; name one (preset:, or --preset) or map them (columns:)")
    return preset, Columns.model_validate(COLUMN_PRESETS[preset])

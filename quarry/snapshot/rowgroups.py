"""A table file in groups of rows: a Parquet file's row groups, a saved dataset's Arrow record
batches. The plan walks them for everything but the contents (their lengths only); a map reads a
group's content column back, so no one process holds a table's text. The content is a top-level
column, or a field of the structs a list column holds (a repository's files)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


def groups(kind: str, file: Path) -> Iterator[pa.Table | pa.RecordBatch]:
    """The file's groups in order (``kind``: parquet or hfdisk)."""
    if kind == "parquet":
        parquet = pq.ParquetFile(file)
        for number in range(parquet.num_row_groups):
            yield parquet.read_row_group(number)
    else:
        with pa.memory_map(str(file)) as source:
            yield from pa.ipc.open_stream(source)


def schema_of(kind: str, file: Path) -> pa.Schema:
    """The file's schema, read without its rows."""
    if kind == "parquet":
        return pq.ParquetFile(file).schema_arrow
    with pa.memory_map(str(file)) as source:
        return pa.ipc.open_stream(source).schema


def without_contents(group: pa.Table | pa.RecordBatch, text: str, files: str | None):
    """``group`` less its contents, and their UTF-8 lengths: one per row (a top-level ``text``
    column), or a list per row, one per element of ``files`` (its structs' ``text`` field); None
    when the group holds no such content."""
    if not files:
        if text not in group.schema.names:
            return group, None
        return group.drop_columns([text]), pc.binary_length(group.column(text)).to_pylist()
    column = group.column(files)
    lists = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    inner = lists.type.value_type if pa.types.is_list(lists.type) else None
    if inner is None or not pa.types.is_struct(inner) or inner.get_field_index(text) < 0:
        return group, None
    offsets = lists.offsets.to_pylist()
    structs = lists.values
    lengths = pc.binary_length(structs.field(text)).to_pylist()
    kept = [inner.field(i) for i in range(inner.num_fields) if inner.field(i).name != text]
    stripped = pa.StructArray.from_arrays([structs.field(f.name) for f in kept], fields=kept)
    rebuilt = pa.ListArray.from_arrays(lists.offsets, stripped, mask=lists.is_null())
    nulls = lists.is_null().to_pylist()
    per_row = [None if nulls[i] else lengths[offsets[i]:offsets[i + 1]] for i in range(len(lists))]
    return group.set_column(group.schema.get_field_index(files), files, rebuilt), per_row


def column_of(kind: str, file: str, group: int, column: str) -> list:
    """One column of one group, as Python values."""
    if kind == "parquet":
        return pq.ParquetFile(file).read_row_group(group, columns=[column]).column(0).to_pylist()
    with pa.memory_map(file) as source:
        for number, batch in enumerate(pa.ipc.open_stream(source)):
            if number == group:   # a memory-mapped stream: the batches before it are skipped, not copied
                return batch.column(column).to_pylist()
    raise IndexError(f"{file}: no record batch {group}")

"""A table file in groups of rows: a Parquet file's row groups, a saved dataset's Arrow record
batches. The plan walks them for everything but the contents (their lengths only); a map reads a
group's content column back, so no one process holds a table's text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
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


def column_of(kind: str, file: str, group: int, column: str) -> list:
    """One column of one group, as Python values."""
    if kind == "parquet":
        return pq.ParquetFile(file).read_row_group(group, columns=[column]).column(0).to_pylist()
    with pa.memory_map(file) as source:
        for number, batch in enumerate(pa.ipc.open_stream(source)):
            if number == group:   # a memory-mapped stream: the batches before it are skipped, not copied
                return batch.column(column).to_pylist()
    raise IndexError(f"{file}: no record batch {group}")

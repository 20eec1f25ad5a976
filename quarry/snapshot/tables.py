"""Table sources: Parquet shards (``parquet:PATH``, a file or a folder of them; The Stack v2's
layout as the ``stack-v2`` preset) and Hugging Face datasets saved with ``save_to_disk``
(``hfdisk:PATH``: Arrow stream files listed by ``state.json``, a DatasetDict's splits in order).

Rows are read in record batches (pyarrow), one shard at a time. A row becomes a candidate file of
its repository's origin (``columns.repo``; without one, of its shard, each row standing alone, as
corpus records do). A row without content takes it from the blob store by its content id. A
content id is the upstream SWHID: it must equal the content's own, else the row is refused with
both ids. Every other column is kept in ``meta.upstream``; the licence columns in
``meta.upstream_license``, beside the licence Quarry decides.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

from quarry.config.snapshot import Columns, SnapshotParams, SourceSpec
from quarry.errors import ConfigError, QuarryError
from quarry.snapshot.plan import Candidate, OriginPlan, Refused
from quarry.snapshot.swhid import FILE_MODE, sha1_git

BATCH_ROWS = 1024


def table_files(kind: str, location: Path) -> list[Path]:
    if kind == "parquet":
        files = [location] if location.is_file() else sorted(location.rglob("*.parquet"))
    else:
        files = _saved_arrow_files(location)
    if not files:
        raise QuarryError(f"{location}: no {'Parquet' if kind == 'parquet' else 'save_to_disk Arrow'} files")
    return files


def _saved_arrow_files(location: Path) -> list[Path]:
    if (location / "dataset_dict.json").is_file():   # a DatasetDict: its splits, in their saved order
        splits = json.loads((location / "dataset_dict.json").read_text())["splits"]
        return [f for split in splits for f in _saved_arrow_files(location / split)]
    state = location / "state.json"
    if not state.is_file():
        raise QuarryError(f"{location}: not a dataset saved with save_to_disk (no state.json)")
    return [location / entry["filename"] for entry in json.loads(state.read_text())["_data_files"]]


def batches(kind: str, file: Path) -> Iterator[pa.RecordBatch]:
    if kind == "parquet":
        yield from pq.ParquetFile(file).iter_batches(batch_size=BATCH_ROWS)
    else:
        with pa.memory_map(str(file)) as source:
            yield from pa.ipc.open_stream(source)


class BlobStore:
    """Contents named by their content id, as ``ID``, ``ID.gz`` or ``ID.zst``, flat or under ``ID[:2]/``."""

    def __init__(self, root: str | Path):
        self.root = Path(root).expanduser()
        if not self.root.is_dir():
            raise QuarryError(f"blob store {self.root}: not a directory")

    def read(self, content_id: str) -> bytes | None:
        for folder in (self.root, self.root / content_id[:2]):
            for suffix, decode in (("", bytes), (".gz", gzip.decompress),
                                   (".zst", lambda b: zstandard.ZstdDecompressor().decompress(b, max_output_size=1 << 31))):
                path = folder / f"{content_id}{suffix}"
                if path.is_file():
                    return decode(path.read_bytes())
        return None


def plan_table(source: dict, cfg: SnapshotParams) -> list[OriginPlan]:
    spec = SourceSpec.model_validate(source)
    columns = spec.column_map()
    location = Path(spec.path or "").expanduser()
    if not spec.path or not location.exists():
        raise QuarryError(f"snapshot source {source['name']!r}: {location} does not exist")
    blobs = BlobStore(spec.blobs) if spec.blobs else None
    plans: dict[str, OriginPlan] = {}
    for file in table_files(spec.kind, location):
        rel = file.relative_to(location).as_posix() if location.is_dir() else file.name
        row_number = 0
        for number, batch in enumerate(batches(spec.kind, file)):
            if number == 0:  # a file has one schema
                _check_columns(columns, batch.schema.names, file, blobs)
            for row in batch.to_pylist():
                row_number += 1
                _plan_row(plans, spec, columns, row, row_number, rel, blobs, cfg)
    return list(plans.values())


def _check_columns(columns: Columns, names: list[str], file: Path, blobs: BlobStore | None) -> None:
    wanted = {"content_id": columns.content_id, "id": columns.id, "path": columns.path, "repo": columns.repo,
              "revision": columns.revision, "subset": columns.subset}
    missing = [f"columns.{key}: {name!r}" for key, name in wanted.items() if name and name not in names]
    if columns.text and columns.text not in names and blobs is None:
        missing.append(f"columns.text: {columns.text!r} (and no blobs store to read contents from)")
    if not columns.text or columns.text not in names:
        if blobs is not None and not columns.content_id:
            missing.append("columns.content_id (needed to read contents from blobs)")
    if missing:
        raise ConfigError(f"{file}: no column for {', '.join(missing)}; columns: {', '.join(names)}")


def _plan_row(plans: dict[str, OriginPlan], spec: SourceSpec, columns: Columns, row: dict, row_number: int,
              rel: str, blobs: BlobStore | None, cfg: SnapshotParams) -> None:
    where = f"{rel}:{row_number}"
    repo = row.get(columns.repo) if columns.repo else None
    origin = columns.origin.format(repo=repo) if repo else (spec.origin or f"{spec.path}/{rel}")
    plan = plans.get(origin)
    if plan is None:
        revision = row.get(columns.revision) if columns.revision else None
        plan = plans[origin] = OriginPlan(spec.name or spec.kind, spec.kind, origin, revision=revision,
                                          subset=spec.subset, info={"file": rel})
    path = str(row.get(columns.path) or "").strip("/") if columns.path else ""
    path = path or f"{row_number:08d}"
    content_id = str(row[columns.content_id]) if columns.content_id and row.get(columns.content_id) else None
    text = row.get(columns.text) if columns.text else None
    if text is None:
        data = blobs.read(content_id) if blobs is not None and content_id else None
        if data is None:
            plan.refused.append(Refused(path, "blob_missing", {"content_id": content_id, "row": where}))
            return
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            plan.refused.append(Refused(path, "binary", {"content_id": content_id, "row": where}))
            return
    data = text.encode("utf-8")
    if content_id is not None and sha1_git(data).hex() != content_id.lower():
        plan.refused.append(Refused(path, "swhid_mismatch", {"upstream": f"swh:1:cnt:{content_id}",
                                                             "content": f"swh:1:cnt:{sha1_git(data).hex()}",
                                                             "row": where}))
        return
    if len(data) > cfg.max_file_bytes:
        plan.refused.append(Refused(path, "too_large", {"bytes": len(data)}))
        return
    plan.candidates.append(Candidate(path, len(data), FILE_MODE, ("text", text, _lineage(spec, columns, row, repo))))


def _lineage(spec: SourceSpec, columns: Columns, row: dict, repo: Any) -> dict:
    used = {columns.text, columns.subset, *columns.licenses}
    subset = row.get(columns.subset) if columns.subset else None
    return {"subset": subset or spec.subset, "standalone": True if repo is None else None,
            "upstream": {k: _plain(v) for k, v in sorted(row.items()) if k not in used and v is not None},
            "upstream_license": {k: _plain(row.get(k)) for k in columns.licenses} or None}


def _plain(value: Any) -> Any:
    """A JSON value: timestamps as ISO text, bytes as hex."""
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value

"""Table sources: Parquet shards (``parquet:PATH``, a file or a folder of them) and Hugging Face
datasets saved with ``save_to_disk`` (``hfdisk:PATH``: Arrow stream files listed by ``state.json``,
a DatasetDict's splits in order). Their layout is a preset (The Stack v2, file-level or one row
per repository; The Stack v1; Pile-style; plain text), a column map, or recognised from the columns.

Rows are read a row group (Parquet) or record batch (Arrow) at a time, one shard at a time. A row
becomes a candidate file of its repository's origin (``columns.repo``; without one, of its shard,
each row standing alone, as corpus records do); in the repository-grouped layout (``columns.files``)
each element of the row's file list is a file, the row's own columns (repository, revision, stars
...) shared by all of them. Contents never pass through the plan: a top-level content column is
only measured there (so is a content field of the ``files`` structs) and read back in the map
a row group at a time (rowgroups.py); a row without
content takes it from the blob store by its content id, read in the map a blob at a time
(blobs.py). A content id is
the upstream SWHID: it must equal the content's own, else the row is refused with both ids. Every
other column is kept in ``meta.upstream``; the licence columns in ``meta.upstream_license``, beside
the licence Quarry decides. A refused row keeps its upstream id, subset and row in the rejects.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from quarry.config.snapshot import Columns, SnapshotParams, SourceSpec
from quarry.errors import ConfigError, QuarryError
from quarry.snapshot.blobs import BlobStore
from quarry.snapshot.filters import name_kind, size_cap
from quarry.snapshot.layouts import column_names, layout_of, presets_line
from quarry.snapshot.plan import OriginPlan, Refused, candidate
from quarry.snapshot.rowgroups import groups, schema_of, without_contents
from quarry.snapshot.swhid import FILE_MODE, sha1_git


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


def source_files(source: dict) -> list[Path]:
    """A table source's files, in order: each is planned apart (``plan_table``)."""
    return table_files(source["kind"], _location(source))


def _location(source: dict) -> Path:
    location = Path(source.get("path") or "").expanduser()
    if not source.get("path") or not location.exists():
        raise QuarryError(f"snapshot source {source['name']!r}: {location} does not exist")
    return location


def plan_table(source: dict, cfg: SnapshotParams, files: list[Path] | None = None) -> list[OriginPlan]:
    """The origins of the table's ``files`` (default: all), a row group at a time. An origin whose
    rows lie in several files is planned once per file (see spool.joined)."""
    spec = SourceSpec.model_validate(source)
    location = _location(source)
    blobs = str(BlobStore(spec.blobs).root) if spec.blobs else None
    given = spec.preset is not None or spec.columns is not None
    if given:
        columns, layout = spec.column_map(), spec.preset
    else:   # recognised from the first file: the others must fit it
        first = table_files(spec.kind, location)[0]
        layout, columns = layout_of(first, column_names(schema_of(spec.kind, first)))
    plans: dict[str, OriginPlan] = {}
    for file in files if files is not None else table_files(spec.kind, location):
        rel = file.relative_to(location).as_posix() if location.is_dir() else file.name
        row_number = 0
        for number, group in enumerate(groups(spec.kind, file)):
            if number == 0:  # a file has one schema
                _check_columns(columns, column_names(group.schema), file, blobs, layout)
            # the contents stay in the file: the plan takes their lengths, the map their text
            stripped, lengths = without_contents(group, columns.text, columns.files) if columns.text else (group, None)
            column = columns.files or columns.text
            for index, row in enumerate(stripped.to_pylist()):
                row_number += 1
                where = f"{rel}:{row_number}"
                if not columns.files:
                    at = ("row", str(file), spec.kind, number, index, None, column, lengths[index]) if lengths else None
                    _plan_row(plans, spec, columns, layout, row, where, f"{row_number:08d}", blobs, cfg, at)
                    continue
                shared = {k: v for k, v in row.items() if k != columns.files}
                for element, fields in enumerate(row.get(columns.files) or ()):
                    at = None
                    if lengths and lengths[index] is not None:
                        at = ("row", str(file), spec.kind, number, index, (element, columns.text), column,
                              lengths[index][element])
                    _plan_row(plans, spec, columns, layout, {**shared, **fields}, f"{where}.{element + 1}",
                              f"{row_number:08d}.{element + 1}", blobs, cfg, at)
    return list(plans.values())


def _get(row: dict, name: str) -> Any:
    """A column's value; ``a.b`` reaches into a struct column when no column has that name."""
    if name in row:
        return row[name]
    value: Any = row
    for part in name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _check_columns(columns: Columns, names: list[str], file: Path, blobs: str | None, layout: str | None) -> None:
    wanted = {"content_id": columns.content_id, "id": columns.id, "path": columns.path, "repo": columns.repo,
              "revision": columns.revision, "subset": columns.subset, "files": columns.files}
    have = set(names) | {n.split(".", 1)[1] for n in names if columns.files and n.startswith(f"{columns.files}.")}
    missing = [f"columns.{key}: {name!r}" for key, name in wanted.items() if name and name not in have]
    text_there = bool(columns.text) and columns.text in have
    if columns.text and not text_there and blobs is None:
        missing.append(f"columns.text: {columns.text!r} (and no blobs store to read contents from: blobs:, --blobs)")
    if not text_there and blobs is not None and not columns.content_id:
        missing.append("columns.content_id (needed to read contents from blobs)")
    if missing:
        named = f" (layout {layout})" if layout else ""
        raise ConfigError(f"{file}: no column for {', '.join(missing)}{named}; columns: {', '.join(names)}; "
                          f"layouts: {presets_line()}")


def _plan_row(plans: dict[str, OriginPlan], spec: SourceSpec, columns: Columns, layout: str | None, row: dict,
              where: str, number: str, blobs: str | None, cfg: SnapshotParams, at: tuple | None = None) -> None:
    """One row (or one file of a repository's row) into its origin's plan. ``at``: where its content
    is in the table (file, kind, group, row, (element, field) of a files list or None, column) and
    its length (None: no content there); the map reads it back."""
    repo = _get(row, columns.repo) if columns.repo else None
    origin = columns.origin.format(repo=repo) if repo else (spec.origin or f"{spec.path}/{where.rsplit(':', 1)[0]}")
    plan = plans.get(origin)
    if plan is None:
        revision = _get(row, columns.revision) if columns.revision else None
        info = {"file": where.rsplit(":", 1)[0], **({"layout": layout} if layout else {})}
        plan = plans[origin] = OriginPlan(spec.name or spec.kind, spec.kind, origin, revision=revision,
                                          subset=spec.subset, info=info, documents=repo is None)
    path = str(_get(row, columns.path) or "").strip("/") if columns.path else ""
    path = path or number
    content_id = str(_get(row, columns.content_id)).lower() if columns.content_id and _get(row, columns.content_id) else None
    standalone = repo is None
    given = _lineage(spec, columns, row, repo, where)
    trace = {key: given[key] for key in ("upstream_id", "subset", "row") if given.get(key) is not None}
    kind = "document" if standalone else name_kind(path, cfg)
    if at is not None and at[-1] is not None:
        size = at[-1]
        if size > size_cap(kind, standalone, cfg):
            plan.refused.append(Refused(path, "too_large", {"bytes": size, **trace}, kind=kind))
            return
        plan.candidates.append(candidate(path, size, FILE_MODE, (*at[:-1], content_id, given)))
        return
    text = _get(row, columns.text) if columns.text and at is None else None
    if text is None:
        if blobs is None or content_id is None:
            plan.refused.append(Refused(path, "blob_missing", {"content_id": content_id, **trace}, kind=kind))
            return
        size = _get(row, columns.size) if columns.size else None
        if size is None:  # no length column: the blob is read here once, for the caps
            data = BlobStore(blobs).read(content_id)
            size = len(data) if data is not None else 0
        if int(size) > size_cap(kind, standalone, cfg):
            plan.refused.append(Refused(path, "too_large", {"bytes": int(size), **trace}, kind=kind))
            return
        plan.candidates.append(candidate(path, int(size), FILE_MODE, ("blob", blobs, content_id, given)))
        return
    data = text.encode("utf-8")
    if content_id is not None and sha1_git(data).hex() != content_id:
        plan.refused.append(Refused(path, "swhid_mismatch", {"upstream": f"swh:1:cnt:{content_id}",
                                                             "content": f"swh:1:cnt:{sha1_git(data).hex()}",
                                                             **trace}, kind=kind))
        return
    if len(data) > size_cap(kind, standalone, cfg):
        plan.refused.append(Refused(path, "too_large", {"bytes": len(data), **trace}, kind=kind))
        return
    plan.candidates.append(candidate(path, len(data), FILE_MODE, ("text", text, given)))


def _lineage(spec: SourceSpec, columns: Columns, row: dict, repo: Any, where: str) -> dict:
    used = {columns.text, columns.subset, *columns.licenses}
    subset = _get(row, columns.subset) if columns.subset else None
    upstream_id = _get(row, columns.id) if columns.id else None
    return {"subset": subset or spec.subset, "standalone": True if repo is None else None,
            "upstream_id": _plain(upstream_id), "row": where,
            "upstream": {k: _plain(v) for k, v in sorted(row.items()) if k not in used and v is not None},
            "upstream_license": {k: _plain(_get(row, k)) for k in columns.licenses} or None}


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

"""Reading datasets back: stream the records of a version (one split or subset if asked)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from quarry.datasets.versions import locate
from quarry.errors import QuarryError
from quarry.infra.hashing import tree_hash
from quarry.records import JsonDict, Record, read_records, shard_paths


def load_manifest(version_or_path: str | os.PathLike, *, registry: str | os.PathLike | None = None) -> JsonDict:
    """The manifest of a dataset folder, or of a registered version (hash, prefix, label, name)."""
    manifest, data, _ = locate(version_or_path, registry)
    if manifest is None:
        raise QuarryError(f"{data}: not a dataset version (no manifest.json)")
    return manifest


def data_shards(folder: Path) -> list[Path]:
    """Shards below a folder, leaving out rejects/ (ids of dropped documents, not data)."""
    if not folder.is_dir():
        return shard_paths(folder)
    return [p for p in shard_paths(folder) if "rejects" not in p.relative_to(folder).parts[:-1]]


def open_dataset(version_or_path: str | os.PathLike, *, split: str | None = None, subset: str | None = None,
                 registry: str | os.PathLike | None = None) -> Iterator[Record]:
    """Stream records of a dataset version (folder, hash, prefix, label or name) or of any folder
    of jsonl / jsonl.zst shards, optionally only one split (meta.split) or subset (meta.pile_set_name)."""
    manifest, data, _ = locate(version_or_path, registry)
    return _stream(_shards(manifest, data, split), None if manifest is not None else split, subset)


def dataset_shards(version_or_path: str | os.PathLike, *, split: str | None = None,
                   registry: str | os.PathLike | None = None) -> list[Path]:
    """The shards of a dataset version (its manifest's, split by split; one split if asked) or of
    any folder of shards."""
    manifest, data, _ = locate(version_or_path, registry)
    return _shards(manifest, data, split)


def _shards(manifest: JsonDict | None, data: Path | None, split: str | None) -> list[Path]:
    if manifest is not None and data is None:
        raise QuarryError(f"dataset {manifest['name']} {manifest['label']} ({manifest['version'][:12]}) is registered "
                          f"but its shards are not checked out; `dvc pull` (or `dvc checkout`) restores them")
    if manifest is None:
        return data_shards(data)
    if split is not None and split not in manifest["splits"]:
        raise QuarryError(f"{data}: no split '{split}'; splits: {', '.join(manifest['splits'])}")
    names = [split] if split else list(manifest["splits"])
    return [data / f["path"] for name in names for f in manifest["splits"][name]["files"]]


def _stream(shards: list[Path], split: str | None, subset: str | None) -> Iterator[Record]:
    for shard in shards:
        for record in read_records(shard):
            meta = record.get("meta") or {}
            if split is not None and meta.get("split") != split:
                continue
            if subset is not None and meta.get("pile_set_name") != subset:
                continue
            yield record


def dataset_version(source: str | Path) -> str | None:
    """The dataset's version hash from its manifest, or the content hash of the shards."""
    path = Path(source)
    try:
        return load_manifest(path)["version"]
    except Exception:  # noqa: BLE001 - any folder of shards is a valid source too
        return tree_hash(path) if path.exists() else None

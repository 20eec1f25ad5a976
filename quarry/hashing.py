"""Stable hashes: of files, of trees, of JSON-able values. One place, so every stage agrees."""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import Any

import orjson

CHUNK = 1 << 20


def canonical_json(value: Any) -> bytes:
    """Bytes that are equal iff the values are equal: sorted keys, no whitespace."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY, default=_fallback)


def _fallback(value: Any):
    if isinstance(value, (Path, os.PathLike)):
        return os.fspath(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot hash value of type {type(value).__name__}")


def value_hash(value: Any) -> str:
    """sha256 hex of a JSON-able value (params, manifests, configs)."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def bytes_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_hash(path: str | os.PathLike) -> str:
    """sha256 hex of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def file_hashes(root: str | os.PathLike, exclude: tuple[str, ...] = ()) -> dict[str, str]:
    """Relative path -> sha256 of every file below ``root`` (a file: its own name), sorted;
    ``exclude``: relative paths left out."""
    root = Path(root)
    if root.is_file():
        return {root.name: file_hash(root)}
    return {rel: file_hash(path) for path in sorted(p for p in root.rglob("*") if p.is_file())
            if (rel := path.relative_to(root).as_posix()) not in exclude}


def hashes_digest(files: dict[str, str]) -> str:
    """The tree hash of a folder whose files have these hashes (see tree_hash)."""
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(rel.encode())
        digest.update(b"\0")
        digest.update(files[rel].encode())
        digest.update(b"\n")
    return digest.hexdigest()


def tree_hash(root: str | os.PathLike) -> str:
    """sha256 over (relative path, file hash) of every file below root, in sorted order."""
    root = Path(root)
    if root.is_file():
        return file_hash(root)
    return hashes_digest(file_hashes(root))


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """Hash of the quarry package's Python sources (the code every stage runs)."""
    import quarry  # the package itself: at the top it would point back up at quarry/__init__

    package = Path(quarry.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def short(hex_digest: str, n: int = 12) -> str:
    return hex_digest[:n]

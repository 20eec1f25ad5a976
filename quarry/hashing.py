"""Stable hashes: of files, of trees, of JSON-able values. One place, so every stage agrees."""

from __future__ import annotations

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


def tree_hash(root: str | os.PathLike) -> str:
    """sha256 over (relative path, file hash) of every file below root, in sorted order."""
    root = Path(root)
    if root.is_file():
        return file_hash(root)
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(file_hash(path).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def short(hex_digest: str, n: int = 12) -> str:
    return hex_digest[:n]

"""Stable hashes: of files, of trees, of JSON-able values. One place, so every stage agrees."""

from __future__ import annotations

import functools
import hashlib
import os
import time
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


# Files this process hashed: (device, inode, size, mtime ns) -> sha256. A cached task's shard is
# hashed for its cache key, for its resume record and as its output, and the next stage's task
# keys on it again: each was a full read (at 1 GB, ~20 GB of sha256 per curate run on the workers).
# Like DVC's state database, a file with the same inode, size and modification time is taken as
# unchanged; a file modified less than RACY_NS before it was hashed is not remembered, since a
# rewrite within the clock's granularity could keep all four (git's "racy" files).
_HASHED: dict[tuple[int, int, int, int], str] = {}
HASHED_MAX = 100_000
RACY_NS = 1_000_000_000


def file_hash(path: str | os.PathLike) -> str:
    """sha256 hex of a file's bytes, read in chunks (or remembered: see _HASHED)."""
    before = os.stat(path)
    key = (before.st_dev, before.st_ino, before.st_size, before.st_mtime_ns)
    if (known := _HASHED.get(key)) is not None:
        return known
    started = time.time_ns()
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    hexdigest = digest.hexdigest()
    after = os.stat(path)
    if before.st_mtime_ns < started - RACY_NS and (after.st_ino, after.st_size, after.st_mtime_ns) == key[1:]:
        if len(_HASHED) >= HASHED_MAX:
            _HASHED.clear()
        _HASHED[key] = hexdigest
    return hexdigest


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

"""Global work split by key range: what a partitioned global phase reads and writes.

A global phase that holds something per document (an origin's survey, a content hash, a
cluster) does not fit one process past one machine. It runs instead as a map over P partitions
of a 64-bit key space: every shard's map writes its entries sorted by key (``write_runs``), and
partition p reads from every shard only the entries whose key falls in its range
(``read_part``: a contiguous slice, found by binary search). What a partition decides for each
shard goes back shard by shard (``SliceWriter``): one file per partition, the shards' slices in
shard order with an offsets table, so the map over shards that follows reads only its own slice
of each partition (``read_slices``; ``route_slices`` hands every shard the list of partitions,
``routed_slices`` merges a shard's JSON slices).

The owner of a key depends on the key and P alone, and a partition visits the shards in order,
so what it decides does not depend on how many partitions there are or where they ran.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from quarry.engine.stage import Keyed, WorkItem
from quarry.engine.state import per_process
from quarry.infra.hashing import value_hash
from quarry.records import atomic_write_bytes


@dataclass(frozen=True, kw_only=True)
class Decided:
    """What a partition that decides per shard returns: its ``SliceWriter`` output and the digest of
    its slices (subclasses add the partition's own counts)."""

    slices: str
    digest: str


@dataclass(frozen=True)
class Runs:
    """One shard's entries by key (``write_runs``: the prefix of its files), and their bytes."""

    runs: str
    bytes: int


@dataclass(frozen=True)
class RoutedSlices:
    """A shard's way to its decisions: the file listing every partition's slices, and its number."""

    listed: str
    shard: int


def owner(keys: np.ndarray, parts: int) -> np.ndarray:
    """The partition owning each uint64 key: its range of the key space (by the top 32 bits),
    so a partition's keys are one contiguous run of sorted keys."""
    return ((np.asarray(keys, dtype=np.uint64) >> np.uint64(32)) * np.uint64(parts)) >> np.uint64(32)


def key_bounds(part: int, parts: int) -> tuple[int, int]:
    """``[lo, hi)``: the keys partition ``part`` of ``parts`` owns (``hi`` is 2**64 for the last)."""
    def start(p: int) -> int:
        return -(-p * 2**32 // parts) << 32
    return start(part), start(part + 1)


def key_slice(keys: np.ndarray, part: int, parts: int) -> slice:
    """The run of sorted uint64 ``keys`` that partition ``part`` of ``parts`` owns."""
    lo, hi = key_bounds(part, parts)
    first = int(np.searchsorted(keys, np.uint64(lo)))
    last = len(keys) if hi >= 2**64 else int(np.searchsorted(keys, np.uint64(hi)))
    return slice(first, last)


def partition_items(folder: Path, parts: int, value: Callable[[int, Path], Any],
                    writes: Callable[[Path], Iterable[str | os.PathLike]], label: str | None = None) -> list[WorkItem]:
    """One work item per partition, its files under ``folder/<part>``: ``value(part, out)`` is what it
    gets, ``writes(out)`` the files it writes; named "<label> p/P" (label: the folder's name)."""
    items = []
    for part in range(parts):
        out = folder / f"{part:05d}"
        name = f"{label or folder.name} {part + 1}/{parts}"
        items.append(WorkItem(name, value(part, out), tuple(map(str, writes(out)))))
    return items


def text_key(text: str) -> int:
    """A stable 64-bit key of a string (an origin, a path), the same on every machine."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def partition_count(total_bytes: int, partition_mb: float, partitions: int | None = None) -> int:
    """``partitions`` if given, else as many as keep each within ``partition_mb`` of what it holds."""
    return partitions or max(1, math.ceil(total_bytes / (partition_mb * 1e6)))


def run_files(prefix: str | os.PathLike) -> tuple[Path, Path, Path]:
    """(sorted keys, entry offsets, entries) of one shard's runs."""
    return Path(f"{prefix}.keys.npy"), Path(f"{prefix}.offsets.npy"), Path(f"{prefix}.bin")


def write_runs(prefix: str | os.PathLike, entries: Iterable[tuple[int, bytes]]) -> int:
    """One shard's ``(key, bytes)`` entries, sorted by key (then bytes: equal keys keep one order
    on every run), under ``prefix``; returns the bytes written."""
    ordered = sorted(entries)
    keys = np.array([key for key, _ in ordered], dtype=np.uint64)
    offsets = np.zeros(len(ordered) + 1, dtype=np.int64)
    np.cumsum([len(data) for _, data in ordered], out=offsets[1:])
    keys_file, offsets_file, data_file = run_files(prefix)
    Path(prefix).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(data_file, b"".join(data for _, data in ordered), durable=False)
    for path, array in ((keys_file, keys), (offsets_file, offsets)):
        tmp = path.with_name(f".{path.name}.tmp")
        with open(tmp, "wb") as fh:
            np.save(fh, array, allow_pickle=False)
        os.replace(tmp, path)
    return int(offsets[-1])


def read_part(prefix: str | os.PathLike, part: int, parts: int) -> list[tuple[int, bytes]]:
    """The ``(key, bytes)`` entries of one shard's runs that partition ``part`` of ``parts`` owns."""
    keys_file, offsets_file, data_file = run_files(prefix)
    keys = np.load(keys_file, mmap_mode="r")
    found = key_slice(keys, part, parts)
    entries = _entries(offsets_file, data_file, found.start, found.stop)
    return list(zip((int(key) for key in keys[found.start:found.stop].tolist()), entries))


def lookup(prefix: str | os.PathLike, key: int) -> list[bytes]:
    """The entries of a set of runs with this key (a table read by key: one binary search)."""
    keys_file, offsets_file, data_file = run_files(prefix)
    keys = np.load(keys_file, mmap_mode="r")
    first, last = (int(np.searchsorted(keys, np.uint64(key), side=side)) for side in ("left", "right"))
    return _entries(offsets_file, data_file, first, last)


def _entries(offsets_file: Path, data_file: Path, first: int, last: int) -> list[bytes]:
    """Entries ``first`` to ``last`` (exclusive) of a set of runs, in one read."""
    if first >= last:
        return []
    offsets = np.load(offsets_file, mmap_mode="r")[first:last + 1].tolist()
    with open(data_file, "rb") as fh:
        fh.seek(offsets[0])
        data = fh.read(offsets[-1] - offsets[0])
    return [data[start - offsets[0]:end - offsets[0]] for start, end in zip(offsets, offsets[1:])]


def slice_files(path: str | os.PathLike) -> tuple[Path, Path]:
    return Path(f"{path}.bin"), Path(f"{path}.offsets.npy")


class SliceWriter:
    """A partition's output for every shard, written in shard order: ``add(shard, bytes)`` for
    the shards it has something for, then ``close()``, which records where each shard's slice
    lies and returns a digest of everything written (what a cache key of the readers covers)."""

    def __init__(self, path: str | os.PathLike, shards: int):
        self.data_file, self.offsets_file = slice_files(path)
        self.data_file.parent.mkdir(parents=True, exist_ok=True)
        self._partial = self.data_file.with_name(f".{self.data_file.name}.tmp")
        self._fh = open(self._partial, "wb")
        self._ends = np.zeros(shards, dtype=np.int64)
        self._shard, self._written = -1, 0
        self._digest = hashlib.sha256()

    def add(self, shard: int, data: bytes) -> None:
        if shard < self._shard:
            raise ValueError(f"slices are written in shard order: shard {shard} after {self._shard}")
        self._ends[self._shard + 1:shard] = self._written  # the shards between hold nothing
        self._fh.write(data)
        self._digest.update(shard.to_bytes(8, "big") + len(data).to_bytes(8, "big") + data)
        self._written += len(data)
        self._ends[shard] = self._written
        self._shard = shard

    def close(self) -> str:
        self._ends[self._shard + 1:] = self._written
        self._fh.close()
        os.replace(self._partial, self.data_file)
        tmp = self.offsets_file.with_name(f".{self.offsets_file.name}.tmp")
        with open(tmp, "wb") as fh:
            np.save(fh, np.r_[0, self._ends].astype(np.int64), allow_pickle=False)
        os.replace(tmp, self.offsets_file)
        return self._digest.hexdigest()

    def __enter__(self) -> SliceWriter:
        return self

    def __exit__(self, kind, *_) -> None:
        if kind is None:
            return
        self._fh.close()
        self._partial.unlink(missing_ok=True)


def read_slices(paths: Iterable[str | os.PathLike], shard: int) -> list[bytes]:
    """Shard ``shard``'s slice of each partition's output (empty ones left out), in partition order."""
    found = []
    for path in paths:
        data_file, offsets_file = slice_files(path)
        start, end = np.load(offsets_file, mmap_mode="r")[shard:shard + 2].tolist()
        if end > start:
            with open(data_file, "rb") as fh:
                fh.seek(start)
                found.append(fh.read(end - start))
    return found


def merged_slices(paths: Iterable[str | os.PathLike], shard: int) -> dict:
    """Shard ``shard``'s slices of each partition's output, JSON objects merged in partition order
    (a later partition's entry replaces an earlier one's)."""
    merged: dict = {}
    for part in read_slices(paths, shard):
        merged.update(orjson.loads(part))
    return merged


def route_slices(listed: Path, parts: Sequence[Decided], shards: int) -> list[Keyed]:
    """Each shard's input to the map that applies partitioned decisions: the list of every
    partition's ``slices`` (written once, a file, not a copy per shard) and the shard's number,
    keyed for the task cache by the partitions' ``digest``s (no task hashes the partitions' files)."""
    atomic_write_bytes(listed, orjson.dumps([part.slices for part in parts]), durable=False)
    key = value_hash([part.digest for part in parts])
    return [Keyed(f"{key}:{shard}", RoutedSlices(str(listed), shard)) for shard in range(shards)]


def routed_slices(routed: Keyed) -> dict:
    """The shard's decisions ``route_slices`` routed to it, merged (``merged_slices``); the list of
    partitions is read once per process."""
    where: RoutedSlices = routed.value
    paths = per_process(("routed-slices", where.listed, routed.key.rpartition(":")[0]),
                        lambda: orjson.loads(Path(where.listed).read_bytes()))
    return merged_slices(paths, where.shard)

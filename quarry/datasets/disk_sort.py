"""Rows sorted on disk, for lists that grow with the corpus (a version's document index, the rows
its stages rejected): held a chunk at a time, each chunk sorted and written out, the chunks merged.

The sort is stable: rows with equal keys come out in the order they went in (a chunk is sorted
stably, and ``heapq.merge`` takes ties from the earlier chunk first).
"""

from __future__ import annotations

import heapq
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from quarry.records import JsonDict, RecordWriter, read_records

CHUNK_ROWS = 200_000   # rows held at once: about 130 MB of index rows
FAN_IN = 64            # files merged at once (each open): FAN_IN chunks of a level merge into one of the next


class DiskSorter:
    """Rows added one by one (``add``), read back in ``key`` order (``sorted``), holding at most
    ``chunk_rows`` in memory; its chunks are removed when it is closed."""

    def __init__(self, key: Callable[[JsonDict], Any], *, chunk_rows: int | None = None, folder: str | None = None):
        self.key, self.chunk_rows, self._folder_in = key, chunk_rows or CHUNK_ROWS, folder
        self._folder: Path | None = None
        self._levels: list[list[Path]] = [[]]   # sorted files; level i+1 merged from FAN_IN of level i
        self._held: list[JsonDict] = []
        self._files = 0

    def add(self, row: JsonDict) -> None:
        self._held.append(row)
        if len(self._held) >= self.chunk_rows:
            self._spill()

    def sorted(self) -> Iterator[JsonDict]:
        """Every row added, in key order (once: the rows still held are sorted in place)."""
        self._held.sort(key=self.key)
        files = [path for level in reversed(self._levels) for path in level]   # the oldest rows first
        return _merged(files, self.key, iter(self._held)) if files else iter(self._held)

    def _spill(self) -> None:
        self._held.sort(key=self.key)
        self._levels[0].append(self._written(self._held))
        self._held = []
        for level, files in enumerate(self._levels):   # a full level merges into one file of the next
            if len(files) < FAN_IN:
                break
            if level + 1 == len(self._levels):
                self._levels.append([])
            self._levels[level + 1].append(self._written(_merged(files, self.key)))
            for path in files:
                path.unlink()
            self._levels[level] = []

    def _written(self, rows: Iterable[JsonDict]) -> Path:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="quarry-sort-", dir=self._folder_in))
        path = self._folder / f"{self._files:07d}.jsonl.zst"
        self._files += 1
        with RecordWriter(path, level=1, validate=False) as writer:
            writer.write_all(rows)
        return path

    def close(self) -> None:
        self._held = []
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> DiskSorter:
        return self

    def __exit__(self, *_) -> None:
        self.close()


def sorted_rows(rows: Iterable[JsonDict], key: Callable[[JsonDict], Any], *,
                chunk_rows: int | None = None) -> Iterator[JsonDict]:
    """``rows`` in ``key`` order, stable, holding at most ``chunk_rows`` of them in memory."""
    with DiskSorter(key, chunk_rows=chunk_rows) as sorter:
        for row in rows:
            sorter.add(row)
        yield from sorter.sorted()


def merged_files(paths: Iterable[str | os.PathLike], key: Callable[[JsonDict], Any]) -> Iterator[JsonDict]:
    """The rows of files each sorted by ``key``, merged in ``key`` order (stable: ties in file
    order), with at most FAN_IN files open: more are first merged FAN_IN at a time into files of
    their own."""
    paths = [Path(path) for path in paths]
    with tempfile.TemporaryDirectory(prefix="quarry-merge-") as scratch:
        rounds = 0
        while len(paths) > FAN_IN:
            merged = []
            for start in range(0, len(paths), FAN_IN):
                group = paths[start:start + FAN_IN]
                target = Path(scratch) / f"{rounds:03d}-{start // FAN_IN:07d}.jsonl.zst"
                with RecordWriter(target, level=1, validate=False) as writer:
                    writer.write_all(_merged(group, key))
                if rounds:   # a round's files are read once
                    for path in group:
                        path.unlink()
                merged.append(target)
            paths, rounds = merged, rounds + 1
        yield from _merged(paths, key)


def _merged(paths: Iterable[Path], key: Callable[[JsonDict], Any], *more: Iterable[JsonDict]) -> Iterator[JsonDict]:
    """The rows of sorted files (then of ``more`` sorted streams) merged in ``key`` order, ties in
    the order given."""
    return heapq.merge(*(read_records(path, require_text=False) for path in paths), *more, key=key)

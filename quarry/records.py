"""Streaming record I/O for jsonl and jsonl.zst: one document per JSON line (DESIGN.md schema).

Readers stream: they hold one decompressed chunk and one line at a time, never a whole file.
Writers are atomic: they write a temporary file beside the target, fsync it and rename it into
place, so a crash never leaves a file under the final name that looks complete.

Corrupt input (a truncated zstd frame, a line that is not JSON, bytes that are not UTF-8) raises
RecordError naming the file, line and byte offset when ``strict``; otherwise the line is
quarantined into a rejects file and counted.
"""

from __future__ import annotations

import base64
import os
from contextlib import contextmanager
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, TypeAlias

import orjson
import zstandard

from quarry.infra.atomic import temp_beside
from quarry.errors import RecordError

# A record: one JSON line of a shard, {"text": ..., "meta": {...}}; every stage may add meta keys,
# so the mapping stays open.
Record: TypeAlias = dict[str, Any]
# A JSON document read or written whole whose keys its producer decides (a ledger, a report, a
# manifest section, a stage's result): an open mapping of plain values.
JsonDict: TypeAlias = dict[str, Any]

READ_CHUNK = 1 << 20
ZSTD_SUFFIXES = (".zst", ".zstd")


def is_zstd(path: str | os.PathLike) -> bool:
    return str(path).endswith(ZSTD_SUFFIXES)


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass
class ReadStats:
    lines: int = 0
    records: int = 0
    quarantined: int = 0
    bytes: int = 0  # uncompressed bytes read


def _zstd_chunks(fh: BinaryIO, path: str | os.PathLike) -> Iterator[bytes]:
    """Decompressed chunks of a (multi-frame) zstd file; raises on a truncated last frame."""
    dctx = zstandard.ZstdDecompressor()
    decomp = dctx.decompressobj()
    consumed = 0
    pending = False  # input fed to the current frame that has not completed it yet
    while True:
        chunk = fh.read(READ_CHUNK)
        if not chunk:
            break
        while chunk:
            try:
                out = decomp.decompress(chunk)
            except zstandard.ZstdError as exc:
                raise RecordError(path, None, None, f"corrupt zstd data near compressed byte {consumed}: {exc}") from None
            pending = True
            if out:
                yield out
            if decomp.eof:
                pending = False
                chunk = decomp.unused_data
                consumed += len(chunk)  # approximate position: start of next frame's data
                decomp = dctx.decompressobj()
            else:
                consumed += len(chunk)
                chunk = b""
    if pending:
        raise RecordError(path, None, None,
                          f"truncated zstd frame: the file ends inside a frame after {consumed} compressed bytes")


def _raw_chunks(path: str | os.PathLike) -> Iterator[bytes]:
    with open(path, "rb") as fh:
        if is_zstd(path):
            yield from _zstd_chunks(fh, path)
        else:
            while chunk := fh.read(READ_CHUNK):
                yield chunk


def iter_lines(path: str | os.PathLike) -> Iterator[tuple[int, int, bytes]]:
    """(line number from 1, uncompressed byte offset, line bytes without newline)."""
    buf = b""
    line_no = 0
    offset = 0
    for chunk in _raw_chunks(path):
        buf += chunk
        start = 0
        while (end := buf.find(b"\n", start)) >= 0:
            line_no += 1
            yield line_no, offset, buf[start:end]
            offset += end + 1 - start
            start = end + 1
        buf = buf[start:]
    if buf:
        line_no += 1
        yield line_no, offset, buf


def _parse(line: bytes, require_text: bool = True) -> JsonDict:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"invalid UTF-8 at byte {exc.start} of the line") from None
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(f"a record must be a JSON object, got {type(value).__name__}")
    if require_text and not isinstance(value.get("text"), str):
        raise ValueError('a record needs a string field "text"')
    return value


class RecordReader:
    """Iterate the records of one jsonl / jsonl.zst file.

    strict=True raises RecordError on the first corrupt line; strict=False writes each corrupt
    line to ``rejects`` (a jsonl path, if given) with file, line, offset and reason, counts it in
    ``stats.quarantined`` and goes on. A truncated zstd frame always ends the file: what was
    decoded before it is yielded, then the error is raised (strict) or counted (not strict).
    """

    def __init__(self, path: str | os.PathLike, *, strict: bool = True,
                 rejects: str | os.PathLike | RecordWriter | None = None, require_text: bool = True):
        self.path = Path(path)
        self.require_text = require_text
        self.strict = strict
        # An open RecordWriter collects the rejects of several files; the caller closes it.
        self._shared_rejects = rejects if isinstance(rejects, RecordWriter) else None
        self.rejects_path = Path(rejects) if rejects and self._shared_rejects is None else None
        self.stats = ReadStats()
        self._rejects: RecordWriter | None = self._shared_rejects

    def __iter__(self) -> Iterator[Record]:
        if not self.path.exists():
            raise RecordError(self.path, None, None, "no such file")
        try:
            for line_no, offset, line in iter_lines(self.path):
                self.stats.lines += 1
                self.stats.bytes += len(line) + 1
                if not line.strip():
                    continue
                try:
                    record = _parse(line, self.require_text)
                except ValueError as exc:
                    self._reject(line_no, offset, str(exc), line)
                    continue
                self.stats.records += 1
                yield record
        except RecordError as exc:
            if self.strict:
                raise
            self._reject(None, exc.offset, exc.problem, b"")
        finally:
            if self._rejects is not None and self._rejects is not self._shared_rejects:
                self._rejects.close()
                self._rejects = None

    def _reject(self, line_no: int | None, offset: int | None, problem: str, raw: bytes) -> None:
        if self.strict:
            raise RecordError(self.path, line_no, offset, problem)
        self.stats.quarantined += 1
        if self._rejects is None and self.rejects_path is None:
            return
        if self._rejects is None:
            self._rejects = RecordWriter(self.rejects_path, validate=False)
        self._rejects.write({
            "file": str(self.path), "line": line_no, "offset": offset, "reason": problem,
            "raw_b64": base64.b64encode(raw).decode("ascii"),
        })


def read_records(path: str | os.PathLike, *, strict: bool = True, rejects: str | os.PathLike | None = None,
                 require_text: bool = True) -> Iterator[Record]:
    """Stream the records of one file (see RecordReader)."""
    return iter(RecordReader(path, strict=strict, rejects=rejects, require_text=require_text))


def shard_paths(folder: str | os.PathLike, pattern: str = "*.jsonl*") -> list[Path]:
    """The shard files of a folder (recursively), in sorted order; temp files never match."""
    folder = Path(folder)
    if folder.is_file():
        return [folder]
    return sorted(p for p in folder.rglob(pattern)
                  if p.is_file() and not p.name.startswith(".") and p.suffix in (".jsonl", ".zst", ".zstd"))


def input_shards(src_dir: Path) -> list[Path]:
    """Record shards below ``src_dir``, sorted, leaving out a previous stage's ``rejects/``."""
    src_dir = Path(src_dir)
    if src_dir.is_file():
        return [src_dir]
    return [p for p in shard_paths(src_dir) if "rejects" not in p.relative_to(src_dir).parts[:-1]]


def relative_name(shard: Path, src_dir: Path) -> str:
    src_dir = Path(src_dir)
    return shard.name if src_dir.is_file() else shard.relative_to(src_dir).as_posix()


def read_folder(folder: str | os.PathLike, *, strict: bool = True) -> Iterator[Record]:
    """Stream every record of every shard below a folder, shards in sorted order."""
    for path in shard_paths(folder):
        yield from read_records(path, strict=strict)


# ---------------------------------------------------------------------------------------------
# Writing


@dataclass
class WriteStats:
    records: int = 0
    bytes: int = 0  # uncompressed
    path: str = ""
    extra: dict = field(default_factory=dict)


def dumps(record: Record) -> bytes:
    return orjson.dumps(record) + b"\n"


class RecordWriter:
    """Atomic writer of one jsonl / jsonl.zst file. Use as a context manager.

    Bytes go to a hidden temporary file in the target's folder; ``close()`` flushes, fsyncs and
    renames it to the final name (and fsyncs the folder). If the block raises, the temporary file
    is removed and the target is left as it was. zstd output uses the multi-threaded compressor
    with at least one worker so the bytes are the same for any ``threads`` value.
    """

    def __init__(self, path: str | os.PathLike, *, level: int = 3, threads: int = 1,
                 validate: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.validate = validate
        self.stats = WriteStats(path=str(self.path))
        fd, self._tmp = temp_beside(self.path)
        self._fh = os.fdopen(fd, "wb")
        self._closed = False
        compress = is_zstd(self.path)
        if compress:
            cctx = zstandard.ZstdCompressor(level=level, threads=max(1, threads))
            self._out = cctx.stream_writer(self._fh, closefd=False)
        else:
            self._out = self._fh

    def write(self, record: Record) -> None:
        if self.validate and not isinstance(record.get("text"), str):
            raise ValueError(f'{self.path}: record without a string "text" field')
        data = dumps(record)
        self._out.write(data)
        self.stats.records += 1
        self.stats.bytes += len(data)

    def write_lines(self, chunks: Iterable[bytes], records: int) -> None:
        """``records`` records already serialised by ``dumps`` (and checked when they were), as they are."""
        for data in chunks:
            self._out.write(data)
            self.stats.bytes += len(data)
        self.stats.records += records

    def write_all(self, records: Iterable[Record]) -> WriteStats:
        for record in records:
            self.write(record)
        return self.stats

    def close(self) -> WriteStats:
        if self._closed:
            return self.stats
        try:
            if self._out is not self._fh:
                self._out.flush(zstandard.FLUSH_FRAME)
                self._out.close()
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            os.replace(self._tmp, self.path)
        except BaseException:  # a full disk fails here, at the flush: the temporary file goes too
            self.abort()
            raise
        self._closed = True
        _fsync_dir(self.path.parent)
        return self.stats

    def abort(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._fh.close()  # closes the descriptor even when flushing its buffer fails
        except OSError:
            pass
        finally:
            self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_records(path: str | os.PathLike, records: Iterable[Record], *, level: int = 3,
                  threads: int = 1, validate: bool = True) -> WriteStats:
    """Write records atomically to one file; returns counts of records and uncompressed bytes."""
    with RecordWriter(path, level=level, threads=threads, validate=validate) as writer:
        writer.write_all(records)
    return writer.stats


@contextmanager
def _atomic(path: str | os.PathLike, durable: bool = True) -> Iterator[BinaryIO]:
    """A file written beside ``path`` and renamed onto it when the block ends (removed if it fails)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        _fsync_dir(path.parent)


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, durable: bool = True) -> None:
    """Write a small file (manifest, ledger, params) atomically. ``durable=False``: without the
    fsyncs, for a cache entry that a crash may lose (readers still see the whole file or none)."""
    with _atomic(path, durable) as fh:
        fh.write(data)


def json_bytes(value: Any) -> bytes:
    """Compact JSON as bytes of their own size, for values held by the thousand: orjson's result
    keeps its whole 4 KB output buffer, so a million small encodings would hold 4 GB."""
    return bytes(memoryview(orjson.dumps(value)))


def write_json(path: str | os.PathLike, value: Any) -> None:
    """Pretty, key-sorted JSON written atomically (manifests, ledgers: stable bytes for hashing)."""
    atomic_write_bytes(path, orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")


def write_json_pairs(path: str | os.PathLike, pairs: Iterable[tuple[str, Any]]) -> None:
    """A JSON object from ``(key, value)`` pairs in sorted key order, written as they come (never
    the whole object in memory): the bytes ``write_json`` gives the same dict, written atomically."""
    with _atomic(path) as fh:
        fh.write(b"{")
        first = True
        for key, value in pairs:
            body = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).replace(b"\n", b"\n  ")
            fh.write(b"%s\n  %s: %s" % (b"" if first else b",", orjson.dumps(key), body))
            first = False
        fh.write(b"}\n" if first else b"\n}\n")


def read_json(path: str | os.PathLike) -> Any:
    try:
        return orjson.loads(Path(path).read_bytes())
    except FileNotFoundError:
        raise RecordError(path, None, None, "no such file") from None
    except orjson.JSONDecodeError as exc:
        raise RecordError(path, None, None, f"invalid JSON: {exc}") from None

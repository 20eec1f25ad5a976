"""Write one split of a dataset as Pile-style jsonl.zst shards of a target size.

A split is shuffled by a hash of each document copy's id (as the Pile's shards are shuffled), so
its bytes depend only on which documents it holds and on the params: not on the order or the
sharding of the sources, nor on the worker count. Spilling to key-range buckets keeps memory to
one bucket. Without shuffling, sources are read in sorted order and repeated training documents
are written pass by pass, every second copy after all first copies.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import zstandard

from quarry.datasets.composition import Composition
from quarry.datasets.attribution import Credits
from quarry.datasets.mixture import Mixture
from quarry.splits import subset_of
from quarry.errors import RecordError
from quarry.ledger import Ledger
from quarry.records import JsonDict, Record, RecordWriter, read_records

STAGE = "assemble"
ORDER_SALT = "quarry-order-v1"


def shard_name(index: int) -> str:
    return f"part-{index:05d}.jsonl.zst"


class RollingWriter:
    """Writes part-00000.jsonl.zst, part-00001... starting a new shard past ``target_bytes``."""

    def __init__(self, folder: Path, target_bytes: int, level: int, threads: int):
        self.folder, self.target_bytes, self.level, self.threads = folder, target_bytes, level, threads
        self.files: list[JsonDict] = []
        self._writer: RecordWriter | None = None

    def write(self, record: Record) -> None:
        if self._writer is None:
            path = self.folder / shard_name(len(self.files))
            self._writer = RecordWriter(path, level=self.level, threads=self.threads)
        self._writer.write(record)
        if self._writer.stats.bytes >= self.target_bytes:
            self._finish()

    def _finish(self) -> None:
        stats = self._writer.close()
        self.files.append({"path": f"{self.folder.name}/{Path(stats.path).name}",
                           "records": stats.records, "bytes": stats.bytes})
        self._writer = None

    def close(self) -> list[JsonDict]:
        if self._writer is not None:
            self._finish()
        return self.files

    def abort(self) -> None:
        if self._writer is not None:
            self._writer.abort()
            self._writer = None


def prepare(record: Record, split: str, subset: str) -> JsonDict:
    """The record as released: meta gains its split, subset and UTF-8 byte count."""
    meta = dict(record.get("meta") or {})
    meta["pile_set_name"] = subset
    meta["split"] = split
    meta["bytes"] = len(record["text"].encode("utf-8"))
    return {**record, "meta": meta}


def order_key(doc_id: str, copy: int) -> int:
    """A document copy's place in a shuffled split: a hash of its id, so the order never depends
    on how the sources were sharded."""
    digest = hashlib.sha256(f"{ORDER_SALT}\0{doc_id}\0{copy}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class ShuffleBuffer:
    """Spill records into bucket files by key range, then read them back in key order.

    Each bucket holds about 1/``buckets`` of the split, so memory is bounded by one bucket while
    the output is globally sorted by key. Buckets are scratch files: no fsync, removed after use."""

    def __init__(self, folder: Path, buckets: int):
        self.folder, self.buckets = folder, max(1, buckets)
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        self._files: dict[int, Any] = {}

    def _path(self, bucket: int) -> Path:
        return self.folder / f"{bucket:05d}.jsonl.zst"

    def add(self, record: Record, key: int) -> None:
        bucket = key * self.buckets >> 64
        if bucket not in self._files:
            # one compressor per stream: a zstd context cannot interleave two streams
            compressor = zstandard.ZstdCompressor(level=1)
            self._files[bucket] = compressor.stream_writer(open(self._path(bucket), "wb"))
        self._files[bucket].write(orjson.dumps({"key": key, "record": record}) + b"\n")

    def __iter__(self) -> Iterator[Record]:
        self._close()
        try:
            for bucket in sorted(self._files):
                rows = list(read_records(self._path(bucket), require_text=False))
                rows.sort(key=lambda row: (row["key"], orjson.dumps(row["record"])))
                for row in rows:
                    yield row["record"]
        finally:
            self.discard()

    def _close(self) -> None:
        for stream in self._files.values():
            if not stream.closed:
                stream.close()

    def discard(self) -> None:
        self._close()
        self._files = {}
        shutil.rmtree(self.folder, ignore_errors=True)


def _documents(sources: list[Path], split: str, mixture: Mixture, ledger: Ledger | None,
               on_source: Callable[[Path], None] | None) -> Iterator[tuple[JsonDict, int]]:
    """(record as released, copies) for every document of ``split``; counted in ``ledger`` if given."""
    for source in sources:
        for record in read_records(source):
            doc_id = (record.get("meta") or {}).get("id")
            if not doc_id:
                raise RecordError(source, None, None, "record without meta.id (needed for its split)")
            if mixture.split(doc_id) != split:
                continue
            subset = subset_of(record)
            copies = mixture.copies(doc_id, subset, split)
            if ledger is not None:
                ledger.seen()
                if copies == 0:
                    ledger.drop(record, "not sampled by the mixture")
                    continue
                ledger.keep()
            if copies:
                yield prepare(record, split, subset), copies
        if on_source is not None:
            on_source(source)


def write_split(sources: list[Path], out_dir: Path, split: str, mixture: Mixture, *,
                shard_bytes: int, level: int = 3, threads: int = 1, tokenizer=None, shuffle: bool = True,
                shuffle_buckets: int = 64, on_source: Callable[[Path], None] | None = None) -> JsonDict:
    """Write ``out_dir/<split>/part-*.jsonl.zst`` from every source shard; returns the split's
    files, composition and ledger (documents of other splits are not counted here).

    shuffle=True orders the split by a hash of (id, copy): the bytes then depend only on which
    documents there are, not on their order in the sources. shuffle=False keeps source order and
    writes repeats pass by pass: every second copy after all first copies."""
    ledger = Ledger(STAGE)
    ledger.rejects = RecordWriter(out_dir / "rejects" / f"{split}.jsonl.zst", level=level, validate=False)
    composition = Composition(with_tokens=tokenizer is not None)
    credits = Credits()
    writer = RollingWriter(out_dir / split, shard_bytes, level, threads)
    buffer = ShuffleBuffer(out_dir / f".shuffle-{split}", shuffle_buckets) if shuffle else None

    def emit(record: Record) -> None:
        writer.write(record)
        composition.add(record, len(tokenizer.encode(record["text"])) if tokenizer is not None else None)

    try:
        for record, copies in _documents(sources, split, mixture, ledger, on_source):
            credits.add(record)
            if buffer is not None:
                for copy in range(copies):
                    buffer.add(record, order_key(record["meta"]["id"], copy))
            else:
                emit(record)
        if buffer is not None:
            for record in buffer:
                emit(record)
        else:
            for pass_no in range(1, mixture.max_copies if split == "train" else 1):
                for record, copies in _documents(sources, split, mixture, None, on_source):
                    if copies > pass_no:
                        emit(record)
        files = writer.close()
    except BaseException:
        writer.abort()
        ledger.rejects.abort()
        if buffer is not None:
            buffer.discard()
        raise
    ledger.rejects.close()
    ledger.rejects = None
    return {"split": split, "files": files, "composition": composition.to_dict(), "ledger": ledger.to_dict(),
            "credits": credits.to_dict()}

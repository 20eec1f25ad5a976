"""Write one split of a dataset as Pile-style jsonl.zst shards of a target size.

Sources are read in sorted order and records keep their order, so the bytes depend only on the
inputs and the params. Repeated training documents (epochs > 1) are written pass by pass: the
second copy of every document comes after the first copy of all of them, never next to it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from quarry.datasets.composition import Composition
from quarry.datasets.mixture import Mixture, subset_of
from quarry.errors import RecordError
from quarry.ledger import Ledger
from quarry.records import RecordWriter, read_records

STAGE = "assemble"


def shard_name(index: int) -> str:
    return f"part-{index:05d}.jsonl.zst"


class RollingWriter:
    """Writes part-00000.jsonl.zst, part-00001... starting a new shard past ``target_bytes``."""

    def __init__(self, folder: Path, target_bytes: int, level: int, threads: int):
        self.folder, self.target_bytes, self.level, self.threads = folder, target_bytes, level, threads
        self.files: list[dict[str, Any]] = []
        self._writer: RecordWriter | None = None

    def write(self, record: dict[str, Any]) -> None:
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

    def close(self) -> list[dict[str, Any]]:
        if self._writer is not None:
            self._finish()
        return self.files

    def abort(self) -> None:
        if self._writer is not None:
            self._writer.abort()
            self._writer = None


def prepare(record: dict[str, Any], split: str, subset: str) -> dict[str, Any]:
    """The record as released: meta gains its split, subset and UTF-8 byte count."""
    meta = dict(record.get("meta") or {})
    meta["pile_set_name"] = subset
    meta["split"] = split
    meta["bytes"] = len(record["text"].encode("utf-8"))
    return {**record, "meta": meta}


def write_split(sources: list[Path], out_dir: Path, split: str, mixture: Mixture, *,
                shard_bytes: int, level: int = 3, threads: int = 1, tokenizer=None,
                on_source: Callable[[Path], None] | None = None) -> dict[str, Any]:
    """Write ``out_dir/<split>/part-*.jsonl.zst`` from every source shard; returns the split's
    files, composition and ledger (documents of other splits are not counted here)."""
    ledger = Ledger(STAGE)
    ledger.rejects = RecordWriter(out_dir / "rejects" / f"{split}.jsonl.zst", level=level, validate=False)
    composition = Composition(with_tokens=tokenizer is not None)
    writer = RollingWriter(out_dir / split, shard_bytes, level, threads)
    passes = mixture.max_copies if split == "train" else 1
    try:
        for pass_no in range(passes):
            for source in sources:
                for record in read_records(source):
                    doc_id = (record.get("meta") or {}).get("id")
                    if not doc_id:
                        raise RecordError(source, None, None, "record without meta.id (needed for its split)")
                    if mixture.split(doc_id) != split:
                        continue
                    subset = subset_of(record)
                    copies = mixture.copies(doc_id, subset, split)
                    if pass_no == 0:
                        ledger.seen()
                        if copies == 0:
                            ledger.drop(record, "not sampled by the mixture")
                            continue
                        ledger.keep()
                    if copies <= pass_no:
                        continue
                    released = prepare(record, split, subset)
                    writer.write(released)
                    tokens = len(tokenizer.encode(released["text"])) if tokenizer is not None else None
                    composition.add(released, tokens)
                if on_source is not None:
                    on_source(source)
        files = writer.close()
    except BaseException:
        writer.abort()
        ledger.rejects.abort()
        raise
    ledger.rejects.close()
    ledger.rejects = None
    return {"split": split, "files": files, "composition": composition.to_dict(), "ledger": ledger.to_dict()}

"""The PII stage: redact every record of every shard; count what was found, never drop.

``redact_shard`` is the pure per-shard function of the stage (quarry.stages.pii, which ``quarry pii
redact`` runs on shards). Each record gets ``meta.pii`` (counts per type, added to any counts
already there, so a second pass is a no-op); the ledger counts changed records by
type. Values are never written anywhere: a report holds offsets and a hash at most.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from quarry.ledger import Ledger
from quarry.curation.pii.engine import DEFAULT, PiiConfig, detect
from quarry.curation.pii.redact import redact
from quarry.records import JsonDict, Record, input_shards, read_records
from quarry.curation.pii.files import holds_shards, iter_documents
from quarry.curation.steps import run_step_on_shard

STAGE = "pii"


class PiiRedactor:
    """A Step (quarry.curation.steps) that redacts one record and remembers which types it changed."""

    name = STAGE

    def __init__(self, config: PiiConfig):
        self.config = config
        self.changed_records: Counter = Counter()

    def apply(self, record: Record) -> JsonDict:
        text = record["text"]
        meta = dict(record.get("meta") or {})
        counts = Counter(meta.get("pii") or {})
        text, found = redact(text, self.config)
        if found:
            counts.update(found)
            self.changed_records.update(found.keys())
            if "bytes" in meta:
                meta["bytes"] = len(text.encode("utf-8"))
        meta["pii"] = dict(sorted(counts.items()))
        return {**record, "text": text, "meta": meta}


def redact_shard(src: str | os.PathLike, dst: str | os.PathLike, config: PiiConfig = DEFAULT,
                 *, rejects: str | os.PathLike | None = None, level: int = 3) -> Ledger:
    """Redact one shard into ``dst``; the ledger's ``changed`` counts records per PII type."""
    step = PiiRedactor(config)
    ledger = run_step_on_shard(step, src, dst, rejects=rejects, level=level)
    ledger.changed.update(step.changed_records)
    return ledger


# ---------------------------------------------------------------------------------------------
# Scan (report only)


def value_digest(value: str) -> str:
    """What a report may say about a found value: a short sha256, never the value."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:16]


def scan_text(text: str, config: PiiConfig, **where: Any) -> Iterator[JsonDict]:
    for f in detect(text, config):
        yield {**where, "type": f.type, "kind": f.kind, "start": f.start, "end": f.end,
               "confidence": f.confidence, "sha256": value_digest(text[f.start:f.end])}


def scan_path(path: Path, config: PiiConfig) -> Iterator[JsonDict]:
    """Findings of every record of the shards under ``path``; a source file, or a folder without
    shards, is read as files, each one document."""
    path = Path(path)
    if holds_shards(path):
        for shard in input_shards(path):
            for index, record in enumerate(read_records(shard)):
                yield from scan_text(record["text"], config, file=str(shard), record=index,
                                     id=(record.get("meta") or {}).get("id"))
        return
    for file, text in iter_documents(path):
        yield from scan_text(text, config, file=str(file))

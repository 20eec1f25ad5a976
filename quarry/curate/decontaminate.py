"""Decontamination: drop or flag training documents that share a long word n-gram with an
evaluation item (13 words by default, as GPT-3 did).

Evaluation items are the dataset's own held-out test split (membership by
``quarry.splits.split_of(meta.id, assemble.splits)``) plus any files named in params. Words are
lower-cased and punctuation-free (quarry.dedup.shingles), so whitespace, case and punctuation
edits do not hide an overlap; any intact 13-word window does not hide either. N-grams found in
many evaluation items or in many training documents (licence headers, generated-file banners)
say nothing about leakage and are ignored: so one pass over the shards finds every overlap,
a global step counts each n-gram's training documents and decides, and a second pass writes.

    run_decontaminate(src_dir, dst_dir, params, workers=N)

writes the shards, ``ledger.json``, rejects, and ``decontamination.json``: every matched
document with the evaluation items it overlaps, the number of shared n-grams and one example.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from quarry.engine.run import run_local
from quarry.dedup.shingles import ngram_hashes, sorted_unique, word_hashes, words
from quarry.errors import ConfigError
from quarry.ledger import Ledger
from quarry.records import read_records
from quarry.stage import shard_output
from quarry.splits import DEFAULT_FRACTIONS, split_of

STAGE = "decontaminate"
REPORT = "decontamination.json"


@dataclass(frozen=True)
class DecontaminationConfig:
    ngram: int = 13
    action: str = "drop"                     # drop | flag
    test_split: str | None = "test"          # the dataset's own held-out split; null: none
    eval_files: tuple[str, ...] = ()         # extra jsonl / jsonl.zst ("text") or .txt files
    max_item_frequency: int = 10             # an n-gram in more eval items than this is boilerplate
    min_item_words: int = 8                  # an item shorter than ngram but this long matches as
                                             # one whole-item window; shorter ones are skipped
    max_train_documents: int = 10            # ... and one in more training documents than this
    min_matches: int = 1                     # shared n-grams needed to call a document contaminated
    fractions: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_FRACTIONS))

    @classmethod
    def from_params(cls, params: dict[str, Any] | None) -> DecontaminationConfig:
        params = params or {}
        section = dict(params.get(STAGE) or {})
        known = set(cls.__dataclass_fields__) - {"fractions"}
        unknown = sorted(set(section) - known)
        if unknown:
            raise ConfigError(f"params: unknown key(s) under decontaminate: {', '.join(unknown)}; "
                              f"valid keys: {', '.join(sorted(known))}")
        section["eval_files"] = tuple(section.get("eval_files") or ())
        fractions = (params.get("assemble") or {}).get("splits") or DEFAULT_FRACTIONS
        config = cls(**section, fractions=dict(fractions))
        if not 1 <= config.ngram <= 64:
            raise ConfigError(f"params: decontaminate.ngram must be between 1 and 64, got {config.ngram}")
        if config.action not in ("drop", "flag"):
            raise ConfigError(f"params: decontaminate.action must be 'drop' or 'flag', got {config.action!r}")
        if config.test_split is not None and config.test_split not in config.fractions:
            raise ConfigError(f"params: decontaminate.test_split {config.test_split!r} is not a split of "
                              f"assemble.splits ({', '.join(config.fractions)})")
        return config

    def is_eval(self, record: dict[str, Any]) -> bool:
        meta = record.get("meta")
        doc_id = meta.get("id") if isinstance(meta, dict) else None
        return self.test_split is not None and doc_id is not None \
            and split_of(doc_id, self.fractions) == self.test_split


Item = tuple[str, np.ndarray, int]  # (label, distinct n-gram hashes, window length in words)


def item_ngrams(text: str, config: DecontaminationConfig) -> tuple[np.ndarray, int]:
    """The item's distinct ``ngram``-word windows; an item shorter than that (but not shorter than
    ``min_item_words``) is one window of its own length. Window 0: too short to check."""
    hashes = word_hashes(text)
    window = min(config.ngram, len(hashes))
    if window < min(config.ngram, config.min_item_words):
        return np.empty(0, dtype=np.uint64), 0
    return sorted_unique(ngram_hashes(hashes, window)), window


# ---------------------------------------------------------------------------------------------
# Evaluation index


def test_split_items(src: str, config: DecontaminationConfig) -> list[Item]:
    return [(f"test:{r['meta']['id']}", *item_ngrams(r["text"], config))
            for r in read_records(src) if config.is_eval(r)]


def resolve_eval_file(name: str | Path) -> Path:
    """A path as given, or else relative to the project root (where params.yaml lives)."""
    from quarry.paths import project_root

    path = Path(name)
    return path if path.is_absolute() or path.exists() else project_root() / path


def eval_file_items(path: Path, config: DecontaminationConfig) -> list[Item]:
    if not path.exists():
        raise ConfigError(f"{path}: evaluation file named in decontaminate.eval_files does not exist")
    if path.suffix == ".txt":
        return [(f"{path.name}", *item_ngrams(path.read_text(encoding="utf-8"), config))]
    items = []
    for line, record in enumerate(read_records(path), start=1):
        label = (record.get("meta") or {}).get("id") or record.get("id") or f"line {line}"
        items.append((f"{path.name}:{label}", *item_ngrams(record["text"], config)))
    return items


@dataclass
class EvalIndex:
    hashes: np.ndarray          # sorted unique n-gram hashes of the evaluation items
    item_of: np.ndarray         # for each hash, the first item (by label order) that has it
    labels: list[str]
    windows: list[int]          # the window lengths in use (ngram, and those of short items)
    ignored_common: int = 0
    short_items: int = 0

    @classmethod
    def build(cls, items: list[Item], config: DecontaminationConfig) -> EvalIndex:
        items = sorted(items, key=lambda item: item[0])
        labels = [label for label, _, _ in items]
        windows = sorted({window for _, _, window in items if window})
        short = sum(1 for _, _, window in items if window == 0)
        if not windows:
            return cls(np.empty(0, np.uint64), np.empty(0, np.int64), labels, windows, 0, short)
        grams = np.concatenate([g for _, g, _ in items])
        owners = np.concatenate([np.full(len(g), i, dtype=np.int64) for i, (_, g, _) in enumerate(items)])
        order = np.lexsort((owners, grams))
        grams, owners = grams[order], owners[order]
        starts = np.flatnonzero(np.r_[True, grams[1:] != grams[:-1]])
        counts = np.diff(np.r_[starts, len(grams)])  # items per n-gram (n-grams are unique per item)
        common = counts > config.max_item_frequency
        keep = starts[~common]
        return cls(grams[keep], owners[keep], labels, windows, int(common.sum()), short)

    def save(self, folder: Path) -> None:
        np.save(folder / "hashes.npy", self.hashes)
        np.save(folder / "items.npy", self.item_of)
        (folder / "labels.json").write_bytes(orjson.dumps({"labels": self.labels, "windows": self.windows}))

    @classmethod
    def load(cls, folder: Path) -> EvalIndex:
        names = orjson.loads((folder / "labels.json").read_bytes())
        return cls(np.load(folder / "hashes.npy"), np.load(folder / "items.npy"), names["labels"], names["windows"])

    def matches(self, grams: np.ndarray) -> np.ndarray:
        """Positions in ``grams`` whose hash is an evaluation n-gram."""
        if len(self.hashes) == 0 or len(grams) == 0:
            return np.empty(0, dtype=np.int64)
        where = np.searchsorted(self.hashes, grams)
        where[where == len(self.hashes)] = 0
        return np.flatnonzero(self.hashes[where] == grams)


# ---------------------------------------------------------------------------------------------
# Per shard: find the overlaps, decide once over all shards, then write


@dataclass
class ShardHits:
    """What the training documents of one shard share with the evaluation index."""

    counts: np.ndarray                                   # per index n-gram: documents containing it
    rows: dict[int, list[tuple[int, int, int]]]          # row -> [(index position, word offset, window)]


def scan_shard(src: Path, index: EvalIndex, config: DecontaminationConfig) -> ShardHits:
    counts = np.zeros(len(index.hashes), dtype=np.int64)
    rows: dict[int, list[tuple[int, int, int]]] = {}
    for row, record in enumerate(read_records(src)):
        if config.is_eval(record):
            continue
        hashes = word_hashes(record["text"])
        found: dict[int, tuple[int, int]] = {}
        for window in index.windows:
            grams = ngram_hashes(hashes, window)
            hits = index.matches(grams)
            positions = np.searchsorted(index.hashes, grams[hits])
            for position, offset in zip(positions.tolist(), hits.tolist(), strict=True):
                found.setdefault(position, (offset, window))
        if found:
            counts[list(found)] += 1
            rows[row] = sorted((position, offset, window) for position, (offset, window) in found.items())
    return ShardHits(counts, rows)


def decide(shards: list[ShardHits], index: EvalIndex, config: DecontaminationConfig) -> tuple[list[dict], int]:
    """Per shard, row -> {items, ngrams, at}; n-grams found in more than ``max_train_documents``
    training documents (licence headers, generated-file banners) are boilerplate, not leakage."""
    total = np.zeros(len(index.hashes), dtype=np.int64)
    for hits in shards:
        total += hits.counts
    common = total > config.max_train_documents
    decisions = []
    for hits in shards:
        local = {}
        for row, found in hits.rows.items():
            kept = [(offset, window, position) for position, offset, window in found if not common[position]]
            if len(kept) < max(1, config.min_matches):
                continue
            items = sorted({index.labels[index.item_of[position]] for _, _, position in kept})
            offset, window, _ = min(kept)
            local[row] = {"items": items, "ngrams": len(kept), "at": [offset, window]}
        decisions.append(local)
    return decisions, int(common.sum())


def apply_shard(src: Path, dst: Path, decisions: dict[int, dict], config: DecontaminationConfig, *,
                rejects: Path | None = None, level: int = 3) -> tuple[Ledger, list[dict]]:
    """Drop (or flag) the decided documents of one shard; returns its ledger and matches."""
    found: list[dict] = []
    with shard_output(STAGE, dst, rejects=rejects, level=level) as (ledger, out):
        for row, record in enumerate(read_records(src)):
            ledger.seen()
            decision = decisions.get(row)
            if decision is not None:
                offset, window = decision["at"]
                if not isinstance(record.get("meta"), dict):
                    record["meta"] = {}
                meta = record["meta"]
                example = b" ".join(words(record["text"])[offset:offset + window]).decode("utf-8", "replace")
                found.append({"id": meta.get("id"), "path": meta.get("path"), "items": decision["items"],
                              "ngrams": decision["ngrams"], "example": example})
                if config.action == "drop":
                    ledger.drop(record, "contaminated", items=decision["items"], ngrams=decision["ngrams"])
                    continue
                meta["contamination"] = {"items": decision["items"], "ngrams": decision["ngrams"]}
                ledger.change("contamination_flagged")
            out.write(record)
            ledger.keep()
    return ledger, found


def run_decontaminate(src_dir: Path, dst_dir: Path, params: dict[str, Any] | None, *,
                      workers: int = 1) -> dict[str, Any]:
    """The stage (quarry.stages.decontaminate) on local processes; returns its ledger."""
    from quarry.stages.decontaminate import DECONTAMINATE

    return run_local(DECONTAMINATE, src_dir, dst_dir, params, workers=workers)

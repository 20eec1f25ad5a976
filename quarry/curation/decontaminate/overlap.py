"""Decontamination: drop or flag training documents that share long word n-grams with an
evaluation item (13 words by default, as GPT-3 did).

Evaluation items are the dataset's own held-out test split (membership by a hash of meta.id,
stratified by subset: quarry.splits), when asked for, plus named benchmark files.
Text is normalised first (quarry.curation.decontaminate.overlap_text: JSON escapes, code fences, HTML entities),
then compared as lower-cased, punctuation-free words, so re-indenting, re-quoting or pasting an
item into markdown or a JSON dump does not hide it. What says nothing about leakage is found from
the corpus: n-grams inside licence headers and notices, n-grams in many evaluation items, and
n-grams in many training documents. The evidence needed differs by source:

- a named benchmark item is matched by a single shared n-gram (also of its code-only variant,
  without docstrings and comments);
- an item of the own test split, itself a corpus file, needs ``own_min_ngrams`` distinct shared
  n-grams and ``own_min_share`` of its own n-grams: evidence proportional to its size, so common
  snippets of one organisation do not remove half its files.

Phases: per shard, the test-split items and the split census (``test_split_items``); once, the
stratified splits and the index (``EvalIndex.build``); per shard, the overlaps (``scan_shard``);
once, how common each index n-gram is in training (``TrainCounts``, ``Verdicts``: the size of the
index, whatever the size of the corpus); per shard, the decision (``decide_shard``) and drop or
flag (``apply_shard``). The stage (quarry.stages.decontaminate) writes the shards,
``ledger.json``, rejects, and ``decontamination.json``: where the items came from and every
matched document with the items it overlaps, the evidence and one example.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import numpy as np
import orjson

from quarry.config import Params, as_params
from quarry.config.curation import DecontaminateParams
from quarry.config.datasets import StratifyParams
from quarry.curation.decontaminate.eval_sources import eval_items
from quarry.curation.decontaminate.overlap_text import code_only, normalize, notice_words
from quarry.curation.dedup.shingles import ngram_hashes, sorted_unique, word_hashes, words
from quarry.errors import ConfigError
from quarry.ledger import Ledger
from quarry.records import JsonDict, Record, read_records
from quarry.curation.steps import shard_output
from quarry.splits import DEFAULT_FRACTIONS, SplitCensus, Splits, doc_id_of, document_of, moved_where

STAGE = "decontaminate"
REPORT = "decontamination.json"
TEST_SOURCE = "test split"


class DecontaminationConfig(DecontaminateParams):
    """The ``decontaminate`` section (fields and defaults: quarry.config.curation) plus
    ``assemble.splits`` and ``assemble.stratify``, which say which documents form the test split."""

    fractions: dict[str, float] = DEFAULT_FRACTIONS
    stratify: StratifyParams = StratifyParams()

    @classmethod
    def from_params(cls, params: Params | Mapping[str, Any] | None = None) -> DecontaminationConfig:
        """From the ``decontaminate`` section and ``assemble.splits`` of the typed params (or of a
        mapping shaped like params.yaml)."""
        params = as_params(params)
        return cls(**dict(params.decontaminate), fractions=dict(params.assemble.splits),
                   stratify=params.assemble.stratify).checked()

    def checked(self) -> DecontaminationConfig:
        if self.test_split is not None and self.test_split not in self.fractions:
            raise ConfigError(f"params: decontaminate.test_split {self.test_split!r} is not a split of "
                              f"assemble.splits ({', '.join(self.fractions)})")
        return self

    def with_overrides(self, **overrides: Any) -> DecontaminationConfig:
        """The same settings with command-line values (those not None) in place."""
        given = {key: value for key, value in overrides.items() if value is not None}
        if given.get("test_split") in ("", "none", "null"):
            given["test_split"] = None
        if "eval_files" in given:
            given["eval_files"] = self.eval_files + tuple(str(p) for p in given["eval_files"])
        return self.model_validate({**self.model_dump(), **given}).checked()

    def is_eval(self, record: Record, splits: Splits) -> bool:
        doc_id = doc_id_of(record)
        return self.test_split is not None and doc_id is not None and splits.of(doc_id) == self.test_split


class Item(NamedTuple):
    label: str
    grams: np.ndarray           # distinct n-gram hashes (of every window length in ``windows``)
    windows: tuple[int, ...]    # () when the item is too short to check
    own: bool                   # from the dataset's own test split (needs proportional evidence)
    source: str                 # where it came from, for the report
    notice_ngrams: int = 0      # n-grams left out because they lie in a licence notice


def _masked_ngrams(hashes: np.ndarray, window: int, masked: list[tuple[int, int]]) -> tuple[np.ndarray, int]:
    """The n-grams of ``window`` words that touch no masked word, and how many were left out."""
    grams = ngram_hashes(hashes, window)
    if not masked or len(grams) == 0:
        return grams, 0
    hit = np.zeros(len(hashes) + 1, dtype=np.int64)
    for start, end in masked:
        hit[start] += 1
        hit[end] -= 1
    covered = np.cumsum(hit)[:len(hashes)] > 0            # word inside a notice
    inside = np.cumsum(np.r_[0, covered.astype(np.int64)])
    touches = inside[window:window + len(grams)] - inside[:len(grams)] > 0
    return grams[~touches], int(touches.sum())


def _text_grams(text: str, window: int, config: DecontaminationConfig) -> tuple[np.ndarray, int]:
    hashes = word_hashes(text)
    return _masked_ngrams(hashes, window, notice_words(text) if config.notices else [])


def item_ngrams(label: str, text: str, config: DecontaminationConfig, *, own: bool, source: str) -> Item:
    """An item's distinct n-grams, licence notices left out. A benchmark item also brings those of
    its code-only variant; one shorter than ``ngram`` words (but not shorter than
    ``min_item_words``) is a window of its own length. Own-split items need full windows."""
    text = normalize(text)
    variants = [text] if own else [text, code_only(text)]
    parts, windows, in_notices = [], set(), 0
    for variant in variants:
        count = len(words(variant))
        window = min(config.ngram, count)
        if window < config.ngram and (own or window < config.min_item_words):
            continue
        grams, masked = _text_grams(variant, window, config)
        in_notices += masked
        if len(grams):
            parts.append(grams)
            windows.add(window)
    grams = sorted_unique(np.concatenate(parts)) if parts else np.empty(0, dtype=np.uint64)
    return Item(label, grams, tuple(sorted(windows)), own, source, in_notices)


# ---------------------------------------------------------------------------------------------
# Evaluation items and their index


def test_split_items(src: str, config: DecontaminationConfig) -> tuple[list[Item], SplitCensus]:
    """The shard's items of the test split by hash, and its split census (to stratify)."""
    by_hash = Splits(config.fractions)
    items, documents = [], []
    for record in read_records(src):
        if (document := document_of(record)) is not None:
            documents.append(document)
        if config.is_eval(record, by_hash):
            items.append(_own_item(record, config))
    return items, SplitCensus.of(documents, config.fractions, config.stratify, where=src)


def moved_test_items(census: SplitCensus, splits: Splits, config: DecontaminationConfig) -> list[Item]:
    """The items of the documents stratification moved into the test split (read from their shards)."""
    moved = {doc_id: split for doc_id, split in splits.moved.items() if split == config.test_split}
    items = []
    for src, ids in sorted(moved_where(census, moved).items()):
        wanted = set(ids)
        items.extend(_own_item(r, config) for r in read_records(src) if doc_id_of(r) in wanted)
    return items


def _own_item(record: Record, config: DecontaminationConfig) -> Item:
    return item_ngrams(f"test:{record['meta']['id']}", record["text"], config, own=True, source=TEST_SOURCE)


def eval_file_items(name: str | Path, config: DecontaminationConfig) -> list[Item]:
    source = str(name)
    return [item_ngrams(label, text, config, own=False, source=source) for label, text in eval_items(name)]


NGRAM_ARRAYS = ("hashes", "starts", "owners")   # an entry (or two) per distinct n-gram of every item


@dataclass
class EvalIndex:
    hashes: np.ndarray          # sorted unique n-gram hashes of the evaluation items
    starts: np.ndarray          # owners of hashes[i]: owners[starts[i]:starts[i + 1]]
    owners: np.ndarray          # item numbers (in label order)
    labels: list[str]
    own: np.ndarray             # per item: from the own test split
    sizes: np.ndarray           # per item: distinct n-grams in the index
    windows: list[int]          # the window lengths in use (ngram, and those of short items)
    sources: dict[str, int] = field(default_factory=dict)
    ignored_common: int = 0
    short_items: int = 0
    ignored_notices: int = 0

    @classmethod
    def build(cls, items: list[Item], config: DecontaminationConfig) -> EvalIndex:
        items = sorted(items, key=lambda item: (item.label, item.source))
        labels = [item.label for item in items]
        own = np.array([item.own for item in items], dtype=bool)
        windows = sorted({w for item in items for w in item.windows})
        sources = dict(sorted(Counter(item.source for item in items).items()))
        short = sum(1 for item in items if not item.windows)
        grams = np.concatenate([item.grams for item in items] or [np.empty(0, np.uint64)])
        owners = np.concatenate([np.full(len(item.grams), i, dtype=np.int64) for i, item in enumerate(items)]
                                or [np.empty(0, np.int64)])
        order = np.lexsort((owners, grams))
        grams, owners = grams[order], owners[order]
        first = np.r_[True, grams[1:] != grams[:-1]] if len(grams) else np.empty(0, bool)
        starts = np.flatnonzero(first)
        counts = np.diff(np.r_[starts, len(grams)])       # items per n-gram (unique per item)
        common = counts > config.max_item_frequency
        keep = np.repeat(~common, counts)
        grams, owners = grams[keep], owners[keep]
        kept_counts = counts[~common]
        starts = np.r_[0, np.cumsum(kept_counts)].astype(np.int64)
        sizes = np.bincount(owners, minlength=len(items)).astype(np.int64)
        return cls(grams[starts[:-1]], starts, owners, labels, own, sizes, windows, sources,
                   int(common.sum()), short, sum(item.notice_ngrams for item in items))

    def save(self, folder: Path) -> None:
        for name in ("hashes", "starts", "owners", "own", "sizes"):
            np.save(folder / f"{name}.npy", getattr(self, name))
        (folder / "labels.json").write_bytes(orjson.dumps({
            "labels": self.labels, "windows": self.windows, "sources": self.sources,
            "ignored_common": self.ignored_common, "short_items": self.short_items,
            "ignored_notices": self.ignored_notices}))

    @classmethod
    def load(cls, folder: Path) -> EvalIndex:
        """Memory-mapped n-gram arrays: the workers of one machine share one copy in the page cache."""
        names = orjson.loads((folder / "labels.json").read_bytes())
        arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r" if name in NGRAM_ARRAYS else None)
                  for name in ("hashes", "starts", "owners", "own", "sizes")}
        return cls(**arrays, **names)

    def matches(self, grams: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(offsets in ``grams``, index positions) of the n-grams that are evaluation n-grams."""
        if len(self.hashes) == 0 or len(grams) == 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        where = np.searchsorted(self.hashes, grams)
        where[where == len(self.hashes)] = 0
        hits = np.flatnonzero(self.hashes[where] == grams)
        return hits, where[hits]

    def items_of(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(position, item) pairs for index positions: an n-gram may belong to several items."""
        counts = self.starts[positions + 1] - self.starts[positions]
        repeated = np.repeat(positions, counts)
        within = np.arange(len(repeated)) - np.repeat(np.cumsum(counts) - counts, counts)
        return repeated, self.owners[self.starts[repeated] + within]


# ---------------------------------------------------------------------------------------------
# Per shard: find the overlaps, decide once over all shards, then write


@dataclass
class ShardHits:
    """What the training documents of one shard share with the evaluation index."""

    positions: np.ndarray                                # index n-grams found in the shard (sorted, unique)
    counts: np.ndarray                                   # ... and how many of its documents contain each
    rows: dict[int, list[tuple[int, int, int]]]          # row -> [(index position, word offset, window)]
    documents: int = 0                                   # training documents scanned
    # Sparse: a shard touches few of the index's n-grams, and a dense count per n-gram and shard
    # would grow with shards x index (gigabytes per shard at 1 TB).


def scan_shard(src: Path, index: EvalIndex, config: DecontaminationConfig, splits: Splits) -> ShardHits:
    rows: dict[int, list[tuple[int, int, int]]] = {}
    documents = 0
    for row, record in enumerate(read_records(src)):
        if config.is_eval(record, splits):
            continue
        documents += 1
        if not index.windows:
            continue
        hashes = word_hashes(normalize(record["text"]))
        found: dict[int, tuple[int, int]] = {}
        for window in index.windows:
            offsets, positions = index.matches(ngram_hashes(hashes, window))
            for position, offset in zip(positions.tolist(), offsets.tolist(), strict=True):
                found.setdefault(position, (offset, window))
        if found:
            rows[row] = sorted((position, offset, window) for position, (offset, window) in found.items())
    # each row lists a position once, so its count is the number of documents holding that n-gram
    found_positions = [position for hits in rows.values() for position, _, _ in hits]
    positions, counts = np.unique(np.array(found_positions, dtype=np.int64), return_counts=True)
    return ShardHits(positions, counts.astype(np.int64), rows, documents)


@dataclass
class TrainCounts:
    """How common each index n-gram is in training, summed one shard's hits at a time: memory
    grows with the index, never with the corpus (each shard's rows stay in its own hits file)."""

    total: np.ndarray            # per index n-gram: training documents holding it
    documents: int = 0           # training documents scanned

    @classmethod
    def of(cls, shards: Iterable[ShardHits], index: EvalIndex) -> TrainCounts:
        counts = cls(np.zeros(len(index.hashes), dtype=np.int64))
        for hits in shards:
            counts.total[hits.positions] += hits.counts
            counts.documents += hits.documents
        return counts

    def merge(self, other: TrainCounts) -> TrainCounts:
        self.total += other.total
        self.documents += other.documents
        return self

    def save(self, path: Path) -> None:
        with open(path, "wb") as fh:
            np.savez(fh, total=self.total, documents=self.documents)

    @classmethod
    def load(cls, path: Path) -> TrainCounts:
        with np.load(path) as saved:
            return cls(saved["total"], int(saved["documents"]))

    def common(self, config: DecontaminationConfig) -> np.ndarray:
        """Per index n-gram and owner: too common in training to count (see the config's caps)."""
        benchmark_cap = max(config.max_train_documents, math.ceil(config.common_share * self.documents))
        return np.stack([self.total > benchmark_cap, self.total > config.max_train_documents])  # [own?][position]


@dataclass
class Verdicts:
    """What every shard's decision needs of the whole corpus: the n-grams too common in training
    and, per item, how many of its n-grams still count."""

    common: np.ndarray          # [own?][index position]
    usable: np.ndarray          # per item
    ignored_common: int         # index n-grams ignored as common in training

    @classmethod
    def of(cls, counts: TrainCounts, index: EvalIndex, config: DecontaminationConfig) -> Verdicts:
        common = counts.common(config)
        positions, owners = index.items_of(np.arange(len(index.hashes)))
        ignored = common[index.own[owners].astype(np.int64), positions]
        usable = index.sizes - np.bincount(owners[ignored], minlength=len(index.labels))
        return cls(common, usable, len(np.unique(positions[ignored])))

    def save(self, path: Path) -> None:
        with open(path, "wb") as fh:
            np.savez(fh, common=self.common, usable=self.usable, ignored_common=self.ignored_common)

    @classmethod
    def load(cls, path: Path) -> Verdicts:
        with np.load(path) as saved:
            return cls(saved["common"], saved["usable"], int(saved["ignored_common"]))


def decide_shard(hits: ShardHits, index: EvalIndex, verdicts: Verdicts, config: DecontaminationConfig) -> dict[int, dict]:
    """row -> {items, ngrams, at, evidence} for the contaminated training documents of one shard."""
    common, usable = verdicts.common, verdicts.usable
    local = {}
    for row, found in hits.rows.items():
        offset_of = {position: (offset, window) for position, offset, window in found}
        pos, items = index.items_of(np.array(sorted(offset_of), dtype=np.int64))
        counted = ~common[index.own[items].astype(np.int64), pos]
        pos, items = pos[counted], items[counted]
        if not len(items):
            continue
        shared = np.bincount(items, minlength=len(index.labels))
        candidates = np.flatnonzero(shared)
        need = np.where(index.own[candidates],
                        np.maximum(np.minimum(config.own_min_ngrams, usable[candidates]),
                                   np.ceil(config.own_min_share * usable[candidates])),
                        max(1, config.min_matches))
        contaminated = candidates[shared[candidates] >= np.maximum(need, 1)]
        if not len(contaminated):
            continue
        evidence_pos = sorted(set(pos[np.isin(items, contaminated)].tolist()))
        offset, window = min(offset_of[p] for p in evidence_pos)
        best = max(contaminated.tolist(), key=lambda i: (shared[i] / max(usable[i], 1), -i))
        local[row] = {"items": sorted(index.labels[i] for i in contaminated), "ngrams": len(evidence_pos),
                      "at": [offset, window],
                      "evidence": {"item": index.labels[best], "shared": int(shared[best]),
                                   "item_ngrams": int(usable[best]), "own_split": bool(index.own[best])}}
    return local


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
                example = b" ".join(words(normalize(record["text"]))[offset:offset + window])
                found.append({"id": meta.get("id"), "path": meta.get("path"), "items": decision["items"],
                              "ngrams": decision["ngrams"], "evidence": decision["evidence"],
                              "example": example.decode("utf-8", "replace")})
                if config.action == "drop":
                    ledger.drop(record, "contaminated", items=decision["items"], ngrams=decision["ngrams"])
                    continue
                meta["contamination"] = {"items": decision["items"], "ngrams": decision["ngrams"]}
                ledger.change("contamination_flagged")
            out.write(record)
            ledger.keep()
    return ledger, found


def contamination_report(config: DecontaminationConfig, index: EvalIndex, train_common: int,
                         matches: list[dict]) -> JsonDict:
    return {"ngram": config.ngram, "action": config.action, "test_split": config.test_split,
            "eval_files": list(config.eval_files), "eval_items": len(index.labels),
            "test_split_items": index.sources.get(TEST_SOURCE, 0), "items_by_source": index.sources,
            "items_too_short": index.short_items, "ignored_in_notices": index.ignored_notices,
            "ignored_common_in_eval": index.ignored_common,
            "ignored_common_in_train": train_common, "documents_matched": len(matches),
            "eval_items_matched": len({item for m in matches for item in m["items"]}), "matches": matches}

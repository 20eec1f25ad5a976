"""The partitioned steps of dedup that decide by document, not by repository: exact groups by
content-hash range, the documents near dedup looks at, and near-duplicate clusters by label
range. Each holds only its partition's documents (quarry.stages.dedup runs them as tasks)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from quarry.curation.dedup.decisions import exact_groups, exact_stats, largest, near_groups, near_stats, write_by_shard
from quarry.curation.dedup.index import ShardIndex, save_scratch
from quarry.curation.dedup.parts import ExactDecided, NearDecided
from quarry.engine.partitions import key_slice

# What a partition holds per document, as measured (tracemalloc) on bench/scale.py's 1 GB corpus
EXACT_BYTES = 160  # hash, number, sort order, group bounds; the survival keys of each group's members
NEAR_BYTES = 1000  # number, label, its survival key as Python objects, its decision
MARK_CHUNK = 1 << 20
MB = 1e6


def mark(mask_file: Path, total: int, dropped: list[str]) -> None:
    """A byte per document, set for those in the ``dropped`` arrays (one file at a time)."""
    mask = np.memmap(mask_file, dtype=np.bool_, mode="r+" if mask_file.exists() else "w+", shape=(total,)) \
        if total else None
    for path in dropped:  # a chunk at a time: a partition's list is large at scale
        docs = np.load(path, mmap_mode="r")
        for start in range(0, len(docs), MARK_CHUNK):
            mask[np.asarray(docs[start:start + MARK_CHUNK])] = True
    if mask is not None:
        mask.flush()
    elif not mask_file.exists():
        mask_file.write_bytes(b"")


def _shard_mask(mask_file: Path, index: ShardIndex, shard: int) -> np.ndarray:
    """One shard's part of a byte-per-document mask (never the whole corpus's)."""
    first, end = int(index.offsets[shard]), int(index.offsets[shard + 1])
    return np.fromfile(mask_file, dtype=np.bool_, count=end - first, offset=first)


def exact_partition(index: ShardIndex, removed_file: Path, part: int, parts: int, out: Path) -> ExactDecided:
    """The exact groups among the documents whose content hash falls in ``part`` (read from every
    shard's hash-sorted table), repository copies left out; decisions written per shard."""
    hashes, docs = [], []
    for shard, files in enumerate(index.files):
        table = np.load(files["exact_sorted"], mmap_mode="r")
        run = np.asarray(table[key_slice(table[:, 0], part, parts)])
        kept = ~_shard_mask(removed_file, index, shard)[run[:, 2].astype(np.int64)]
        hashes.append(run[kept, :2])
        docs.append(run[kept, 2].astype(np.int64) + index.offsets[shard])
    hashes = np.concatenate(hashes) if hashes else np.empty((0, 2), dtype=np.uint64)
    docs = np.concatenate(docs) if docs else np.empty(0, dtype=np.int64)
    order = np.argsort(docs, kind="stable")  # document order: a group's ties keep it
    decisions, groups = exact_groups(index, hashes[order], docs[order])
    digest = write_by_shard(out, decisions, index.offsets)
    dropped = Path(f"{out}.dropped.npy")
    save_scratch(dropped, np.array(sorted(doc for doc, (action, _, _) in decisions.items() if action != "keep"),
                                   dtype=np.int64))
    return ExactDecided(slices=str(out), digest=digest, dropped=str(dropped), **exact_stats(groups),
                        largest=largest(groups), peak_mb=round(len(docs) * EXACT_BYTES / MB, 3))


def live_documents(index: ShardIndex, dropped_file: Path, live_file: Path) -> tuple[int, int]:
    """``live_file``: a byte per document, set for those near dedup compares (a signature, and
    not dropped as a copy), shard by shard; returns how many are live and how many too short for
    a signature."""
    live = short = 0
    partial = live_file.with_name(f".{live_file.name}.tmp")
    with open(partial, "wb") as fh:
        for shard, files in enumerate(index.files):
            has_sig = np.load(files["has_sig"]).astype(bool)
            short += int((~has_sig).sum())
            compared = has_sig & ~_shard_mask(dropped_file, index, shard)
            live += int(compared.sum())
            compared.tofile(fh)
    partial.replace(live_file)
    return live, short


def split_clusters(docs: np.ndarray, labels: np.ndarray, parts: int, folder: Path) -> list[tuple[Path, Path]]:
    """The clustered documents in ``parts`` ranges of their labels (a cluster lies whole in one),
    each saved for the partition that decides it."""
    order = np.argsort(labels, kind="stable")
    ordered = labels[order]
    bounds = np.searchsorted(ordered, [part * len(docs) // parts for part in range(parts + 1)])
    bounds[-1] = len(docs)
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for part in range(parts):
        chunk = np.sort(order[bounds[part]:bounds[part + 1]])  # ascending documents
        files.append((folder / f"{part:05d}.docs.npy", folder / f"{part:05d}.labels.npy"))
        save_scratch(files[-1][0], docs[chunk])
        save_scratch(files[-1][1], labels[chunk])
    return files


def near_partition(index: ShardIndex, docs_file: Path, labels_file: Path, out: Path) -> NearDecided:
    """The near-duplicate clusters of one label range: each keeps its first, written per shard."""
    docs, labels = np.load(docs_file), np.load(labels_file)
    decisions, groups = near_groups(index, docs, labels)
    digest = write_by_shard(out, decisions, index.offsets)
    return NearDecided(slices=str(out), digest=digest, **near_stats(groups), largest=largest(groups),
                       peak_mb=round(len(docs) * NEAR_BYTES / MB, 3))

"""What dedup decides per document, written where the shards' filter reads it, and the groups
the ledger names.

A decision is ``[action, cluster, size]`` (``keep``, ``duplicate_repository``,
``exact_duplicate`` or ``near_duplicate``; the cluster's name; its size). Every partitioned step
writes its decisions shard by shard (quarry.engine.partitions.SliceWriter); the filter of one
shard reads its slice of each and applies them in the order of the steps (repository, exact,
near), so a later step's decision replaces an earlier one for the same document (a near-duplicate
cluster's decision replaces the ``keep`` its member had as the first of an exact group).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import orjson

from quarry.curation.dedup.index import ShardIndex
from quarry.curation.dedup.parts import NearDecided
from quarry.engine.partitions import SliceWriter
from quarry.records import JsonDict, atomic_write_bytes

LARGEST = 10  # groups of copies listed in the ledger


def cluster_name(key: list, doc: int) -> str:
    return key[3] or f"doc-{doc}"


def write_by_shard(out: Path, decisions: dict[int, list], offsets: np.ndarray) -> str:
    """``decisions`` (document -> decision) as one slice per shard (row -> decision); the digest."""
    docs = np.array(sorted(decisions), dtype=np.int64)
    shards = np.searchsorted(offsets, docs, side="right") - 1
    with SliceWriter(out, len(offsets) - 1) as writer:
        for shard in np.unique(shards).tolist():
            first = int(offsets[shard])
            writer.add(shard, orjson.dumps({str(doc - first): decisions[doc] for doc in docs[shards == shard].tolist()}))
        return writer.close()


def keep_first(keys: dict[int, list], members: list[int]) -> tuple[int, list]:
    """The member with the smallest survival key (then document number): the copy that stays."""
    key, doc = min((keys[doc], doc) for doc in members)
    return doc, key


def decide_groups(index: ShardIndex, groups: list[np.ndarray], copy: str) -> tuple[dict[int, list], list[JsonDict]]:
    """For each group of copies (document numbers): keep the first by survival key, ``copy`` the
    rest. The keys of the groups' members are read at once; returns the decisions and each
    group's size, name and kept document (for the ledger's largest)."""
    docs = np.unique(np.concatenate(groups)) if groups else np.empty(0, dtype=np.int64)
    keys = dict(zip(docs.tolist(), index.keys_of(docs), strict=True))
    decisions: dict[int, list] = {}
    found = []
    for members in groups:
        kept, key = keep_first(keys, members.tolist())
        name = cluster_name(key, kept)
        for doc in members.tolist():
            decisions[doc] = ["keep" if doc == kept else copy, name, len(members)]
        found.append({"cluster": name, "documents": len(members), "kept_origin": key[1], "kept_path": key[2]})
    return decisions, found


def exact_groups(index: ShardIndex, hashes: np.ndarray, docs: np.ndarray) -> tuple[dict[int, list], list[JsonDict]]:
    """Exact copies among ``docs`` (ascending) by their content ``hashes``: every group of two or
    more keeps its first (``decide_groups``) and drops the rest as ``exact_duplicate``."""
    order = np.lexsort((hashes[:, 1], hashes[:, 0]))  # stable: ties in document order
    ordered = hashes[order]
    new = np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)] if len(ordered) else np.empty(0, dtype=bool)
    starts, ends = group_runs(np.cumsum(new))
    groups = [docs[order[start:end]] for start, end in zip(starts.tolist(), ends.tolist()) if end - start > 1]
    return decide_groups(index, groups, "exact_duplicate")


def near_groups(index: ShardIndex, docs: np.ndarray, labels: np.ndarray) -> tuple[dict[int, list], list[JsonDict]]:
    """Near-duplicate clusters: ``docs`` (ascending), each with a label naming its cluster; every
    cluster keeps its first and drops the rest as ``near_duplicate``."""
    order = np.argsort(labels, kind="stable")
    starts, ends = group_runs(labels[order])
    return decide_groups(index, [docs[order[start:end]] for start, end in zip(starts.tolist(), ends.tolist())],
                         "near_duplicate")


def group_runs(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the runs of equal values in ``labels`` (sorted)."""
    if not len(labels):
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])
    return starts, np.r_[starts[1:], len(labels)].astype(np.int64)


def largest(groups: Iterable[JsonDict], top: int = LARGEST) -> list[JsonDict]:
    """The biggest groups of copies (exact groups and near-duplicate clusters, each by its own
    size; ties by name): mergeable, since the top of the union is the top of the parts' tops."""
    return sorted(groups, key=lambda group: (-group["documents"], group["cluster"]))[:top]


def exact_stats(groups: list[JsonDict]) -> JsonDict:
    return {"exact_groups": len(groups), "exact_removed": sum(group["documents"] - 1 for group in groups)}


def near_stats(groups: list[JsonDict]) -> JsonDict:
    """The clusters' counts, mergeable across partitions by ``merge_near_stats``."""
    sizes = Counter(group["documents"] for group in groups)
    return {"near_clusters": len(groups), "near_removed": sum(group["documents"] - 1 for group in groups),
            "largest_cluster": max(sizes, default=0),
            "cluster_sizes": {str(size): count for size, count in sorted(sizes.items())}}


def merge_near_stats(parts: Iterable[NearDecided]) -> JsonDict:
    """The partitions' cluster counts as ``near_stats`` gives them for the whole corpus."""
    parts = list(parts)
    sizes: Counter = Counter()
    for part in parts:
        sizes.update({int(size): count for size, count in part.cluster_sizes.items()})
    return {"near_clusters": sum(part.near_clusters for part in parts),
            "near_removed": sum(part.near_removed for part in parts),
            "largest_cluster": max((part.largest_cluster for part in parts), default=0),
            "cluster_sizes": {str(size): count for size, count in sorted(sizes.items())}}


def write_clusters(index: ShardIndex, decided: Iterable[dict[str, list]], path: Path) -> int:
    """``{"id", "cluster", "kept"}`` per document, shard by shard in row order (cluster: the id
    of the kept copy, or the surviving origin of a duplicate repository; null: no copies), from
    each shard's decisions (row -> decision)."""
    lines = []
    for shard, decisions in enumerate(decided):
        for row, key in enumerate(index.all_keys(shard)):
            action, cluster, _ = decisions.get(str(row), ("keep", None, 1))
            lines.append(orjson.dumps({"id": key[3], "cluster": cluster, "kept": action == "keep"}))
    atomic_write_bytes(path, b"".join(line + b"\n" for line in lines))
    return len(lines)

"""The global decisions: duplicate repositories (quarry.dedup.repository), exact groups, then
near-duplicate clusters from band-key collisions, among the files of the surviving repositories.

Reads only the per-shard index files. Exact duplicates group by their normalised content hash
(``prune``). Near duplicates: candidate pairs of documents sharing a band bucket, each verified
before it joins two documents (quarry.dedup.pairs), then connected components. The stage runs
that step in partitions (quarry.dedup.partition); ``cluster_index`` runs it all in one process
(one band's keys, every candidate pair and a union-find over every document) and decides the same.

Every group keeps its member with the smallest survival key (see index.survival_key), so the
outcome depends on the documents, not on how shards or partitions were spread over workers.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import orjson

from quarry.dedup.config import DedupConfig
from quarry.dedup.index import ShardIndex, index_files, save_scratch
from quarry.dedup.pairs import candidate_pairs, verified
from quarry.dedup.repository import repository_duplicates
from quarry.dedup.unionfind import UnionFind
from quarry.records import JsonDict, atomic_write_bytes

LARGEST = 10  # clusters listed in the ledger


def decisions_file(prefix: Path) -> Path:
    return Path(f"{prefix}.decisions.json")


def _keep_first(index: ShardIndex, members: np.ndarray) -> tuple[int, list]:
    keyed = sorted((index.key(int(doc)), int(doc)) for doc in members)
    kept_key, kept = keyed[0]
    return kept, kept_key


def _cluster_name(key: list, doc: int) -> str:
    return key[3] or f"doc-{doc}"


def exact_groups(index: ShardIndex, decisions: dict[int, list],
                 excluded: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, int]]:
    """Mark every copy but one of each exact group (documents not ``excluded``); returns the
    dropped mask and counts."""
    dropped = np.zeros(index.total, dtype=bool)
    if index.total == 0:
        return dropped, {"exact_groups": 0, "exact_removed": 0}
    hashes = index.concat("exact")
    order = np.lexsort((hashes[:, 1], hashes[:, 0]))
    if excluded is not None:
        order = order[~excluded[order]]
    ordered = hashes[order]
    new_group = np.ones(len(order), dtype=bool)
    new_group[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    starts = np.flatnonzero(new_group)
    ends = np.append(starts[1:], len(order))
    copied = ends - starts > 1
    groups = int(copied.sum())
    for start, end in zip(starts[copied].tolist(), ends[copied].tolist(), strict=True):
        members = order[start:end]
        kept, key = _keep_first(index, members)
        decisions[kept] = ["keep", _cluster_name(key, kept), int(end - start)]
        for doc in members.tolist():
            if doc != kept:
                dropped[doc] = True
                decisions[doc] = ["exact_duplicate", _cluster_name(key, kept), int(end - start)]
    return dropped, {"exact_groups": groups, "exact_removed": int(dropped.sum())}


def near_clusters(index: ShardIndex, live: np.ndarray, config: DedupConfig,
                  decisions: dict[int, list]) -> JsonDict:
    """Candidate pairs, verification and union-find over every live document in this process."""
    bands, _ = config.band_shape()
    pairs = candidate_pairs(index, live, bands)
    merged = verified(index, pairs, config)
    uf = UnionFind(index.total)
    uf.union_pairs(merged)
    roots = uf.roots()
    in_cluster = np.flatnonzero(np.bincount(roots, minlength=index.total)[roots] > 1)
    return {"candidate_pairs": int(len(pairs)), "verified_pairs": int(len(merged)),
            **decide_near(index, in_cluster, roots[in_cluster], decisions)}


def decide_near(index: ShardIndex, docs: np.ndarray, labels: np.ndarray, decisions: dict[int, list]) -> JsonDict:
    """Keep one member of each near-duplicate cluster: ``docs`` (ascending), each with a label
    that names its cluster."""
    order = np.argsort(labels, kind="stable")
    docs, labels = docs[order], labels[order]
    starts = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]]) if len(docs) else np.empty(0, dtype=np.int64)
    ends = np.r_[starts[1:], len(docs)].astype(np.int64) if len(docs) else np.empty(0, dtype=np.int64)
    histogram: Counter = Counter()
    removed = 0
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        members = docs[start:end]
        kept, key = _keep_first(index, members)
        name = _cluster_name(key, kept)
        histogram[len(members)] += 1
        for doc in members.tolist():
            if doc == kept:
                decisions[doc] = ["keep", name, len(members)]
            else:
                decisions[doc] = ["near_duplicate", name, len(members)]
                removed += 1
    return {"near_clusters": len(starts), "near_removed": removed, "largest_cluster": max(histogram, default=0),
            "cluster_sizes": {str(size): count for size, count in sorted(histogram.items())}}


def prune(index: ShardIndex, config: DedupConfig) -> tuple[dict[int, list], np.ndarray | None, JsonDict]:
    """Repository copies, then exact groups: the decisions so far, the documents near dedup
    looks at (None when it is off) and the statistics."""
    decisions: dict[int, list] = {}
    stats: JsonDict = {"documents": index.total}
    removed = np.zeros(index.total, dtype=bool)
    if config.repository.enabled and index.total:
        keys = [index.key(doc) for doc in range(index.total)]
        decisions, repo_stats = repository_duplicates(
            keys, index.concat("exact"), index.concat("has_sig").astype(bool), index.signature_shards,
            lambda docs: index.gather("sig", docs), config.repository, config.seed)
        removed[np.fromiter(decisions, dtype=np.int64, count=len(decisions))] = True
        stats.update(repo_stats)
    exact_dropped = removed.copy()
    if config.exact:
        dropped, counts = exact_groups(index, decisions, excluded=removed)
        exact_dropped |= dropped
        stats.update(counts)
    if not (config.near and index.total):
        return decisions, None, stats
    has_sig = index.concat("has_sig").astype(bool)
    stats["near_skipped_short"] = int((~has_sig).sum())
    return decisions, has_sig & ~exact_dropped, stats


def cluster_index(prefixes: list[Path], config: DedupConfig) -> JsonDict:
    """Decide every document's fate in one process; writes ``<prefix>.decisions.json`` per shard.
    The stage runs the same steps partitioned (quarry.dedup.partition) and decides the same."""
    index = ShardIndex(prefixes, with_shingles=config.verify == "exact")
    decisions, live, stats = prune(index, config)
    if live is not None:
        stats.update(near_clusters(index, live, config, decisions))
    return write_decisions(index, decisions, stats)


def write_decisions(index: ShardIndex, decisions: dict[int, list], stats: JsonDict) -> JsonDict:
    """``<prefix>.decisions.json`` per shard (row -> decision); the stats with the largest clusters."""
    stats["largest_clusters"] = largest_clusters(index, decisions)
    per_shard: list[dict[str, list]] = [{} for _ in index.prefixes]
    for doc, decision in sorted(decisions.items()):
        shard, row = index.locate(doc)
        per_shard[shard][str(row)] = decision
    for prefix, local in zip(index.prefixes, per_shard, strict=True):
        save_scratch(decisions_file(prefix), orjson.dumps(local, option=orjson.OPT_SORT_KEYS))
    return stats


def largest_clusters(index: ShardIndex, decisions: dict[int, list], top: int = LARGEST) -> list[JsonDict]:
    """The biggest groups of file copies: the kept document's id, origin and path, and how many
    copies (exact or near) it stands for."""
    members: Counter = Counter()
    kept: dict[str, int] = {}
    for doc, (action, cluster, _) in decisions.items():
        if action == "duplicate_repository":
            continue
        members[cluster] += 1
        if action == "keep":
            kept[cluster] = doc
    ranked = sorted(members.items(), key=lambda item: (-item[1], item[0]))[:top]
    out = []
    for cluster, size in ranked:
        _, origin, path, _ = index.key(kept[cluster]) if cluster in kept else (None, None, None, None)
        out.append({"cluster": cluster, "documents": size, "kept_origin": origin, "kept_path": path})
    return out


def write_clusters(prefixes: list[Path], path: Path) -> int:
    """``{"id", "cluster", "kept"}`` per document, shard by shard in row order (cluster: the id
    of the kept copy, or the surviving origin of a duplicate repository; null: no copies)."""
    lines = []
    for prefix in prefixes:
        keys = orjson.loads(index_files(Path(prefix))["keys"].read_bytes())
        decisions = orjson.loads(decisions_file(Path(prefix)).read_bytes())
        for row, key in enumerate(keys):
            action, cluster, _ = decisions.get(str(row), ("keep", None, 1))
            lines.append(orjson.dumps({"id": key[3], "cluster": cluster, "kept": action == "keep"}))
    atomic_write_bytes(path, b"".join(line + b"\n" for line in lines))
    return len(lines)

"""The global decisions: duplicate repositories (quarry.curation.dedup.repository), exact groups, then
near-duplicate clusters from band-key collisions, among the files of the surviving repositories.

Reads only the per-shard index files. Exact duplicates group by their normalised content hash
(``prune``). Near duplicates: candidate pairs of documents sharing a band bucket, each verified
before it joins two documents (quarry.curation.dedup.pairs), then connected components. The stage runs
that step in partitions (quarry.curation.dedup.partition); ``cluster_index`` runs it all in one process
(one band's keys, every candidate pair and a union-find over every document) and decides the same.

Every group keeps its member with the smallest survival key (see index.survival_key), so the
outcome depends on the documents, not on how shards or partitions were spread over workers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson

from quarry.curation.dedup.config import DedupConfig
from quarry.curation.dedup.decisions import exact_groups, exact_stats, largest, near_groups, near_stats
from quarry.curation.dedup.index import ShardIndex, save_scratch
from quarry.curation.dedup.pairs import candidate_pairs, verified
from quarry.curation.dedup.repository import repository_duplicates
from quarry.curation.dedup.unionfind import UnionFind
from quarry.records import JsonDict


def decisions_file(prefix: Path) -> Path:
    return Path(f"{prefix}.decisions.json")


def prune(index: ShardIndex, config: DedupConfig) -> tuple[dict[int, list], np.ndarray | None, JsonDict, list]:
    """Repository copies, then exact groups: the decisions so far, the documents near dedup
    looks at (None when it is off), the statistics and the exact groups."""
    decisions: dict[int, list] = {}
    stats: JsonDict = {"documents": index.total}
    removed = np.zeros(index.total, dtype=bool)
    groups: list[JsonDict] = []
    if config.repository.enabled and index.total:
        keys = [index.key(doc) for doc in range(index.total)]
        decisions, repo_stats = repository_duplicates(
            keys, index.concat("exact"), index.concat("has_sig").astype(bool), index.signature_shards,
            lambda docs: index.gather("sig", docs), config.repository, config.seed)
        removed[np.fromiter(decisions, dtype=np.int64, count=len(decisions))] = True
        stats.update(repo_stats)
    exact_dropped = removed.copy()
    if config.exact:
        docs = np.flatnonzero(~removed)
        found, groups = exact_groups(index, index.concat("exact")[docs].reshape(-1, 2).astype(np.uint64), docs)
        decisions.update(found)
        exact_dropped[[doc for doc, (action, _, _) in found.items() if action != "keep"]] = True
        stats.update(exact_stats(groups))
    if not (config.near and index.total):
        return decisions, None, stats, groups
    has_sig = index.concat("has_sig").astype(bool)
    stats["near_skipped_short"] = int((~has_sig).sum())
    return decisions, has_sig & ~exact_dropped, stats, groups


def near_clusters(index: ShardIndex, live: np.ndarray, config: DedupConfig,
                  decisions: dict[int, list]) -> tuple[JsonDict, list]:
    """Candidate pairs, verification and union-find over every live document in this process."""
    bands, _ = config.band_shape()
    pairs = candidate_pairs(index, live, bands)
    merged = verified(index, pairs, config)
    uf = UnionFind(index.total)
    uf.union_pairs(merged)
    roots = uf.roots()
    in_cluster = np.flatnonzero(np.bincount(roots, minlength=index.total)[roots] > 1)
    found, groups = near_groups(index, in_cluster, roots[in_cluster])
    decisions.update(found)
    return {"candidate_pairs": int(len(pairs)), "verified_pairs": int(len(merged)), **near_stats(groups)}, groups


def cluster_index(prefixes: list[Path], config: DedupConfig) -> JsonDict:
    """Decide every document's fate in one process; writes ``<prefix>.decisions.json`` per shard.
    The stage runs the same steps partitioned (quarry.stages.dedup) and decides the same."""
    index = ShardIndex(prefixes, with_shingles=config.verify == "exact")
    decisions, live, stats, groups = prune(index, config)
    if live is not None:
        near, clusters = near_clusters(index, live, config, decisions)
        stats.update(near)
        groups = groups + clusters
    stats["largest_clusters"] = largest(groups)
    per_shard: list[dict[str, list]] = [{} for _ in index.prefixes]
    for doc, decision in sorted(decisions.items()):
        shard, row = index.locate(doc)
        per_shard[shard][str(row)] = decision
    for prefix, local in zip(index.prefixes, per_shard, strict=True):
        save_scratch(decisions_file(prefix), orjson.dumps(local, option=orjson.OPT_SORT_KEYS))
    return stats

"""The global step: duplicate repositories (quarry.dedup.repository), exact groups, then
near-duplicate clusters from band-key collisions, among the files of the surviving repositories.

Reads only the per-shard index files. Exact duplicates group by their normalised content hash.
Near duplicates: for each band, the band keys of all live documents are sorted; documents that
share a key become candidate pairs with the first document of their bucket; each candidate is
verified (by the exact Jaccard of the two shingle sets, or by signature agreement) before
union-find merges it, which stops chains of weak links and false merges. Memory holds one
band's keys, the candidate pairs and the union-find arrays, never every signature or shingle
set at once (those are memory-mapped and read per pair).

Every group keeps its member with the smallest survival key (see index.survival_key), so the
outcome depends on the documents, not on how shards were spread over workers.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import orjson

from quarry.dedup.config import DedupConfig
from quarry.dedup.index import index_files, save_scratch
from quarry.dedup.minhash import estimated_jaccard
from quarry.dedup.repository import repository_duplicates
from quarry.dedup.unionfind import UnionFind
from quarry.records import JsonDict, atomic_write_bytes

PAIR_BATCH = 1 << 18
LARGEST = 10  # clusters listed in the ledger
ESTIMATE_SLACK = 0.2


def decisions_file(prefix: Path) -> Path:
    return Path(f"{prefix}.decisions.json")


class ShardIndex:
    """The index files of all shards, addressed by a global document number."""

    def __init__(self, prefixes: list[Path], with_shingles: bool = False):
        self.prefixes = [Path(p) for p in prefixes]
        self.files = [index_files(p, with_shingles) for p in self.prefixes]
        sizes = [len(np.load(f["has_sig"], mmap_mode="r")) for f in self.files]
        self.offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.offsets[1:])
        self._keys: dict[int, list] = {}
        self._sets: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def total(self) -> int:
        return int(self.offsets[-1])

    def concat(self, name: str, row: int | None = None) -> np.ndarray:
        """A per-shard array over all shards (or one row of it: band keys are stored band-major)."""
        parts = []
        for f in self.files:
            array = np.load(f[name], mmap_mode="r")
            parts.append(np.asarray(array if row is None else array[row]))
        return np.concatenate(parts) if parts else np.empty(0)

    def signature_shards(self):
        """(first document number, memory-mapped signatures) of every shard, in order."""
        for first, files in zip(self.offsets.tolist(), self.files, strict=False):
            yield first, np.load(files["sig"], mmap_mode="r")

    def locate(self, doc: int) -> tuple[int, int]:
        shard = int(np.searchsorted(self.offsets, doc, side="right") - 1)
        return shard, int(doc - self.offsets[shard])

    def gather(self, name: str, docs: np.ndarray) -> np.ndarray:
        """Rows of a per-shard array for global document numbers, reading only those rows."""
        shards = np.searchsorted(self.offsets, docs, side="right") - 1
        out = None
        for shard in np.unique(shards):
            mask = shards == shard
            array = np.load(self.files[shard][name], mmap_mode="r")
            rows = array[docs[mask] - self.offsets[shard]]
            if out is None:
                out = np.empty((len(docs),) + rows.shape[1:], dtype=rows.dtype)
            out[mask] = rows
        return out if out is not None else np.empty(0)

    def shingle_set(self, doc: int) -> np.ndarray:
        shard, row = self.locate(doc)
        if shard not in self._sets:
            files = self.files[shard]
            self._sets[shard] = (np.load(files["offsets"]), np.load(files["shingles"], mmap_mode="r"))
        offsets, flat = self._sets[shard]
        return np.asarray(flat[offsets[row]:offsets[row + 1]])

    def key(self, doc: int) -> list:
        shard, row = self.locate(doc)
        if shard not in self._keys:
            self._keys[shard] = orjson.loads(self.files[shard]["keys"].read_bytes())
        return self._keys[shard][row]


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


def candidate_pairs(index: ShardIndex, live: np.ndarray, bands: int) -> np.ndarray:
    """Unique (a, b) pairs, a < b, of live documents sharing a bucket in some band."""
    docs = np.flatnonzero(live)
    found = []
    for band in range(bands):
        keys = index.concat("bands", band)[docs]
        order = np.argsort(keys, kind="stable")
        ordered = keys[order]
        same = np.zeros(len(order), dtype=bool)
        same[1:] = ordered[1:] == ordered[:-1]
        if not same.any():
            continue
        # each bucket member pairs with the bucket's first member (a star, not a chain)
        first = np.maximum.accumulate(np.where(same, 0, np.arange(len(order))))
        a, b = docs[order[first[same]]], docs[order[same]]
        found.append(np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1))
    if not found:
        return np.empty((0, 2), dtype=np.int64)
    return np.unique(np.concatenate(found), axis=0)


def verified(index: ShardIndex, pairs: np.ndarray, config: DedupConfig) -> np.ndarray:
    """The candidate pairs whose similarity reaches the threshold (see DedupConfig.verify)."""
    if config.verify == "none" or len(pairs) == 0:
        return pairs
    # exact mode first drops pairs whose estimate is far (~4.5 standard errors) below the threshold
    floor = config.verify_threshold if config.verify == "estimate" else config.threshold - ESTIMATE_SLACK
    keep = np.zeros(len(pairs), dtype=bool)
    for start in range(0, len(pairs), PAIR_BATCH):
        batch = pairs[start:start + PAIR_BATCH]
        similarity = estimated_jaccard(index.gather("sig", batch[:, 0]), index.gather("sig", batch[:, 1]))
        keep[start:start + PAIR_BATCH] = similarity >= floor
    if config.verify == "exact":
        for i in np.flatnonzero(keep).tolist():
            a, b = index.shingle_set(int(pairs[i, 0])), index.shingle_set(int(pairs[i, 1]))
            shared = len(np.intersect1d(a, b, assume_unique=True))
            keep[i] = shared >= config.threshold * (len(a) + len(b) - shared)
    return pairs[keep]


def near_clusters(index: ShardIndex, live: np.ndarray, config: DedupConfig,
                  decisions: dict[int, list]) -> JsonDict:
    bands, _ = config.band_shape()
    pairs = candidate_pairs(index, live, bands)
    merged = verified(index, pairs, config)
    uf = UnionFind(index.total)
    uf.union_pairs(merged)
    roots = uf.roots()
    sizes = np.bincount(roots, minlength=index.total)
    in_cluster = np.flatnonzero(sizes[roots] > 1)
    histogram: Counter = Counter()
    removed = 0
    by_root: dict[int, list[int]] = {}
    for doc in in_cluster.tolist():
        by_root.setdefault(int(roots[doc]), []).append(doc)
    for members in by_root.values():
        kept, key = _keep_first(index, np.array(members))
        name = _cluster_name(key, kept)
        histogram[len(members)] += 1
        for doc in members:
            if doc == kept:
                decisions[doc] = ["keep", name, len(members)]
            else:
                decisions[doc] = ["near_duplicate", name, len(members)]
                removed += 1
    return {"candidate_pairs": int(len(pairs)), "verified_pairs": int(len(merged)), "near_clusters": len(by_root),
            "near_removed": removed, "largest_cluster": max(histogram, default=0),
            "cluster_sizes": {str(size): count for size, count in sorted(histogram.items())}}


def cluster_index(prefixes: list[Path], config: DedupConfig) -> JsonDict:
    """Decide every document's fate; writes ``<prefix>.decisions.json`` per shard."""
    index = ShardIndex(prefixes, with_shingles=config.verify == "exact")
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
    if config.near and index.total:
        live = index.concat("has_sig").astype(bool) & ~exact_dropped
        stats["near_skipped_short"] = int((~index.concat("has_sig").astype(bool)).sum())
        stats.update(near_clusters(index, live, config, decisions))
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

"""Repository-level near dedup: a fork or copy of a repository under another origin is one repository.

Runs in the global step, before file-level dedup, on the per-shard index alone (origin and path
from the survival keys, content hashes, MinHash signatures). A repository is the set of its
files (``meta.origin``); its signature is the set of its (path, content hash) pairs and a MinHash
over all its content (the element-wise minimum of its files' signatures). Licence, CI, packaging
and other template files (``TEMPLATE_PATH``) are left out of both when a repository has other
files: distinct projects started from one template share them and are not copies.

Candidate pairs share a (path, content hash) or a band of the repository MinHash. A pair is one
repository when one of them shares ``threshold`` of its files with the other, a file counting as
shared when the other has the same path with the same content or a near-duplicate of it (MinHash
agreement >= ``file_similarity``); the estimated similarity of their whole contents is reported
beside it (a fork that deleted a large file shares little content but most files). Files are
compared at the same path, so a repository that vendors another inside a subfolder is not
merged with it. In each group of copies the repository with the smallest key survives
(permissive first, then origin); a file of the others is dropped as ``duplicate_repository`` when
the survivor holds it (same path, same or near-duplicate content): what a fork added or rewrote
stays, for file-level dedup to judge like any other file.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from quarry.config.curation import RepositoryParams
from quarry.dedup.components import min_labels
from quarry.dedup.minhash import band_keys, estimated_jaccard
from quarry.records import JsonDict

TEMPLATE_PATH = re.compile(
    r"(?:^|/)(?:\.[^/]+"                                                      # dotfiles: .github/, .gitignore
    r"|(?:LICEN[CS]E|COPYING|NOTICE|AUTHORS|CONTRIBUTING|CODE_OF_CONDUCT|SECURITY|CHANGELOG|CHANGES)[^/]*"
    r"|setup\.py|setup\.cfg|pyproject\.toml|MANIFEST\.in|tox\.ini|noxfile\.py|Makefile|Dockerfile"
    r"|requirements[^/]*\.txt|package\.json|package-lock\.json|Cargo\.toml|go\.mod|go\.sum|\.?codecov\.yml"
    r"|azure-pipelines\.yml|Jenkinsfile)$", re.IGNORECASE)
MAX_SHARED_KEY_REPOS = 64   # a (path, content) pair in more repositories than this is boilerplate
REPO_BANDS, REPO_ROWS = 16, 4


@dataclass
class Repository:
    origin: str
    docs: list[int]             # every file (global document numbers)
    content: list[int]          # the files that count (templates left out)
    rank: int                   # 0 when every counted file has a permissive licence
    signed: bool = False        # some counted file has a MinHash signature

    def key(self) -> tuple[int, str]:
        return self.rank, self.origin


def repositories(keys: list[list]) -> list[Repository]:
    """Files grouped by origin (documents without one belong to none), in origin order."""
    by_origin: dict[str, list[int]] = defaultdict(list)
    for doc, (_, origin, _, _) in enumerate(keys):
        if origin:
            by_origin[origin].append(doc)
    repos = []
    for origin in sorted(by_origin):
        docs = by_origin[origin]
        content = [d for d in docs if not TEMPLATE_PATH.search(keys[d][2])] or docs
        repos.append(Repository(origin, docs, content, max(keys[d][0] for d in content)))
    return repos


SignatureShards = Callable[[], Iterator[tuple[int, np.ndarray]]]   # (first document, its shard's signatures)
Gather = Callable[[np.ndarray], np.ndarray]                        # documents -> their signatures


def _repo_signatures(repos: list[Repository], total: int, has_sig: np.ndarray,
                     shards: SignatureShards) -> np.ndarray:
    """Each repository's MinHash: the element-wise minimum of its counted files' signatures,
    accumulated one (memory-mapped) shard at a time."""
    repo_of = np.full(total, -1, dtype=np.int64)
    for i, repo in enumerate(repos):
        counted = [d for d in repo.content if has_sig[d]]
        repo.signed = bool(counted)
        repo_of[counted] = i
    out = None
    for first, sigs in shards():
        if out is None:
            out = np.full((len(repos), sigs.shape[1]), np.iinfo(sigs.dtype).max, dtype=sigs.dtype)
        owners = repo_of[first:first + len(sigs)]
        rows = np.flatnonzero(owners >= 0)
        if len(rows):
            np.minimum.at(out, owners[rows], np.asarray(sigs[rows]))
    return out if out is not None else np.zeros((len(repos), 0), dtype=np.uint32)


def _candidates(repos: list[Repository], keys: list[list], exact: np.ndarray, repo_sigs: np.ndarray,
                seed: int) -> set[tuple[int, int]]:
    holders: dict[tuple, list[int]] = defaultdict(list)
    for i, repo in enumerate(repos):
        for doc in repo.content:
            holders[(keys[doc][2], int(exact[doc, 0]), int(exact[doc, 1]))].append(i)
    pairs = set()
    for owners in holders.values():
        if 1 < len(owners) <= MAX_SHARED_KEY_REPOS:
            pairs.update(combinations(sorted(set(owners)), 2))
    signed = [i for i, repo in enumerate(repos) if repo.signed]
    if len(signed) > 1 and repo_sigs.shape[1] >= REPO_BANDS * REPO_ROWS:
        bands = band_keys(repo_sigs[signed], REPO_BANDS, REPO_ROWS, seed)
        for band in bands.T:
            buckets: dict[int, list[int]] = defaultdict(list)
            for i, key in zip(signed, band.tolist(), strict=True):
                buckets[key].append(i)
            for members in buckets.values():
                if 1 < len(members) <= MAX_SHARED_KEY_REPOS:
                    pairs.update(combinations(members, 2))
    return pairs


def _shared_docs(docs: list[int], b: list[int], keys: list[list], exact: np.ndarray, gather: Gather,
                 has_sig: np.ndarray, file_threshold: float) -> set[int]:
    """The documents among ``docs`` whose path among ``b`` holds the same or near-duplicate content."""
    at_path = {keys[doc][2]: doc for doc in b}
    shared, compare = set(), []
    for doc in docs:
        other = at_path.get(keys[doc][2])
        if other is None:
            continue
        if np.array_equal(exact[doc], exact[other]):
            shared.add(doc)
        elif has_sig[doc] and has_sig[other]:
            compare.append((doc, other))
    if compare:
        pairs = np.array(compare, dtype=np.int64)
        near = estimated_jaccard(gather(pairs[:, 0]), gather(pairs[:, 1])) >= file_threshold
        shared.update(int(doc) for doc in pairs[near, 0])
    return shared


def repository_duplicates(keys: list[list], exact: np.ndarray, has_sig: np.ndarray, shards: SignatureShards,
                          gather: Gather, config: RepositoryParams, seed: int = 1,
                          ) -> tuple[dict[int, list], JsonDict]:
    """Decisions (doc -> ["duplicate_repository", surviving origin, group size]) and statistics.

    ``keys``, ``exact`` and ``has_sig``: per document (survival key, content hash, has a
    signature); signatures come shard by shard (``shards``) or for a few documents (``gather``)."""
    repos = repositories(keys)
    stats: JsonDict = {"repositories": len(repos), "repository_groups": 0, "repositories_removed": 0,
                       "repository_files_removed": 0, "fork_files_kept": 0, "repository_pairs": []}
    if not config.enabled or len(repos) < 2:
        return {}, stats
    repo_sigs = _repo_signatures(repos, len(keys), has_sig, shards)
    edges, merged = [], []
    for i, j in sorted(_candidates(repos, keys, exact, repo_sigs, seed)):
        a, b = repos[i], repos[j]
        shared = len(_shared_docs(a.content, b.content, keys, exact, gather, has_sig, config.file_similarity))
        share = max(shared / len(a.content), shared / len(b.content))
        content = float(estimated_jaccard(repo_sigs[i][None], repo_sigs[j][None])[0])
        if share >= config.threshold:
            edges.append((i, j))
            merged.append({"repositories": [a.origin, b.origin], "shared_files": shared,
                           "share": round(share, 3), "content_similarity": round(content, 3)})
    groups: dict[int, list[int]] = defaultdict(list)
    for i, label in enumerate(min_labels(len(repos), np.array(edges, dtype=np.int64)).tolist()):
        groups[label].append(i)
    decisions: dict[int, list] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        survivor = min(members, key=lambda i: repos[i].key())
        stats["repository_groups"] += 1
        for i in members:
            if i == survivor:
                continue
            stats["repositories_removed"] += 1
            # only what the copy shares with the survivor goes: a fork's own files (added, or
            # rewritten beyond the near-duplicate threshold) are not copies of anything
            shared = _shared_docs(repos[i].docs, repos[survivor].docs, keys, exact, gather, has_sig,
                                  config.file_similarity)
            stats["fork_files_kept"] += len(repos[i].docs) - len(shared)
            for doc in sorted(shared):
                decisions[doc] = ["duplicate_repository", repos[survivor].origin, len(members)]
    stats["repository_files_removed"] = len(decisions)
    stats["repository_pairs"] = merged
    return decisions, stats

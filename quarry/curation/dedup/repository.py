"""Repository-level near dedup: a fork or copy of a repository under another origin is one repository.

Runs in the global step, before file-level dedup, on the per-shard index alone (origin and path
from the survival keys, content hashes, MinHash signatures). A repository is the set of its
files (``meta.origin``); its signature is the set of its (path, content hash) pairs and a MinHash
over all its content (the element-wise minimum of its files' signatures). Licence, CI, packaging
and other template files (``TEMPLATE_PATH``), vendored libraries (``vendor/``, ``_vendor/``,
``third_party/`` ...) and files too short for a signature are left out of both when a repository
has other files: distinct projects started from one template, vendoring one library or with
the same stubs share them and are not copies.

Candidate pairs share a (file name, content hash) or a band of the repository MinHash (a fork
that renamed its package folder shares no path with its upstream, and one that added much code
shares few bands). A file of one
is held by the other (``held``) at the same path (the same content, or the same file edited:
MinHash agreement >= ``edited_similarity``) or moved: the same content, or the same file edited,
one step away (a folder or the file renamed, a folder inserted or removed below the top:
``moved``), never under a folder added above its whole path (a repository placed inside a folder
of another is vendored, not forked). A pair is one repository when one of them holds
``threshold`` of the other's files at the same paths (a fork that edited, added or deleted
some), or, counting moved ones, one holds ``threshold`` of the other's files and each holds more
than half (``MOVED_MAJORITY``) of the other's (a fork that renamed or moved folders, and grew:
one way alone, that is also a project that copied most of a small one's files into a folder of
its own); the estimated similarity of their whole contents is reported beside it.

In each group the canonical repository keeps its files: the smallest licence rank (permissive
first), then the most counted files, then the smallest origin. The files of the group's members
that hold one another (the same content at any path, or the same file lightly edited) form
components, and each keeps its earliest member's file (``group_decisions``); the others are
dropped as ``duplicate_repository``. Two forks that each moved folders their own way and edited
one file their own way are related through the upstream alone: one version stays. What a fork
added or rewrote holds nothing and stays, for file-level dedup to judge like any other file.

A one-line edit of a short file changes half its word 5-grams, so the same file, edited, is
judged by a lower bar (``edited_similarity``) than a file of the same name elsewhere
(``file_similarity``). Which files of a copy are dropped is judged more strictly than whether two
repositories are one: a light edit changes at most ``edit_shingles`` word 5-grams, so a file of n
of them goes from an agreement of (n - e) / (n + e) up (n estimated from the two MinHashes); a
long file half rewritten agrees well above ``edited_similarity`` and is the fork's own, and one
edited more than lightly but still a near duplicate is left to file-level dedup, which keeps one
copy.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

import numpy as np

from quarry.config.curation import RepositoryParams
from quarry.curation.dedup.components import min_labels
from quarry.curation.dedup.minhash import band_keys, estimated_jaccard
from quarry.curation.licenses.sources import vendored_library
from quarry.records import JsonDict

TEMPLATE_PATH = re.compile(
    r"(?:^|/)(?:\.[^/]+(?:/.+)?"                                              # dotfiles, what .github/ holds
    r"|(?:LICEN[CS]E|COPYING|NOTICE|AUTHORS|CONTRIBUTING|CODE_OF_CONDUCT|SECURITY|CHANGELOG|CHANGES)[^/]*"
    r"|setup\.py|setup\.cfg|pyproject\.toml|MANIFEST\.in|tox\.ini|noxfile\.py|Makefile|Dockerfile"
    r"|requirements[^/]*\.txt|package\.json|package-lock\.json|Cargo\.toml|go\.mod|go\.sum|\.?codecov\.yml"
    r"|azure-pipelines\.yml|Jenkinsfile)$", re.IGNORECASE)
MAX_SHARED_KEY_REPOS = 64   # a (path, content) pair in more repositories than this is boilerplate
LISTED_PAIRS = 100          # verified pairs the ledger lists (in origin order; it counts them all)
NAMESAKES = 4               # same-named files a moved file is compared with at most (more: a common name)
HOLDERS = 8                 # a copy is compared with the first HOLDERS + 1 members of its group (but itself)
MOVED_MAJORITY = 0.5        # counting moved files, each repository of a pair holds more than this of the other's
REPO_BANDS, REPO_ROWS = 16, 4


@dataclass(frozen=True)
class RepoFile:
    doc: int                    # global document number
    path: str
    rank: int                   # 0: a permissive licence (the survival key's first item)
    exact: tuple[int, int]      # normalised content hash
    has_sig: bool               # has a MinHash signature


@dataclass
class Repository:
    origin: str
    files: list[RepoFile]       # every file, in document order
    signature: np.ndarray | None = None   # the MinHash of its content (None: no counted file has one)

    @cached_property  # read several times per verified pair; ``files`` is complete when built
    def content(self) -> list[RepoFile]:
        """The files that count: templates, vendored libraries and files too short for a signature
        (stubs alike in unrelated projects) left out when the repository has other files."""
        kept = [f for f in self.files
                if f.has_sig and not TEMPLATE_PATH.search(f.path) and vendored_library(f.path) is None]
        return kept or self.files

    @property
    def rank(self) -> int:
        """0 when every counted file has a permissive licence."""
        return max(f.rank for f in self.content)

    @property
    def signed(self) -> bool:
        return self.signature is not None

    def key(self) -> tuple[int, int, str]:
        """The canonical repository of a group has the smallest: licence rank, most files, origin."""
        return self.rank, -len(self.content), self.origin


SignatureShards = Callable[[], Iterator[tuple[int, np.ndarray]]]   # (first document, its shard's signatures)
Gather = Callable[[np.ndarray], np.ndarray]                        # documents -> their signatures


def repositories(keys: list[list], exact: np.ndarray, has_sig: np.ndarray) -> list[Repository]:
    """Files grouped by origin (documents without one belong to none), in origin order."""
    by_origin: dict[str, list[RepoFile]] = defaultdict(list)
    for doc, (rank, origin, path, _) in enumerate(keys):
        if origin:
            by_origin[origin].append(RepoFile(doc, path, rank, (int(exact[doc, 0]), int(exact[doc, 1])),
                                              bool(has_sig[doc])))
    return [Repository(origin, by_origin[origin]) for origin in sorted(by_origin)]


def counted_docs(repo: Repository) -> list[int]:
    """The documents whose signatures make the repository's MinHash."""
    return [f.doc for f in repo.content if f.has_sig]


def _repo_signatures(repos: list[Repository], total: int, shards: SignatureShards) -> None:
    """Each repository's MinHash: the element-wise minimum of its counted files' signatures,
    accumulated one (memory-mapped) shard at a time."""
    repo_of = np.full(total, -1, dtype=np.int64)
    for i, repo in enumerate(repos):
        repo_of[counted_docs(repo)] = i
    out = None
    for first, sigs in shards():
        if out is None:
            out = np.full((len(repos), sigs.shape[1]), np.iinfo(sigs.dtype).max, dtype=sigs.dtype)
        owners = repo_of[first:first + len(sigs)]
        rows = np.flatnonzero(owners >= 0)
        if len(rows):
            np.minimum.at(out, owners[rows], np.asarray(sigs[rows]))
    for i, repo in enumerate(repos):
        repo.signature = out[i] if out is not None and counted_docs(repo) else None


def signature_of(repo: Repository, gather: Gather) -> np.ndarray | None:
    """One repository's MinHash from its counted files' signatures (read for it alone)."""
    docs = counted_docs(repo)
    return np.minimum.reduce(gather(np.array(docs, dtype=np.int64)), axis=0) if docs else None


def holder_keys(repo: Repository) -> list[tuple[str, int, int]]:
    """What a file shared with another repository is: its name and content (its folders may
    have been renamed or moved)."""
    return [(_name(f.path), *f.exact) for f in repo.content]


def band_keys_of(signature: np.ndarray, seed: int) -> list[int] | None:
    """The repository MinHash's LSH bucket per band (None: too short a signature to band)."""
    if signature is None or len(signature) < REPO_BANDS * REPO_ROWS:
        return None
    return band_keys(signature[None], REPO_BANDS, REPO_ROWS, seed)[0].tolist()


def shared_pairs(owners: list[str]) -> list[tuple[str, str]]:
    """The pairs of the repositories holding one key, unless so many do that it is boilerplate."""
    distinct = sorted(set(owners))
    return list(combinations(distinct, 2)) if 1 < len(owners) <= MAX_SHARED_KEY_REPOS else []


def _candidates(repos: list[Repository], seed: int) -> set[tuple[str, str]]:
    holders: dict[tuple, list[str]] = defaultdict(list)
    buckets: dict[tuple[int, int], list[str]] = defaultdict(list)
    for repo in repos:
        for key in holder_keys(repo):
            holders[key].append(repo.origin)
        for band, key in enumerate(band_keys_of(repo.signature, seed) or ()):
            buckets[(band, key)].append(repo.origin)
    return {pair for owners in (*holders.values(), *buckets.values()) for pair in shared_pairs(owners)}


def moved(path: str, other: str) -> bool:
    """Two paths of one file in a fork, once a leading ``src/`` is dropped: the same, or one step
    apart (a folder or the file renamed, a folder inserted or removed below the top). Never a
    folder added above the whole path: ``alpha/x.py`` as ``ext/alpha/x.py`` is a repository placed
    in a folder of another, vendored."""
    a, b = path.removeprefix("src/").split("/"), other.removeprefix("src/").split("/")
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    short, long = sorted((a, b), key=len)
    return len(long) == len(short) + 1 and any(long[:i] + long[i + 1:] == short for i in range(1, len(long)))


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def common_tail(path: str, other: str) -> int:
    """How many trailing path components two paths share."""
    a, b = path.split("/")[::-1], other.split("/")[::-1]
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def counterparts(path: str, named: list[RepoFile]) -> list[tuple[RepoFile, bool]]:
    """The files of the same name sharing the longest path tail with ``path`` (none when more
    than NAMESAKES do: a common name), each with whether it is ``path``'s counterpart: the only
    one (the same file, its folder renamed or moved)."""
    tails = [common_tail(path, f.path) for f in named]
    closest = [f for f, tail in zip(named, tails, strict=True) if tail == max(tails)]
    return [(f, len(closest) == 1) for f in closest] if len(closest) <= NAMESAKES else []


def shingle_counts(signatures: np.ndarray) -> np.ndarray:
    """Each file's number of distinct shingles, estimated from its MinHash (row-wise): an entry
    is the minimum of n uniform hashes, so -ln(1 - u) over k entries sums to Gamma(k, 1/n)."""
    uniform = (np.asarray(signatures, dtype=np.float64) + 0.5) / 2.0**32
    return (signatures.shape[-1] - 1) / -np.log1p(-uniform).sum(axis=-1)


def light_edit_bars(mine: np.ndarray, theirs: np.ndarray, changed: int) -> np.ndarray:
    """The agreement two files' MinHashes (row-wise) keep after at most ``changed`` of their
    shingles changed: (n - changed) / (n + changed) for their mean count n."""
    count = (shingle_counts(mine) + shingle_counts(theirs)) / 2
    return (count - changed) / (count + changed)


def held(mine: list[RepoFile], theirs: list[RepoFile], gather: Gather, file_threshold: float,
         edited: float | None = None, anywhere: bool = False, light_edit: int | None = None,
         ) -> tuple[dict[int, int], dict[int, int]]:
    """The documents among ``mine`` that ``theirs`` holds, each with the one of ``theirs`` that
    holds it: (at the same path, moved).

    Same path: the same content, or a near duplicate. Moved: the same content at a path
    ``moved`` allows (with a signature: a file too short for one says nothing about where it
    came from), or at any path when ``anywhere``; or a near duplicate of one of its
    ``counterparts``: the files of the same name at a path ``moved`` allows that ``mine`` does
    not hold at their own path. A near duplicate has MinHash agreement >= ``edited`` with the
    file at the same path or the only closest counterpart (the same file, edited), else >=
    ``file_threshold`` (``edited``: ``file_threshold`` unless given); with ``light_edit``, also
    at least what a file keeps after that many of its shingles changed (``light_edit_bars``)."""
    edited = file_threshold if edited is None else edited
    at_path = {f.path: f for f in theirs}
    mine_paths = {f.path for f in mine}
    by_content: dict[tuple[int, int], list[RepoFile]] = defaultdict(list)
    by_name: dict[str, list[RepoFile]] = defaultdict(list)
    for f in theirs:
        by_content[f.exact].append(f)
        if f.has_sig and f.path not in mine_paths:
            by_name[_name(f.path)].append(f)
    copy_at = (lambda a, b: True) if anywhere else moved
    same, compare = {}, []
    for f in mine:
        other = at_path.get(f.path)
        if other is not None and f.exact == other.exact:
            same[f.doc] = other.doc
        elif other is not None and f.has_sig and other.has_sig:
            compare.append((f.doc, other.doc, True, edited))
    moves = {}
    for f in mine:
        if f.doc in same or not (f.has_sig or anywhere):
            continue
        if copy := next((other for other in by_content.get(f.exact, ()) if copy_at(f.path, other.path)), None):
            moves[f.doc] = copy.doc
        elif f.has_sig:
            named = [other for other in by_name.get(_name(f.path), ()) if moved(f.path, other.path)]
            compare.extend((f.doc, other.doc, False, edited if only else file_threshold)
                           for other, only in counterparts(f.path, named))
    if compare:
        pairs = np.array([(a, b) for a, b, _, _ in compare], dtype=np.int64)
        bars = np.array([bar for *_, bar in compare])
        mine_sigs, their_sigs = gather(pairs[:, 0]), gather(pairs[:, 1])
        if light_edit is not None:
            bars = np.maximum(bars, light_edit_bars(mine_sigs, their_sigs, light_edit))
        near = estimated_jaccard(mine_sigs, their_sigs) >= bars
        for (doc, partner, at_same_path, _), found in zip(compare, near.tolist(), strict=True):
            if found:
                (same if at_same_path else moves).setdefault(doc, partner)
    return same, {doc: partner for doc, partner in moves.items() if doc not in same}


def verdict(a: Repository, b: Repository, gather: Gather, config: RepositoryParams) -> JsonDict | None:
    """The pair, when one of the two holds ``threshold`` of the other's files at the same paths,
    or, counting moved ones, one holds ``threshold`` of the other's and each more than
    MOVED_MAJORITY (a file of two alike is no fork: one-file packages share a licence header);
    else None."""
    same_a, moved_a = held(a.content, b.content, gather, config.file_similarity, config.edited_similarity)
    same_b, moved_b = held(b.content, a.content, gather, config.file_similarity, config.edited_similarity)
    files_a, files_b = len(a.content), len(b.content)
    same = max(len(same_a) / files_a, len(same_b) / files_b)
    with_moved = sorted(((len(same_a) + len(moved_a)) / files_a, (len(same_b) + len(moved_b)) / files_b))
    mutual = with_moved[1] if with_moved[0] > MOVED_MAJORITY else 0.0
    if max(same, mutual) < config.threshold:
        return None
    content = float(estimated_jaccard(*_comparable(a.signature, b.signature))[0])
    return {"repositories": [a.origin, b.origin], "shared_files": max(len(same_a), len(same_b)),
            "moved_files": max(len(moved_a), len(moved_b)), "share": round(max(same, mutual), 3),
            "content_similarity": round(content, 3)}


def _comparable(a: np.ndarray | None, b: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Two repository MinHashes as rows; one without a signature is all maximal (nothing seen)."""
    if a is None and b is None:
        return np.zeros((1, 1)), np.zeros((1, 1))
    like = a if a is not None else b
    fill = np.full_like(like, np.iinfo(like.dtype).max)
    return (a if a is not None else fill)[None], (b if b is not None else fill)[None]


def group_decisions(ordered: list[Repository], gather: Gather, config: RepositoryParams
                    ) -> tuple[dict[int, list], int]:
    """The decisions for the files of a group's copies (``ordered``: canonical order) and how many
    of their files they keep.

    Each copy is compared with every other member among the first HOLDERS + 1 (``held``: exact
    copies at any path, however short, and files lightly edited); the files so matched form
    components, and each component keeps the files of its earliest member. A file the canonical
    repository holds goes, as does one that two forks changed each their own way (matched only
    through the upstream's, which the canonical repository holds); a fork's own files (added, or
    rewritten) match nothing and stay."""
    number = {f.doc: i for i, f in enumerate(f for repo in ordered for f in repo.files)}
    member = np.repeat(np.arange(len(ordered)), [len(repo.files) for repo in ordered])   # of each number
    compared = ordered[:HOLDERS + 1]
    edges = []
    for copy in ordered[1:]:
        for other in compared:
            if other is not copy:
                same, moves = held(copy.files, other.files, gather, config.file_similarity,
                                   config.edited_similarity, anywhere=True, light_edit=config.edit_shingles)
                edges.extend((number[doc], number[partner]) for doc, partner in (*same.items(), *moves.items()))
    labels = min_labels(len(number), np.array(edges, dtype=np.int64))
    earlier = member[labels] < member    # its component's first file is an earlier member's
    decisions = {doc: ["duplicate_repository", ordered[0].origin, len(ordered)]
                 for doc, i in sorted(number.items()) if earlier[i]}
    return decisions, len(number) - len(ordered[0].files) - len(decisions)


def empty_stats(repositories: int) -> JsonDict:
    return {"repositories": repositories, "repository_groups": 0, "repositories_removed": 0,
            "repository_files_removed": 0, "fork_files_kept": 0, "repository_pairs_verified": 0,
            "repository_pairs": []}


def groups_of(edges: list[tuple[str, str]]) -> list[list[str]]:
    """The repositories the verified pairs join, as groups of two or more (each in origin order)."""
    origins = sorted({origin for edge in edges for origin in edge})
    number = {origin: i for i, origin in enumerate(origins)}
    pairs = np.array([(number[a], number[b]) for a, b in edges], dtype=np.int64)
    groups: dict[int, list[str]] = defaultdict(list)
    for i, label in enumerate(min_labels(len(origins), pairs).tolist()):
        groups[label].append(origins[i])
    return [members for _, members in sorted(groups.items()) if len(members) > 1]


def repository_duplicates(keys: list[list], exact: np.ndarray, has_sig: np.ndarray, shards: SignatureShards,
                          gather: Gather, config: RepositoryParams, seed: int = 1,
                          ) -> tuple[dict[int, list], JsonDict]:
    """Decisions (doc -> ["duplicate_repository", surviving origin, group size]) and statistics,
    in one process (quarry.curation.dedup.repository_partitions runs the same steps in partitions).

    ``keys``, ``exact`` and ``has_sig``: per document (survival key, content hash, has a
    signature); signatures come shard by shard (``shards``) or for a few documents (``gather``)."""
    repos = repositories(keys, exact, has_sig)
    stats = empty_stats(len(repos))
    if not config.enabled or len(repos) < 2:
        return {}, stats
    _repo_signatures(repos, len(keys), shards)
    by_origin = {repo.origin: repo for repo in repos}
    merged = [found for a, b in sorted(_candidates(repos, seed))
              if (found := verdict(by_origin[a], by_origin[b], gather, config)) is not None]
    decisions: dict[int, list] = {}
    for members in groups_of([tuple(found["repositories"]) for found in merged]):
        stats["repository_groups"] += 1
        stats["repositories_removed"] += len(members) - 1
        copied, kept = group_decisions(sorted((by_origin[origin] for origin in members), key=Repository.key),
                                       gather, config)
        stats["fork_files_kept"] += kept
        decisions.update(copied)
    stats["repository_files_removed"] = len(decisions)
    stats["repository_pairs_verified"] = len(merged)
    stats["repository_pairs"] = merged[:LISTED_PAIRS]
    return decisions, stats

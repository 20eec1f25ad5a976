"""What each step of partitioned dedup returns (quarry.stages.dedup hands them to the next step):
the files a partition wrote, by path, and the counts the ledger sums. Paths stay as the step
wrote them (``Path`` where a later task's cache key should see the file's content, ``str`` where
it is read by name)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from quarry.engine.partitions import Decided
from quarry.records import JsonDict


@dataclass(frozen=True, kw_only=True)
class IndexedShard:
    """One shard's index (under ``prefix``): its documents, their bytes, its origin entries' bytes."""

    prefix: str
    records: int
    bytes: int
    origin_bytes: int


@dataclass(frozen=True, kw_only=True)
class RepositoryTable:
    """Step 1: a partition's repositories by origin (``out``.repos) and their pairing keys (``out``.keys)."""

    out: str
    repositories: int
    peak_mb: float


@dataclass(frozen=True, kw_only=True)
class CandidatePairs:
    """Step 2: the candidate pairs of a partition's keys (``out``.pairs)."""

    out: str
    pairs: int
    peak_mb: float


@dataclass(frozen=True, kw_only=True)
class VerifiedPairs:
    """Step 3: a partition's verified pairs (``edges``, with both ranks), a few listed for the ledger."""

    edges: str
    verified: int
    listed: list[JsonDict]
    pairs: int
    peak_mb: float


@dataclass(frozen=True, kw_only=True)
class CopyGroups:
    """Step 4: every group in canonical order (runs by its canonical repository's origin), with the groups' stats."""

    assigned: str
    repository_groups: int
    repository_pairs_verified: int
    repository_pairs: list[JsonDict]


@dataclass(frozen=True, kw_only=True)
class CopiesDecided(Decided):
    """Step 5: the files a partition's groups' copies share with earlier members, dropped
    (``removed``: their documents)."""

    removed: str
    repositories_removed: int
    fork_files_kept: int
    repository_files_removed: int


@dataclass(frozen=True, kw_only=True)
class ExactDecided(Decided):
    """The exact groups of a content-hash range (``dropped``: the documents they remove)."""

    dropped: str
    exact_groups: int
    exact_removed: int
    largest: list[JsonDict]
    peak_mb: float


@dataclass(frozen=True, kw_only=True)
class RoutedBuckets:
    """A bucket partition's candidate pairs, sorted by the verify partition each goes to."""

    pairs: Path
    offsets: Path
    peak_mb: float


@dataclass(frozen=True, kw_only=True)
class VerifiedForest:
    """A verify partition's verified pairs reduced to a forest (``forest``)."""

    forest: Path
    candidate_pairs: int
    verified_pairs: int
    peak_mb: float


@dataclass(frozen=True, kw_only=True)
class NearDecided(Decided):
    """The near-duplicate clusters of a label range, each keeping its first."""

    near_clusters: int
    near_removed: int
    largest_cluster: int
    cluster_sizes: dict[str, int]
    largest: list[JsonDict]
    peak_mb: float

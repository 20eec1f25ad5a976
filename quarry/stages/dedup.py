"""The dedup stage: signatures per shard -> repository copies, exact groups and near-duplicate
clusters, each in partitions of its own key space -> survivors per shard.

Every step that decides by repository or by document runs as a map over partitions
(quarry.curation.dedup.repository_partitions, quarry.curation.dedup.document_partitions, quarry.curation.dedup.partition),
so no process holds every document's keys or decisions; the global steps between them only
count, name files and keep a byte per document (which documents are gone, which are live). The
filter of each shard reads its slice of every step's decisions (quarry.curation.dedup.decisions).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from quarry.config import Params
from quarry.curation.dedup.config import DedupConfig
from quarry.curation.dedup.decisions import largest, merge_near_stats, write_clusters
from quarry.curation.dedup.document_partitions import (EXACT_BYTES, NEAR_BYTES, exact_partition, live_documents, mark,
                                              near_partition, split_clusters)
from quarry.curation.dedup.index import ShardIndex, index_shard, load_index, save_layout
from quarry.curation.dedup.partition import (BUCKET_BYTES, bucket_partition, merge_forests, routed_files,
                                    verify_partition)
from quarry.curation.dedup.repository import empty_stats
from quarry.curation.dedup.repository_partitions import (ENTRY_BYTES, KEY_BYTES, PAIR_BYTES, candidate_partition,
                                                copy_partition, group_copies, pair_partition,
                                                repository_partition)
from quarry.curation.dedup.parts import (CandidatePairs, CopiesDecided, CopyGroups, ExactDecided, IndexedShard, NearDecided,
                                         RepositoryTable, RoutedBuckets, VerifiedForest, VerifiedPairs)
from quarry.curation.dedup.shards import STAGE, filter_shard
from quarry.engine import Global, GlobalJob, ItemJob, Map, PerShard, Plan, ShardJob, Stage, Written
from quarry.engine.partitions import (merged_slices, partition_count, partition_items, route_slices, routed_slices,
                                      run_files, slice_files)


def dedup_config(params: Params) -> DedupConfig:
    return DedupConfig.from_params(params).resolved()


def _parts(config: DedupConfig, held_bytes: float) -> int:
    return partition_count(int(held_bytes), config.partition_mb, config.partitions)


def _index(layout: str, config: DedupConfig) -> ShardIndex:
    """The index the map wrote (one folder per shard), as the plan laid it out."""
    return load_index(layout, with_shingles=config.verify == "exact")


def _runs(prefix) -> list[str]:
    return [str(path) for path in run_files(prefix)]


# What the plans hand each partition (a work item's value).

@dataclass(frozen=True)
class KeyPartition:
    """A partition of a key space over the index (repositories, exact hashes, band keys)."""

    layout: str
    part: int
    parts: int
    out: str
    marks: str = ""          # the byte-per-document file it reads: removed copies (exact), live documents (buckets)


@dataclass(frozen=True)
class SourcesPartition:
    """A partition reading the runs of an earlier step's partitions (``sources``)."""

    sources: list
    part: int
    parts: int
    out: str
    layout: str = ""
    tables: tuple[str, ...] = ()   # the repository tables (pairs)


@dataclass(frozen=True)
class CopiesPartition:
    layout: str
    assigned: str
    tables: tuple[str, ...]
    part: int
    out: str


@dataclass(frozen=True)
class ClusterRange:
    layout: str
    docs: str
    labels: str
    out: str


# What the global steps between the partitions return.

@dataclass(frozen=True, kw_only=True)
class IndexPlan(Plan):
    """The index's layout and size (items: the repository partitions)."""

    layout: str
    total: int
    parts: int


@dataclass(frozen=True, kw_only=True)
class Groups(Plan):
    """The copy groups (items: the copies partitions)."""

    groups: CopyGroups


@dataclass(frozen=True, kw_only=True)
class ExactPlan(Plan):
    dropped: str             # a byte per document: repository copies, then exact copies too


@dataclass(frozen=True, kw_only=True)
class LivePlan(Plan):
    near_skipped_short: int
    parts: int


@dataclass(frozen=True, kw_only=True)
class ClusterPlan(Plan):
    merge_mb: float
    candidate_pairs: int
    verified_pairs: int


def index_shard_phase(job: ShardJob, config: DedupConfig) -> IndexedShard:
    """Signatures, band keys, content hashes and survival keys of one shard, in its own work folder."""
    folder = Path(job.work)
    folder.mkdir(parents=True, exist_ok=True)
    counts = index_shard(job.src, folder / "index", config)
    return IndexedShard(prefix=str(folder / "index"), **counts)


def plan_phase(job: GlobalJob, config: DedupConfig) -> IndexPlan:
    """The index's layout (each shard's first document number), then the repository partitions."""
    indexed = job.each(INDEX)
    work = Path(job.work)
    layout = str(save_layout(work, [Path(found.prefix) for found in indexed], [found.records for found in indexed]))
    total = sum(found.records for found in indexed)
    parts, items = 0, []
    if config.repository.enabled and total:
        parts = _parts(config, sum(found.origin_bytes for found in indexed) * ENTRY_BYTES)
        items = partition_items(work.parent / "repositories", parts,
                                lambda part, out: KeyPartition(layout, part, parts, str(out)),
                                lambda out: [*_runs(f"{out}.repos"), *_runs(f"{out}.keys")])
    return IndexPlan(layout=layout, total=total, parts=parts, items=items)


def repositories_phase(job: ItemJob, config: DedupConfig) -> RepositoryTable:
    item: KeyPartition = job.item
    return repository_partition(_index(item.layout, config), item.part, item.parts, Path(item.out), config.seed)


def candidates_plan_phase(job: GlobalJob, config: DedupConfig) -> Plan:
    repos = job.each(REPOSITORIES)
    sources = [found.out for found in repos]
    parts = _parts(config, sum(Path(f"{source}.keys.bin").stat().st_size for source in sources) * KEY_BYTES) \
        if sum(found.repositories for found in repos) > 1 else 0
    items = partition_items(Path(job.work).parent / "candidates", parts,
                            lambda part, out: SourcesPartition(sources, part, parts, str(out)),
                            lambda out: _runs(f"{out}.pairs"))
    return Plan(items=items)


def candidates_phase(job: ItemJob, config: DedupConfig) -> CandidatePairs:
    item: SourcesPartition = job.item
    return candidate_partition(item.sources, item.part, item.parts, Path(item.out))


def pairs_plan_phase(job: GlobalJob, config: DedupConfig) -> Plan:
    found = job.each(CANDIDATES)
    sources = [part.out for part in found]
    tables = tuple(part.out for part in job.each(REPOSITORIES))
    parts = _parts(config, sum(part.pairs for part in found) * PAIR_BYTES) if found else 0
    layout = job.of(PLAN).layout
    items = partition_items(Path(job.work).parent / "pairs", parts,
                            lambda part, out: SourcesPartition(sources, part, parts, str(out), layout, tables),
                            lambda out: [f"{out}.edges.json"])
    return Plan(items=items)


def pairs_phase(job: ItemJob, config: DedupConfig) -> VerifiedPairs:
    item: SourcesPartition = job.item
    return pair_partition(_index(item.layout, config), item.sources, list(item.tables), item.part, item.parts,
                          Path(item.out), config.repository)


def groups_phase(job: GlobalJob, config: DedupConfig) -> Groups:
    """The verified pairs joined into groups (per repository): each copy assigned to its survivor."""
    tables = tuple(part.out for part in job.each(REPOSITORIES))
    grouped = group_copies(job.each(PAIRS), Path(job.work) / "assigned")
    layout = job.of(PLAN).layout
    items = partition_items(Path(job.work).parent / "copies", len(tables),
                            lambda part, out: CopiesPartition(layout, grouped.assigned, tables, part, str(out)),
                            lambda out: [*slice_files(out), f"{out}.removed.npy"]) if grouped.repository_groups else []
    return Groups(groups=grouped, items=items)


def copies_phase(job: ItemJob, config: DedupConfig) -> CopiesDecided:
    item: CopiesPartition = job.item
    return copy_partition(_index(item.layout, config), item.assigned, list(item.tables), item.part, Path(item.out),
                          config.repository)


def exact_plan_phase(job: GlobalJob, config: DedupConfig) -> ExactPlan:
    """A byte per document marking the repository copies (``dropped.bin``: the exact copies join
    them next), then the exact partitions."""
    plan = job.of(PLAN)
    removed = Path(job.work) / "dropped.bin"
    removed.parent.mkdir(parents=True, exist_ok=True)
    removed.unlink(missing_ok=True)
    mark(removed, plan.total, [part.removed for part in job.each(COPIES)])
    parts = _parts(config, plan.total * EXACT_BYTES) if config.exact and plan.total else 0
    items = partition_items(Path(job.work).parent / "exact", parts,
                            lambda part, out: KeyPartition(plan.layout, part, parts, str(out), str(removed)),
                            lambda out: [*slice_files(out), f"{out}.dropped.npy"])
    return ExactPlan(dropped=str(removed), items=items)


def exact_phase(job: ItemJob, config: DedupConfig) -> ExactDecided:
    item: KeyPartition = job.item
    return exact_partition(_index(item.layout, config), Path(item.marks), item.part, item.parts, Path(item.out))


def live_phase(job: GlobalJob, config: DedupConfig) -> LivePlan:
    """Which documents near dedup compares (a signature, not dropped as a copy), then the
    partitions of the band-key space."""
    plan = job.of(PLAN)
    dropped = Path(job.of(EXACT_PLAN).dropped)
    mark(dropped, plan.total, [part.dropped for part in job.each(EXACT)])
    if not (config.near and plan.total):
        return LivePlan(near_skipped_short=0, parts=0, items=[])
    index = _index(plan.layout, config)
    live = Path(job.work) / "live.bin"
    live.parent.mkdir(parents=True, exist_ok=True)
    compared, short = live_documents(index, dropped, live)
    parts = _parts(config, compared * BUCKET_BYTES)
    items = partition_items(Path(job.work).parent / "buckets", parts,
                            lambda part, out: KeyPartition(plan.layout, part, parts, str(out), str(live)),
                            lambda out: routed_files(out))
    return LivePlan(near_skipped_short=short, parts=parts, items=items)


def bucket_phase(job: ItemJob, config: DedupConfig) -> RoutedBuckets:
    item: KeyPartition = job.item
    bands, _ = config.band_shape()
    return bucket_partition(_index(item.layout, config), Path(item.marks), bands, item.part, item.parts,
                            Path(item.out))


def route_phase(job: GlobalJob, config: DedupConfig) -> Plan:
    """Hands verify partition q the slice for q of every bucket partition's pairs."""
    sources = [(bucket.pairs, bucket.offsets) for bucket in job.each(BUCKETS)]
    parts = job.of(LIVE).parts
    layout = job.of(PLAN).layout
    items = partition_items(Path(job.work).parent / "verify", parts,
                            lambda part, out: SourcesPartition(sources, part, parts, f"{out}.forest.npy", layout),
                            lambda out: [f"{out}.forest.npy"])
    return Plan(items=items)


def verify_phase(job: ItemJob, config: DedupConfig) -> VerifiedForest:
    item: SourcesPartition = job.item
    return verify_partition(_index(item.layout, config), item.sources, item.part, config, Path(item.out))


def cluster_phase(job: GlobalJob, config: DedupConfig) -> ClusterPlan:
    """The partitions' forests merged into clusters (a label per clustered document), handed out
    by label range to the partitions that decide them."""
    plan, verify = job.of(PLAN), job.each(VERIFY)
    if not verify:
        return ClusterPlan(merge_mb=0.0, candidate_pairs=0, verified_pairs=0, items=[])
    docs, labels, merge_mb = merge_forests([found.forest for found in verify], plan.total)
    parts = _parts(config, len(docs) * NEAR_BYTES)
    files = split_clusters(docs, labels, parts, Path(job.work))
    items = partition_items(Path(job.work).parent / "near", parts,
                            lambda part, out: ClusterRange(plan.layout, str(files[part][0]), str(files[part][1]), str(out)),
                            lambda out: slice_files(out))
    return ClusterPlan(merge_mb=merge_mb, candidate_pairs=sum(found.candidate_pairs for found in verify),
                       verified_pairs=sum(found.verified_pairs for found in verify), items=items)


def near_phase(job: ItemJob, config: DedupConfig) -> NearDecided:
    item: ClusterRange = job.item
    return near_partition(_index(item.layout, config), Path(item.docs), Path(item.labels), Path(item.out))


SLICES = "slices.json"                   # the decisions step's list of their outputs


def decisions_phase(job: GlobalJob, config: DedupConfig) -> PerShard:
    """Each shard's input to the filter: its slice of every deciding partition's decisions, in the
    order of the steps (repository copies, exact, near)."""
    parts = [*job.each(COPIES), *job.each(EXACT), *job.each(NEAR)]
    return PerShard(shards=route_slices(Path(job.work) / SLICES, parts, len(job.names)))


def filter_shard_phase(job: ShardJob, config: DedupConfig) -> Written:
    decisions = routed_slices(job.input(DECISIONS))
    return Written(ledger=filter_shard(job.src, Path(job.dst), decisions, rejects=Path(job.rejects)).to_dict())


def _stats(job: GlobalJob, config: DedupConfig) -> dict:
    """The clusters' statistics, as the one-process path (quarry.curation.dedup.cluster) gives them."""
    plan = job.of(PLAN)
    stats: dict = {"documents": plan.total}
    if config.repository.enabled and plan.total:
        copies, groups = job.each(COPIES), job.of(GROUPS).groups
        stats.update(empty_stats(sum(part.repositories for part in job.each(REPOSITORIES))))
        stats.update({"repository_groups": groups.repository_groups,
                      "repositories_removed": sum(part.repositories_removed for part in copies),
                      "repository_files_removed": sum(part.repository_files_removed for part in copies),
                      "fork_files_kept": sum(part.fork_files_kept for part in copies),
                      "repository_pairs_verified": groups.repository_pairs_verified,
                      "repository_pairs": groups.repository_pairs})
    exact, near = job.each(EXACT), job.each(NEAR)
    if config.exact:
        stats.update({"exact_groups": sum(part.exact_groups for part in exact),
                      "exact_removed": sum(part.exact_removed for part in exact)})
    if config.near and plan.total:
        cluster = job.of(CLUSTER)
        stats.update({"near_skipped_short": job.of(LIVE).near_skipped_short,
                      "candidate_pairs": cluster.candidate_pairs, "verified_pairs": cluster.verified_pairs,
                      **merge_near_stats(near)})
    stats["largest_clusters"] = largest(group for part in (*exact, *near) for group in part.largest)
    return stats


def dedup_finish(job: GlobalJob, config: DedupConfig) -> dict:
    counted = (REPOSITORIES, CANDIDATES, PAIRS, EXACT, BUCKETS, NEAR)
    counts = {phase.name: len(job.each(phase)) for phase in counted}
    peaks = {phase.name: max((part.peak_mb for part in job.each(phase)), default=0.0)
             for phase in (REPOSITORIES, CANDIDATES, PAIRS, EXACT, BUCKETS, VERIFY, NEAR)}
    peaks["merge"] = job.of(CLUSTER).merge_mb
    partitions = {"count": job.of(LIVE).parts, "counts": counts, "partition_mb": config.partition_mb,
                  "estimated_peak_mb": peaks}
    return {"clusters": _stats(job, config), "partitions": partitions, "config": config.summary()}


# The partitions and the plans between them name the files they read by path (uncached); the index
# map is keyed on its shard's content, the filter on its decisions' digests.
INDEX = Map("index", index_shard_phase, IndexedShard)
PLAN = Global("plan", plan_phase, IndexPlan, inline=True)
REPOSITORIES = Map("repositories", repositories_phase, RepositoryTable, over="plan", cached=False)
CANDIDATES_PLAN = Global("candidates_plan", candidates_plan_phase, Plan, inline=True)
CANDIDATES = Map("candidates", candidates_phase, CandidatePairs, over="candidates_plan", cached=False)
PAIRS_PLAN = Global("pairs_plan", pairs_plan_phase, Plan, inline=True)
PAIRS = Map("pairs", pairs_phase, VerifiedPairs, over="pairs_plan", cached=False)
GROUPS = Global("groups", groups_phase, Groups, cached=False)
COPIES = Map("copies", copies_phase, CopiesDecided, over="groups", cached=False)
EXACT_PLAN = Global("exact_plan", exact_plan_phase, ExactPlan, inline=True)
EXACT = Map("exact", exact_phase, ExactDecided, over="exact_plan", cached=False)
LIVE = Global("live", live_phase, LivePlan, inline=True)
BUCKETS = Map("buckets", bucket_phase, RoutedBuckets, over="live", cached=False)
ROUTE = Global("route", route_phase, Plan, inline=True)
VERIFY = Map("verify", verify_phase, VerifiedForest, over="route", cached=False)
CLUSTER = Global("cluster", cluster_phase, ClusterPlan, cached=False)
NEAR = Map("near", near_phase, NearDecided, over="cluster", cached=False)
DECISIONS = Global("decisions", decisions_phase, PerShard, inline=True)
FILTER = Map("filter", filter_shard_phase, Written, writes=True)
DEDUP = Stage(STAGE, folder="dedup", config=dedup_config, finish=dedup_finish, phases=(
    INDEX, PLAN, REPOSITORIES, CANDIDATES_PLAN, CANDIDATES, PAIRS_PLAN, PAIRS, GROUPS, COPIES, EXACT_PLAN, EXACT,
    LIVE, BUCKETS, ROUTE, VERIFY, CLUSTER, NEAR, DECISIONS, FILTER))


def decided(work: Path) -> list[dict[str, list]]:
    """Each shard's decisions (row -> decision), from the work folder a run of the stage kept
    (``run_local(DEDUP, ..., work_dir=work)``)."""
    shards = len(load_index(work / "plan" / "layout.json").prefixes)
    slices = orjson.loads((work / "decisions" / SLICES).read_bytes())
    return [merged_slices(slices, shard) for shard in range(shards)]


def write_clusters_file(work: Path, src_dir: Path, target: Path) -> None:
    """Every document's cluster (decisions.write_clusters) into ``target``, from a kept work folder."""
    write_clusters(load_index(work / "plan" / "layout.json"), decided(work), Path(target))

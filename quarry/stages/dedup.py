"""The dedup stage: signatures per shard -> repository copies, exact groups and near-duplicate
clusters, each in partitions of its own key space -> survivors per shard.

Every step that decides by repository or by document runs as a map over partitions
(quarry.curation.dedup.repository_partitions, quarry.curation.dedup.document_partitions, quarry.curation.dedup.partition),
so no process holds every document's keys or decisions; the global steps between them only
count, name files and keep a byte per document (which documents are gone, which are live). The
filter of each shard reads its slice of every step's decisions (quarry.curation.dedup.decisions).
"""

from __future__ import annotations

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
from quarry.curation.dedup.shards import STAGE, filter_shard
from quarry.engine import Global, GlobalJob, ItemJob, Map, ShardJob, Stage
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


def index_shard_phase(job: ShardJob, config: DedupConfig) -> dict:
    """Signatures, band keys, content hashes and survival keys of one shard, in its own work folder."""
    folder = Path(job.work)
    folder.mkdir(parents=True, exist_ok=True)
    counts = index_shard(job.src, folder / "index", config)
    return {"prefix": str(folder / "index"), **counts}


def plan_phase(job: GlobalJob, config: DedupConfig) -> dict:
    """The index's layout (each shard's first document number), then the repository partitions."""
    indexed = job.results["index"]
    work = Path(job.work)
    layout = save_layout(work, [Path(found["prefix"]) for found in indexed], [found["records"] for found in indexed])
    total = sum(found["records"] for found in indexed)
    parts, items = 0, []
    if config.repository.enabled and total:
        parts = _parts(config, sum(found["origin_bytes"] for found in indexed) * ENTRY_BYTES)
        items = partition_items(work.parent / "repositories", parts, lambda part, out: {
            "layout": str(layout), "part": part, "parts": parts, "out": str(out)},
            lambda out: [*_runs(f"{out}.repos"), *_runs(f"{out}.keys")])
    return {"layout": str(layout), "total": total, "parts": parts, "items": items}


def repositories_phase(job: ItemJob, config: DedupConfig) -> dict:
    item = job.item
    return repository_partition(_index(item["layout"], config), item["part"], item["parts"], Path(item["out"]),
                                config.seed)


def candidates_plan_phase(job: GlobalJob, config: DedupConfig) -> dict:
    repos = job.results["repositories"]
    sources = [found["out"] for found in repos]
    parts = _parts(config, sum(Path(f"{source}.keys.bin").stat().st_size for source in sources) * KEY_BYTES) \
        if sum(found["repositories"] for found in repos) > 1 else 0
    items = partition_items(Path(job.work).parent / "candidates", parts,
                            lambda part, out: {"sources": sources, "part": part, "parts": parts, "out": str(out)},
                            lambda out: _runs(f"{out}.pairs"))
    return {"items": items}


def candidates_phase(job: ItemJob, config: DedupConfig) -> dict:
    item = job.item
    return candidate_partition(item["sources"], item["part"], item["parts"], Path(item["out"]))


def pairs_plan_phase(job: GlobalJob, config: DedupConfig) -> dict:
    found = job.results["candidates"]
    sources = [part["out"] for part in found]
    tables = [part["out"] for part in job.results["repositories"]]
    parts = _parts(config, sum(part["pairs"] for part in found) * PAIR_BYTES) if found else 0
    layout = job.results["plan"]["layout"]
    items = partition_items(Path(job.work).parent / "pairs", parts, lambda part, out: {
        "layout": layout, "sources": sources, "tables": tables, "part": part, "parts": parts, "out": str(out)},
        lambda out: [f"{out}.edges.json"])
    return {"items": items}


def pairs_phase(job: ItemJob, config: DedupConfig) -> dict:
    item = job.item
    return pair_partition(_index(item["layout"], config), item["sources"], item["tables"], item["part"],
                          item["parts"], Path(item["out"]), config.repository)


def groups_phase(job: GlobalJob, config: DedupConfig) -> dict:
    """The verified pairs joined into groups (per repository): each copy assigned to its survivor."""
    tables = [part["out"] for part in job.results["repositories"]]
    grouped = group_copies(job.results["pairs"], Path(job.work) / "assigned")
    layout = job.results["plan"]["layout"]
    items = partition_items(Path(job.work).parent / "copies", len(tables), lambda part, out: {
        "layout": layout, "assigned": grouped["assigned"], "tables": tables, "part": part, "out": str(out)},
        lambda out: [*slice_files(out), f"{out}.removed.npy"]) if grouped["repository_groups"] else []
    return {**{key: grouped[key] for key in ("repository_groups", "repository_pairs_verified", "repository_pairs")},
            "items": items}


def copies_phase(job: ItemJob, config: DedupConfig) -> dict:
    item = job.item
    return copy_partition(_index(item["layout"], config), item["assigned"], item["tables"], item["part"],
                          Path(item["out"]), config.repository)


def exact_plan_phase(job: GlobalJob, config: DedupConfig) -> dict:
    """A byte per document marking the repository copies (``dropped.bin``: the exact copies join
    them next), then the exact partitions."""
    plan = job.results["plan"]
    removed = Path(job.work) / "dropped.bin"
    removed.parent.mkdir(parents=True, exist_ok=True)
    removed.unlink(missing_ok=True)
    mark(removed, plan["total"], [part["removed"] for part in job.results["copies"]])
    parts = _parts(config, plan["total"] * EXACT_BYTES) if config.exact and plan["total"] else 0
    items = partition_items(Path(job.work).parent / "exact", parts, lambda part, out: {
        "layout": plan["layout"], "removed": str(removed), "part": part, "parts": parts, "out": str(out)},
        lambda out: [*slice_files(out), f"{out}.dropped.npy"])
    return {"dropped": str(removed), "items": items}


def exact_phase(job: ItemJob, config: DedupConfig) -> dict:
    item = job.item
    return exact_partition(_index(item["layout"], config), Path(item["removed"]), item["part"], item["parts"],
                           Path(item["out"]))


def live_phase(job: GlobalJob, config: DedupConfig) -> dict:
    """Which documents near dedup compares (a signature, not dropped as a copy), then the
    partitions of the band-key space."""
    plan = job.results["plan"]
    dropped = Path(job.results["exact_plan"]["dropped"])
    mark(dropped, plan["total"], [part["dropped"] for part in job.results["exact"]])
    if not (config.near and plan["total"]):
        return {"parts": 0, "items": []}
    index = _index(plan["layout"], config)
    live = Path(job.work) / "live.bin"
    live.parent.mkdir(parents=True, exist_ok=True)
    compared, short = live_documents(index, dropped, live)
    parts = _parts(config, compared * BUCKET_BYTES)
    items = partition_items(Path(job.work).parent / "buckets", parts, lambda part, out: {
        "layout": plan["layout"], "live": str(live), "part": part, "parts": parts, "out": str(out)},
        lambda out: routed_files(out))
    return {"near_skipped_short": short, "parts": parts, "items": items}


def bucket_phase(job: ItemJob, config: DedupConfig) -> dict:
    item = job.item
    bands, _ = config.band_shape()
    return bucket_partition(_index(item["layout"], config), Path(item["live"]), bands, item["part"], item["parts"],
                            Path(item["out"]))


def route_phase(job: GlobalJob, config: DedupConfig) -> dict:
    """Hands verify partition q the slice for q of every bucket partition's pairs."""
    sources = [(bucket["pairs"], bucket["offsets"]) for bucket in job.results["buckets"]]
    parts = job.results["live"]["parts"]
    layout = job.results["plan"]["layout"]
    items = partition_items(Path(job.work).parent / "verify", parts, lambda part, out: {
        "layout": layout, "sources": sources, "part": part, "out": f"{out}.forest.npy"},
        lambda out: [f"{out}.forest.npy"])
    return {"items": items}


def verify_phase(job: ItemJob, config: DedupConfig) -> dict:
    item = job.item
    return verify_partition(_index(item["layout"], config), item["sources"], item["part"], config, Path(item["out"]))


def cluster_phase(job: GlobalJob, config: DedupConfig) -> dict:
    """The partitions' forests merged into clusters (a label per clustered document), handed out
    by label range to the partitions that decide them."""
    plan, verify = job.results["plan"], job.results["verify"]
    if not verify:
        return {"merge_mb": 0.0, "items": []}
    docs, labels, merge_mb = merge_forests([found["forest"] for found in verify], plan["total"])
    parts = _parts(config, len(docs) * NEAR_BYTES)
    files = split_clusters(docs, labels, parts, Path(job.work))
    items = partition_items(Path(job.work).parent / "near", parts, lambda part, out: {
        "layout": plan["layout"], "docs": str(files[part][0]), "labels": str(files[part][1]), "out": str(out)},
        lambda out: slice_files(out))
    return {"merge_mb": merge_mb, "candidate_pairs": sum(found["candidate_pairs"] for found in verify),
            "verified_pairs": sum(found["verified_pairs"] for found in verify), "items": items}


def near_phase(job: ItemJob, config: DedupConfig) -> dict:
    item = job.item
    return near_partition(_index(item["layout"], config), Path(item["docs"]), Path(item["labels"]), Path(item["out"]))


DECIDING = ("copies", "exact", "near")   # the steps whose decisions a shard applies, in this order
SLICES = "slices.json"                   # the decisions step's list of their outputs


def decisions_phase(job: GlobalJob, config: DedupConfig) -> dict:
    """Each shard's input to the filter: its slice of every deciding partition's decisions, in the
    order of the steps."""
    parts = [part for step in DECIDING for part in job.results[step]]
    return {"shards": route_slices(Path(job.work) / SLICES, parts, len(job.names))}


def filter_shard_phase(job: ShardJob, config: DedupConfig) -> dict:
    decisions = routed_slices(job.inputs["decisions"])
    return {"ledger": filter_shard(job.src, Path(job.dst), decisions, rejects=Path(job.rejects)).to_dict()}


def _stats(results: dict, config: DedupConfig) -> dict:
    """The clusters' statistics, as the one-process path (quarry.curation.dedup.cluster) gives them."""
    plan = results["plan"]
    stats: dict = {"documents": plan["total"]}
    if config.repository.enabled and plan["total"]:
        copies = results["copies"]
        stats.update(empty_stats(sum(part["repositories"] for part in results["repositories"])))
        groups = results["groups"]
        stats.update({"repository_groups": groups["repository_groups"],
                      "repositories_removed": sum(part["repositories_removed"] for part in copies),
                      "repository_files_removed": sum(part["repository_files_removed"] for part in copies),
                      "fork_files_kept": sum(part["fork_files_kept"] for part in copies),
                      "repository_pairs_verified": groups["repository_pairs_verified"],
                      "repository_pairs": groups["repository_pairs"]})
    exact, near = results["exact"], results["near"]
    if config.exact:
        stats.update({"exact_groups": sum(part["exact_groups"] for part in exact),
                      "exact_removed": sum(part["exact_removed"] for part in exact)})
    if config.near and plan["total"]:
        cluster = results["cluster"]
        stats.update({"near_skipped_short": results["live"]["near_skipped_short"],
                      "candidate_pairs": cluster.get("candidate_pairs", 0),
                      "verified_pairs": cluster.get("verified_pairs", 0),
                      **merge_near_stats(part for part in near)})
    stats["largest_clusters"] = largest(group for part in (*exact, *near) for group in part["largest"])
    return stats


def dedup_finish(job: GlobalJob, config: DedupConfig) -> dict:
    results = job.results
    counts = {step: len(results[step]) for step in ("repositories", "candidates", "pairs", "exact", "buckets",
                                                     "near")}
    peaks = {step: max((part["peak_mb"] for part in results[step]), default=0.0)
             for step in ("repositories", "candidates", "pairs", "exact", "buckets", "verify", "near")}
    peaks["merge"] = results["cluster"]["merge_mb"]
    partitions = {"count": results["live"]["parts"], "counts": counts, "partition_mb": config.partition_mb,
                  "estimated_peak_mb": peaks}
    return {"clusters": _stats(results, config), "partitions": partitions, "config": config.summary()}


# The partitions and the plans between them name the files they read by path (uncached); the index
# map is keyed on its shard's content, the filter on its decisions' digests.
DEDUP = Stage(STAGE, folder="dedup", config=dedup_config, finish=dedup_finish, phases=(
    Map("index", index_shard_phase),
    Global("plan", plan_phase, inline=True),
    Map("repositories", repositories_phase, over="plan", cached=False),
    Global("candidates_plan", candidates_plan_phase, inline=True),
    Map("candidates", candidates_phase, over="candidates_plan", cached=False),
    Global("pairs_plan", pairs_plan_phase, inline=True),
    Map("pairs", pairs_phase, over="pairs_plan", cached=False),
    Global("groups", groups_phase, cached=False),
    Map("copies", copies_phase, over="groups", cached=False),
    Global("exact_plan", exact_plan_phase, inline=True),
    Map("exact", exact_phase, over="exact_plan", cached=False),
    Global("live", live_phase, inline=True),
    Map("buckets", bucket_phase, over="live", cached=False),
    Global("route", route_phase, inline=True),
    Map("verify", verify_phase, over="route", cached=False),
    Global("cluster", cluster_phase, cached=False),
    Map("near", near_phase, over="cluster", cached=False),
    Global("decisions", decisions_phase, inline=True),
    Map("filter", filter_shard_phase, writes=True),
))


def decided(work: Path) -> list[dict[str, list]]:
    """Each shard's decisions (row -> decision), from the work folder a run of the stage kept
    (``run_local(DEDUP, ..., work_dir=work)``)."""
    shards = len(load_index(work / "plan" / "layout.json").prefixes)
    slices = orjson.loads((work / "decisions" / SLICES).read_bytes())
    return [merged_slices(slices, shard) for shard in range(shards)]


def write_clusters_file(work: Path, src_dir: Path, target: Path) -> None:
    """Every document's cluster (decisions.write_clusters) into ``target``, from a kept work folder."""
    write_clusters(load_index(work / "plan" / "layout.json"), decided(work), Path(target))

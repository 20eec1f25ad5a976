"""The dedup stage: signatures per shard -> repository and exact copies over all shards ->
near-duplicate clusters in partitions (quarry.dedup.partition) -> survivors per shard."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson

from quarry.config import Params
from quarry.dedup.cluster import decide_near, decisions_file, prune, write_clusters, write_decisions
from quarry.dedup.config import DedupConfig
from quarry.dedup.index import ShardIndex, index_shard, save_scratch
from quarry.dedup.partition import bucket_partition, merge_forests, partition_count, routed_files, verify_partition
from quarry.dedup.stage import STAGE, filter_shard
from quarry.engine import Global, GlobalJob, ItemJob, Map, ShardJob, Stage, WorkItem
from quarry.parallel import input_shards, relative_name


def dedup_config(params: Params) -> DedupConfig:
    return DedupConfig.from_params(params).resolved()


def index_shard_phase(job: ShardJob, config: DedupConfig) -> Path:
    """Signatures, band keys and exact hashes of one shard, in its own work folder."""
    folder = Path(job.work)
    folder.mkdir(parents=True, exist_ok=True)
    index_shard(job.src, folder / "index", config)
    return folder


def _index(folders: list[Path], config: DedupConfig) -> ShardIndex:
    """The index the map wrote, one folder per shard."""
    return ShardIndex([Path(folder) / "index" for folder in folders], with_shingles=config.verify == "exact")


def plan_phase(job: GlobalJob, config: DedupConfig) -> dict:
    """Repository copies and exact groups over all shards, then the near-duplicate partitions."""
    index = _index(job.results["index"], config)
    decisions, live, stats = prune(index, config)
    work = Path(job.work)
    work.mkdir(parents=True, exist_ok=True)
    save_scratch(work / "decisions.json", orjson.dumps(decisions, option=orjson.OPT_NON_STR_KEYS))
    parts, items = 0, []
    if live is not None:
        save_scratch(work / "live.bin", live.tobytes())
        parts = partition_count(int(live.sum()), config)
        buckets = work.parent / "buckets"
        for part in range(parts):
            out = buckets / f"{part:05d}"
            items.append(WorkItem(f"partition {part + 1}/{parts}", {
                "part": part, "parts": parts, "index": job.results["index"], "live": work / "live.bin",
                "out": str(out)}, tuple(map(str, routed_files(out)))))
    return {"stats": stats, "decisions": work / "decisions.json", "parts": parts, "items": items}


def bucket_phase(job: ItemJob, config: DedupConfig) -> dict:
    item = job.item
    bands, _ = config.band_shape()
    return bucket_partition(_index(item["index"], config), item["live"], bands, item["part"], item["parts"],
                            Path(item["out"]))


def route_phase(job: GlobalJob, config: DedupConfig) -> dict:
    """Hands verify partition q the slice for q of every bucket partition's pairs."""
    sources = [(bucket["pairs"], bucket["offsets"]) for bucket in job.results["buckets"]]
    parts = job.results["plan"]["parts"]
    folder = Path(job.work).parent / "verify"
    items = [WorkItem(f"partition {part + 1}/{parts}", {"part": part, "sources": sources, "index": job.results["index"],
                                                         "out": str(folder / f"{part:05d}.forest.npy")},
                      (str(folder / f"{part:05d}.forest.npy"),)) for part in range(parts)]
    return {"items": items}


def verify_phase(job: ItemJob, config: DedupConfig) -> dict:
    item = job.item
    return verify_partition(_index(item["index"], config), item["sources"], item["part"], config,
                            Path(item["out"]))


def cluster_phase(job: GlobalJob, config: DedupConfig) -> dict:
    """Near-duplicate clusters from the partitions' forests; one decisions file per shard."""
    plan, verify = job.results["plan"], job.results["verify"]
    index = _index(job.results["index"], config)
    decisions = {int(doc): decision for doc, decision in orjson.loads(Path(plan["decisions"]).read_bytes()).items()}
    stats = dict(plan["stats"])
    peaks = {"buckets": max((b["peak_mb"] for b in job.results["buckets"]), default=0.0),
             "verify": max((v["peak_mb"] for v in verify), default=0.0), "merge": 0.0}
    if plan["parts"]:
        docs, labels, peaks["merge"] = merge_forests([v["forest"] for v in verify], index.total)
        stats["candidate_pairs"] = sum(v["candidate_pairs"] for v in verify)
        stats["verified_pairs"] = sum(v["verified_pairs"] for v in verify)
        stats.update(decide_near(index, docs, labels, decisions))
    stats = write_decisions(index, decisions, stats)
    work = Path(job.work)
    work.mkdir(parents=True, exist_ok=True)
    shards = []
    for name, prefix in zip(job.names, index.prefixes, strict=True):
        target = work / f"{name.replace('/', '__')}.json"
        os.replace(decisions_file(prefix), target)  # the index folders stay as the map wrote them
        shards.append(target)
    partitions = {"count": plan["parts"], "partition_mb": config.partition_mb, "estimated_peak_mb": peaks}
    return {"stats": stats, "partitions": partitions, "shards": shards}


def filter_shard_phase(job: ShardJob, config: DedupConfig) -> dict:
    decisions = orjson.loads(job.inputs["cluster"].read_bytes())
    return {"ledger": filter_shard(job.src, Path(job.dst), decisions, rejects=Path(job.rejects)).to_dict()}


def dedup_finish(job: GlobalJob, config: DedupConfig) -> dict:
    cluster = job.results["cluster"]
    return {"clusters": cluster["stats"], "partitions": cluster["partitions"], "config": config.summary()}


# The partition maps and the route name the index files by path (uncached, like a plan); the
# plan and the cluster step are keyed on the content of the index folders and the forests.
DEDUP = Stage(STAGE, folder="dedup", config=dedup_config, finish=dedup_finish, phases=(
    Map("index", index_shard_phase),
    Global("plan", plan_phase),
    Map("buckets", bucket_phase, over="plan", cached=False),
    Global("route", route_phase, cached=False),
    Map("verify", verify_phase, over="route", cached=False),
    Global("cluster", cluster_phase),
    Map("filter", filter_shard_phase, writes=True),
))


def write_clusters_file(work: Path, src_dir: Path, target: Path) -> None:
    """Every document's cluster (cluster.write_clusters) into ``target``, from the work folder a
    run of the stage kept (``run_local(DEDUP, ..., work_dir=work)``)."""
    src_dir = Path(src_dir)
    prefixes = []
    for shard in input_shards(src_dir):
        safe = relative_name(shard, src_dir).replace("/", "__")
        prefixes.append(work / "index" / safe / "index")
        shutil.copyfile(work / "cluster" / f"{safe}.json", decisions_file(prefixes[-1]))
    write_clusters(prefixes, Path(target))

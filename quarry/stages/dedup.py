"""The dedup stage: signatures per shard -> clusters over all shards -> survivors per shard."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson

from quarry.config import Params
from quarry.dedup.cluster import cluster_index, decisions_file, write_clusters
from quarry.dedup.config import DedupConfig
from quarry.dedup.index import index_shard
from quarry.dedup.stage import STAGE, filter_shard
from quarry.engine import Global, GlobalJob, Map, ShardJob, Stage
from quarry.parallel import input_shards, relative_name


def dedup_config(params: Params) -> DedupConfig:
    return DedupConfig.from_params(params).resolved()


def index_shard_phase(job: ShardJob, config: DedupConfig) -> Path:
    """Signatures, band keys and exact hashes of one shard, in its own work folder."""
    folder = Path(job.work)
    folder.mkdir(parents=True, exist_ok=True)
    index_shard(job.src, folder / "index", config)
    return folder


def cluster_phase(job: GlobalJob, config: DedupConfig) -> dict:
    """Exact groups and near-duplicate clusters over all shards; one decisions file per shard."""
    prefixes = [folder / "index" for folder in job.results["index"]]
    stats = cluster_index(prefixes, config)
    work = Path(job.work)
    work.mkdir(parents=True, exist_ok=True)
    shards = []
    for name, prefix in zip(job.names, prefixes, strict=True):
        target = work / f"{name.replace('/', '__')}.json"
        os.replace(decisions_file(prefix), target)  # the index folders stay as the map wrote them
        shards.append(target)
    return {"stats": stats, "shards": shards}


def filter_shard_phase(job: ShardJob, config: DedupConfig) -> dict:
    decisions = orjson.loads(job.inputs["cluster"].read_bytes())
    return {"ledger": filter_shard(job.src, Path(job.dst), decisions, rejects=Path(job.rejects)).to_dict()}


def dedup_finish(job: GlobalJob, config: DedupConfig) -> dict:
    return {"clusters": job.results["cluster"]["stats"], "config": config.summary()}


DEDUP = Stage(STAGE, folder="dedup", config=dedup_config, finish=dedup_finish, phases=(
    Map("index", index_shard_phase),
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

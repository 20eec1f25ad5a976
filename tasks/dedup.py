"""Deduplication as cached Prefect tasks, in the three steps that scale out:

    index_shard_task (per shard, parallel) -> cluster_task (once) -> filter_dedup_shard_task (per shard)

A flow maps the first over shards into an index folder, runs the second over that folder, then
maps the third with each shard's decisions file (``quarry.dedup.cluster.decisions_file``).
"""

from __future__ import annotations

from pathlib import Path

import orjson

from quarry.dedup.cluster import cluster_index, decisions_file
from quarry.dedup.config import DedupConfig
from quarry.dedup.index import index_files, index_shard
from quarry.dedup.stage import filter_shard, index_prefix
from quarry.hashing import file_hash, value_hash
from quarry.parallel import input_shards, relative_name
from quarry.records import write_json
from tasks.caching import cached_task, run_verified
from tasks.shards import map_shard_stage


def _index_outputs(arguments: dict) -> list[Path]:
    prefix = index_prefix(Path(arguments["index_dir"]), arguments["name"])
    return list(index_files(prefix, with_shingles=True).values())


def _decision_outputs(arguments: dict) -> list[Path]:
    return [decisions_file(Path(index["prefix"])) for index in arguments["indexes"]]


@cached_task(outputs=_index_outputs, task_run_name="dedup index {src.name}")
def index_shard_task(src: Path, index_dir: str, name: str, dedup_params: dict) -> dict:
    """Signatures, band keys and exact hashes of one shard: its index prefix and content hash."""
    prefix = index_prefix(Path(index_dir), name)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    index_shard(src, prefix, DedupConfig.from_params({"dedup": dedup_params}))
    content = [file_hash(path) for path in index_files(prefix).values()]
    return {"prefix": str(prefix), "content": value_hash(content)}


@cached_task(outputs=_decision_outputs, task_run_name="dedup cluster")
def cluster_task(indexes: list[dict], dedup_params: dict) -> dict:
    """Exact groups and near-duplicate clusters over all shards (the index_shard_task results,
    in shard order); writes each shard's decisions file."""
    return cluster_index([Path(i["prefix"]) for i in indexes], DedupConfig.from_params({"dedup": dedup_params}))


@cached_task(outputs=("dst", "rejects"), task_run_name="dedup filter {src.name}")
def filter_dedup_shard_task(src: Path, dst: str, decisions: Path, rejects: str) -> dict:
    """Write the survivors of one shard; returns the shard's ledger."""
    return filter_shard(src, Path(dst), orjson.loads(decisions.read_bytes()), rejects=Path(rejects)).to_dict()


def dedup_with_tasks(src_dir: Path, dst_dir: Path, params: dict) -> dict:
    """Index every shard, cluster once, filter every shard; writes ledger.json and returns it."""
    src_dir, dst_dir = Path(src_dir), Path(dst_dir)
    dedup_params = params.get("dedup") or {}
    shards = input_shards(src_dir)
    index_dir = dst_dir.parent / f".{dst_dir.name}-index"
    names = [relative_name(s, src_dir).replace("/", "__") for s in shards]
    indexes = run_verified(index_shard_task, [{"src": shard, "index_dir": str(index_dir), "name": name,
                                                "dedup_params": dedup_params} for shard, name in zip(shards, names)])
    (clusters,) = run_verified(cluster_task, [{"indexes": indexes, "dedup_params": dedup_params}])
    decisions = {relative_name(s, src_dir): decisions_file(Path(i["prefix"])) for s, i in zip(shards, indexes)}
    ledger, _ = map_shard_stage(filter_dedup_shard_task, "dedup", src_dir, dst_dir,
                                per_shard=lambda name: {"decisions": decisions[name]})
    ledger["clusters"] = clusters
    write_json(dst_dir / "ledger.json", ledger)
    return ledger


__all__ = ["cluster_task", "decisions_file", "dedup_with_tasks", "filter_dedup_shard_task", "index_shard_task"]

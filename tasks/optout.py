"""Prefect tasks of the opt-out stage: one task per shard, keyed on the shard and the registry content."""

from __future__ import annotations

from pathlib import Path


from quarry.optout import STAGE, load_registry, optout_shard
from quarry.records import write_json
from tasks.caching import cached_task
from tasks.shards import map_shard_stage


@cached_task(outputs=("dst", "rejects"), task_run_name="opt-out {src.name}")
def optout_shard_task(src: Path, dst: str, rejects: str, registry: Path) -> dict:
    return optout_shard(src, Path(dst), load_registry(registry), rejects=Path(rejects)).to_dict()


def optout_with_tasks(src_dir: Path, dst_dir: Path, registry: Path) -> dict:
    """The stage as tasks, for a flow to call; writes ledger.json and returns the ledger dict."""
    dst_dir, registry = Path(dst_dir), Path(registry)
    ledger, _ = map_shard_stage(optout_shard_task, STAGE, Path(src_dir), dst_dir, registry=registry)
    ledger["registry_hash"] = load_registry(registry).hash
    write_json(dst_dir / "ledger.json", ledger)
    return ledger

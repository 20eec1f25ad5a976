"""Prefect tasks of the opt-out stage: one task per shard, keyed on the shard and the registry content."""

from __future__ import annotations

from pathlib import Path

from prefect import unmapped

from quarry.ledger import merge_ledgers
from quarry.optout import STAGE, load_registry, optout_shard
from quarry.records import shard_paths, write_json
from tasks.caching import cached_task


@cached_task(task_run_name="opt-out {src.name}")
def optout_shard_task(src: Path, dst: str, rejects: str, registry: Path) -> dict:
    return optout_shard(src, Path(dst), load_registry(registry), rejects=Path(rejects)).to_dict()


def optout_with_tasks(src_dir: Path, dst_dir: Path, registry: Path) -> dict:
    """The stage as tasks, for a flow to call; writes ledger.json and returns the ledger dict."""
    src_dir, dst_dir, registry = Path(src_dir), Path(dst_dir), Path(registry)
    shards = [p for p in shard_paths(src_dir) if "rejects" not in p.relative_to(src_dir).parts[:-1]]
    futures = optout_shard_task.map(
        shards, [str(dst_dir / s.relative_to(src_dir)) for s in shards],
        [str(dst_dir / "rejects" / s.relative_to(src_dir)) for s in shards], unmapped(registry))
    ledger = {**merge_ledgers(STAGE, [f.result() for f in futures]).to_dict(),
              "registry_hash": load_registry(registry).hash}
    write_json(dst_dir / "ledger.json", ledger)
    return ledger

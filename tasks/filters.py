"""Quality filters as a cached Prefect task: one shard in, one filtered shard out.

The cache key is the task source, the input shard's bytes and the ``filters:`` params; output
paths are plain strings so that writing them does not change the key.
"""

from __future__ import annotations

from pathlib import Path

from quarry.curate.filters import filter_shard
from tasks.caching import cached_task
from tasks.shards import map_shard_stage


@cached_task(outputs=("dst", "rejects"), task_run_name="filters {src.name}")
def filter_shard_task(src: Path, dst: str, filters_params: dict, rejects: str) -> dict:
    """Filter ``src`` into ``dst``; returns the shard's ledger (merge with quarry.ledger)."""
    return filter_shard(src, Path(dst), {"filters": filters_params}, rejects=Path(rejects)).to_dict()


def filters_with_tasks(src_dir: Path, dst_dir: Path, params: dict) -> dict:
    """The stage as tasks, for a flow to call; writes ledger.json and returns the ledger dict."""
    ledger, _ = map_shard_stage(filter_shard_task, "filters", src_dir, dst_dir,
                                filters_params=params.get("filters") or {})
    return ledger

"""Prefect tasks of the PII stage: redact one shard, or scan one shard (report only).

Output paths are plain strings so that writing them does not change the cache key; the task
declares them as outputs, so a cache hit whose files went missing or changed runs again.
"""

from __future__ import annotations

from pathlib import Path

from quarry.pii.engine import PiiConfig
from quarry.pii.stage import redact_shard, scan_path
from tasks.caching import cached_task
from tasks.shards import map_shard_stage


@cached_task(outputs=("dst", "rejects"), task_run_name="pii {src.name}")
def redact_shard_task(src: Path, dst: str, rejects: str, params: dict) -> dict:
    """Redact ``src`` into ``dst``; returns the shard ledger (``params``: all params or the pii section)."""
    return redact_shard(src, Path(dst), params, rejects=Path(rejects)).to_dict()


@cached_task(outputs=(), task_run_name="pii scan {shard.name}")
def scan_shard_task(shard: Path, params: dict) -> dict:
    """Counts of findings per type and per detector in one shard (no values, no offsets)."""
    by_type: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    for row in scan_path(shard, PiiConfig.from_params(params)):
        by_type[row["type"]] = by_type.get(row["type"], 0) + 1
        by_kind[row["kind"]] = by_kind.get(row["kind"], 0) + 1
    return {"shard": shard.name, "types": dict(sorted(by_type.items())), "kinds": dict(sorted(by_kind.items()))}


def pii_with_tasks(src_dir: Path, dst_dir: Path, params: dict) -> dict:
    """The redaction stage as tasks, for a flow to call; writes ledger.json and returns the ledger dict."""
    # Only the pii section keys the cache: other params changing leaves these shards cached.
    ledger, _ = map_shard_stage(redact_shard_task, "pii", src_dir, dst_dir, params={"pii": params.get("pii") or {}})
    return ledger

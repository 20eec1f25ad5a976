"""Map a per-shard task over a stage's input folder: the shape most curation stages share.

Each shard of ``src_dir`` becomes one call ``task(src=..., dst=..., rejects=..., **extra)`` with the
output and rejects paths mirroring the shard's name under ``dst_dir``; cache hits whose outputs
changed are re-run (tasks.caching.run_verified); the shard ledgers merge into ``ledger.json``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from quarry.ledger import merge_ledgers
from quarry.parallel import input_shards, relative_name
from quarry.records import write_json
from tasks.caching import run_verified


def map_shard_stage(task, stage: str, src_dir: Path, dst_dir: Path, *, ledger_of: Callable[[Any], dict] = dict,
                    per_shard: Callable[[str], dict] | None = None, **extra: Any) -> tuple[dict, list[Any]]:
    """Run ``task`` on every shard; returns (the stage ledger written to ledger.json, raw results).

    ``extra`` goes to every call; ``per_shard(name)`` adds arguments that differ by shard."""
    src_dir, dst_dir = Path(src_dir), Path(dst_dir)
    dst_dir.mkdir(parents=True, exist_ok=True)
    calls = []
    for shard in input_shards(src_dir):
        name = relative_name(shard, src_dir)
        calls.append({"src": shard, "dst": str(dst_dir / name), "rejects": str(dst_dir / "rejects" / name), **extra,
                      **(per_shard(name) if per_shard else {})})
    results = run_verified(task, calls)
    ledger = merge_ledgers(stage, [ledger_of(result) for result in results]).to_dict()
    write_json(dst_dir / "ledger.json", ledger)
    return ledger, results

"""The dedup stage's last step: write each shard's survivors (quarry.stages.dedup runs the stage:
index every shard, cluster once, filter every shard).

    run_dedup(src_dir, dst_dir, params, workers=N)

writes the surviving records of each shard under the same file name in ``dst_dir``, the ids of
the removed copies with their reason, kept copy and cluster under ``dst_dir/rejects/``, and
``dst_dir/ledger.json`` (counts by reason plus cluster statistics). The surviving copy of a
duplicate group (exact or near) carries ``meta.near_dup_cluster`` (its own id, which every
removed member's reject names as ``kept``) and ``meta.near_dup_size``; records without copies
get ``near_dup_cluster: null``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quarry.engine.run import run_local
from quarry.ledger import Ledger
from quarry.records import read_records
from quarry.stage import shard_output

STAGE = "dedup"


def filter_shard(src: Path, dst: Path, decisions: dict[str, list], *, rejects: Path | None = None,
                 level: int = 3) -> Ledger:
    """Write the records of ``src`` that survive ``decisions`` (row -> [action, cluster, size])."""
    with shard_output(STAGE, dst, rejects=rejects, level=level) as (ledger, out):
        for row, record in enumerate(read_records(src)):
            ledger.seen()
            if not isinstance(record.get("meta"), dict):
                record["meta"] = {}
            action, cluster, size = decisions.get(str(row), ("keep", None, 1))
            if action != "keep":
                ledger.drop(record, action, kept=cluster, cluster_size=size)
                continue
            meta = record["meta"]
            meta["near_dup_cluster"] = cluster
            if cluster is not None:
                meta["near_dup_size"] = size
            out.write(record)
            ledger.keep()
    return ledger


def run_dedup(src_dir: Path, dst_dir: Path, params: dict[str, Any] | None, *, workers: int = 1,
              index_dir: Path | None = None) -> dict[str, Any]:
    """The stage (quarry.stages.dedup) on local processes; returns its ledger. ``index_dir`` keeps
    the per-shard index files (signatures, band keys, decisions) instead of removing them."""
    from quarry.stages.dedup import DEDUP

    return run_local(DEDUP, src_dir, dst_dir, params, workers=workers, work_dir=index_dir)

"""The dedup stage's last step: write the survivors of one shard (quarry.stages.dedup indexes
every shard, clusters them once, then runs this per shard).

It writes the surviving records of each shard under the same file name in the output folder, the
ids of the removed copies with their reason, kept copy and cluster under ``rejects/``; the stage
adds ``ledger.json`` (counts by reason plus cluster statistics). The surviving copy of a
duplicate group (exact or near) carries ``meta.near_dup_cluster`` (its own id, which every
removed member's reject names as ``kept``) and ``meta.near_dup_size``; records without copies
get ``near_dup_cluster: null``.
"""

from __future__ import annotations

from pathlib import Path

from quarry.ledger import Ledger
from quarry.records import read_records
from quarry.curation.steps import shard_output

STAGE = "dedup"


def index_prefix(index_dir: Path, name: str) -> Path:
    return Path(index_dir) / name.replace("/", "__")


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

"""The dedup stage: index every shard (parallel), cluster (one process), filter every shard.

    run_dedup(src_dir, dst_dir, params, workers=N)

writes the surviving records of each shard under the same file name in ``dst_dir``, the ids of
the removed copies with their reason, kept copy and cluster under ``dst_dir/rejects/``, and
``dst_dir/ledger.json`` (counts by reason plus cluster statistics). The surviving copy of a
duplicate group (exact or near) carries ``meta.near_dup_cluster`` (its own id, which every
removed member's reject names as ``kept``) and ``meta.near_dup_size``; records without copies
get ``near_dup_cluster: null``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any


from quarry.dedup.cluster import decisions_file, write_clusters
from quarry.parallel import input_shards, relative_name
from quarry.ledger import Ledger
from quarry.records import read_records
from quarry.stage import shard_output

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


def run_dedup(src_dir: Path, dst_dir: Path, params: dict[str, Any] | None, *, workers: int = 1,
              index_dir: Path | None = None, clusters_file: Path | None = None) -> dict[str, Any]:
    """The stage (quarry.stages.dedup) on local processes; returns its ledger. ``index_dir`` keeps
    the per-shard index files (signatures, band keys, decisions) instead of removing them;
    ``clusters_file`` receives every document's cluster (see cluster.write_clusters)."""
    from quarry.engine.run import run_local
    from quarry.parallel import input_shards, relative_name
    from quarry.stages.dedup import DEDUP

    work = Path(index_dir or tempfile.mkdtemp(prefix=".dedup-index-", dir=Path(dst_dir).parent))
    try:
        ledger = run_local(DEDUP, src_dir, dst_dir, params, workers=workers, work_dir=work)
        if clusters_file is not None:
            prefixes = []
            for shard in input_shards(Path(src_dir)):
                safe = relative_name(shard, Path(src_dir)).replace("/", "__")
                prefixes.append(work / "index" / safe / "index")
                shutil.copyfile(work / "cluster" / f"{safe}.json", decisions_file(prefixes[-1]))
            write_clusters(prefixes, Path(clusters_file))
    finally:
        if index_dir is None:
            shutil.rmtree(work, ignore_errors=True)
    return ledger

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

import orjson

from quarry.dedup.cluster import cluster_index, decisions_file, write_clusters
from quarry.dedup.config import DedupConfig
from quarry.dedup.index import index_shard
from quarry.parallel import input_shards, map_shards, relative_name
from quarry.ledger import Ledger, merge_ledgers
from quarry.records import read_records, write_json
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


def _filter_job(src: str, dst: str, decisions_path: str, rejects: str) -> dict:
    decisions = orjson.loads(Path(decisions_path).read_bytes())
    return filter_shard(Path(src), Path(dst), decisions, rejects=Path(rejects)).to_dict()


def _index_job(src: str, prefix: str, config: DedupConfig) -> dict:
    return index_shard(Path(src), Path(prefix), config)


def run_dedup(src_dir: Path, dst_dir: Path, params: dict[str, Any] | None, *, workers: int = 1,
              index_dir: Path | None = None, clusters_file: Path | None = None) -> dict[str, Any]:
    """Repository, exact then near deduplication of every shard of ``src_dir`` into ``dst_dir``.

    ``index_dir`` keeps the per-shard index files (signatures, band keys, decisions); by default
    they live in a temporary folder that is removed at the end. ``clusters_file`` receives every
    document's cluster (see cluster.write_clusters).
    """
    src_dir, dst_dir = Path(src_dir), Path(dst_dir)
    config = DedupConfig.from_params(params).resolved()
    shards = input_shards(src_dir)
    names = [relative_name(shard, src_dir) for shard in shards]
    dst_dir.mkdir(parents=True, exist_ok=True)
    scratch = None
    if index_dir is None:
        scratch = tempfile.mkdtemp(prefix=".dedup-index-", dir=dst_dir)
        index_dir = Path(scratch)
    try:
        Path(index_dir).mkdir(parents=True, exist_ok=True)
        prefixes = [index_prefix(index_dir, name) for name in names]
        map_shards(_index_job, [(str(s), str(p), config) for s, p in zip(shards, prefixes, strict=True)],
                   workers=workers, description="dedup: signatures")
        clusters = cluster_index(prefixes, config)
        if clusters_file is not None:
            write_clusters(prefixes, Path(clusters_file))
        jobs = [(str(shard), str(dst_dir / name), str(decisions_file(prefix)), str(dst_dir / "rejects" / name))
                for shard, name, prefix in zip(shards, names, prefixes, strict=True)]
        ledgers = map_shards(_filter_job, jobs, workers=workers, description="dedup: filter")
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    result = merge_ledgers(STAGE, ledgers).to_dict()
    result["clusters"] = clusters
    result["config"] = config.summary()
    write_json(dst_dir / "ledger.json", result)
    return result

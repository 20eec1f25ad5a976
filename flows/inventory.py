"""A flow over every shard of a folder: maps a cached task, sums the counts."""

from __future__ import annotations

from pathlib import Path

from prefect import flow

from quarry.records import shard_paths
from tasks.inventory import count_shard


@flow(name="inventory", log_prints=False)
def inventory(folder: str) -> dict:
    shards = shard_paths(Path(folder))
    counts = [future.result() for future in count_shard.map(shards)]
    return {"shards": len(counts), "records": sum(c["records"] for c in counts),
            "bytes": sum(c["bytes"] for c in counts)}

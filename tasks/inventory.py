"""Count the records and bytes of one shard: the smallest cached task, used to prove the wiring."""

from __future__ import annotations

from pathlib import Path

from quarry.records import RecordReader
from tasks.caching import cached_task


@cached_task(outputs=(), task_run_name="count {shard.name}")
def count_shard(shard: Path) -> dict:
    reader = RecordReader(shard)
    for _ in reader:
        pass
    return {"shard": shard.name, "records": reader.stats.records, "bytes": reader.stats.bytes}

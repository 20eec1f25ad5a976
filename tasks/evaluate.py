"""Prefect tasks of the evaluate stage: BPB of one test shard (cached on the checkpoint's and
the shard's content), then one report written and logged to MLflow."""

from __future__ import annotations

from pathlib import Path

from prefect.cache_policies import NO_CACHE

from quarry.eval.stage import build_report, merge_shards, publish_report, score_shard, settings
from quarry.lineage import split_shards
from tasks.caching import cached_task


def test_shards(dataset: Path, params: dict) -> list[Path]:
    """The shards of the split the evaluate section names, in manifest order."""
    return split_shards(Path(dataset), settings(params)["split"])


@cached_task(outputs=(), task_run_name="bpb {shard.name}")
def score_shard_task(checkpoint: Path, shard: Path, params: dict) -> dict:
    return score_shard(checkpoint, shard, params)


# Not cached: it writes the report folder and logs to MLflow every time the stage runs.
@cached_task(task_run_name="bpb report {checkpoint.name}", cache_policy=NO_CACHE, persist_result=False, retries=0)
def publish_task(checkpoint: Path, dataset: Path, shard_results: list[dict], out_dir: Path, params: dict) -> dict:
    report = build_report(merge_shards(shard_results), checkpoint, dataset, settings(params)["split"])
    return publish_report(report, checkpoint, out_dir, params)

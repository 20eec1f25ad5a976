"""The evaluate flow: bits per byte of each checkpoint on every subset of the dataset version's
test split, one cached task per (checkpoint, shard), then one report per checkpoint logged to MLflow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow, unmapped

from flows.artifacts import publish_bpb
from quarry.config import Params
from quarry.params import load_params
from quarry.records import write_json


@flow(name="evaluate")
def evaluate(dataset: str, checkpoints: list[str], out_dir: str, metrics_file: str,
             params_file: str | None = None, params: Params | None = None) -> dict[str, Any]:
    """Returns {checkpoint: report}; writes out_dir/<checkpoint name>/bpb.json (and plots) and the
    BPB summary ``metrics_file`` that `dvc metrics show` reads."""
    from quarry.eval.stage import checkpoint_label
    from tasks.evaluate import publish_task, score_shard_task, test_shards

    settings = load_params(params_file, params)
    shards = test_shards(Path(dataset), settings)
    reports = {}
    for checkpoint in map(Path, checkpoints):
        results = [f.result() for f in score_shard_task.map(unmapped(checkpoint), shards, unmapped(settings))]
        name = checkpoint_label(checkpoint)
        reports[name] = publish_task(checkpoint, Path(dataset), results, Path(out_dir) / name, settings)
    write_json(metrics_file, {name: _metrics(report) for name, report in reports.items()})
    publish_bpb(reports)
    return reports


def _metrics(report: dict[str, Any]) -> dict[str, Any]:
    """The numbers DVC shows in `dvc metrics show`: aggregate and per-subset BPB."""
    return {"bpb": report.get("bpb"), "subsets": {k: v.get("bpb") for k, v in (report.get("subsets") or {}).items()}}

"""Curation and assembly runs in MLflow (experiment quarry-data): the params sections they read,
and per stage its ledger counts, wall and CPU seconds and MB/s, so `quarry compare` and the
MLflow UI compare data versions like training runs (params ``pipeline.track_data``)."""

from __future__ import annotations

from prefect import get_run_logger

from quarry.config import Params
from quarry.datasets.manifest import params_hash
from quarry.engine import StageRun
from quarry.tracking import log_data_run, stage_metrics


def track(run_name: str, runs: list[StageRun], params: Params, sections: list[str], *,
          dataset_hash: str | None = None) -> str | None:
    """Log the run; returns its MLflow run id (None when ``pipeline.track_data`` is off)."""
    if not params.pipeline.track_data:
        return None
    metrics: dict[str, float] = {}
    for run in runs:
        metrics.update(stage_metrics(run.stage, run.result, run.seconds, run.cpu_seconds, run.input_bytes))
    metrics.update({"total.seconds": round(sum(r.seconds for r in runs), 3),
                    "total.cpu_s": round(sum(r.cpu_seconds for r in runs), 3)})
    chosen = {name: getattr(params, name).as_dict() for name in sections}
    run_id = log_data_run(run_name, metrics, chosen, params_hash=params_hash(params), dataset_hash=dataset_hash)
    get_run_logger().info(f"MLflow data run {run_id} ({run_name}): {len(metrics)} metrics")
    return run_id

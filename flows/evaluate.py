"""The evaluate flow: bits per byte of each checkpoint on every subset of the dataset version's
test split (the evaluate stage: (checkpoint, shard) pairs shared out among the workers, each
pair's result recorded for the next run), then one report per checkpoint logged to MLflow."""

from __future__ import annotations

from pathlib import Path

from prefect import flow

from flows.artifacts import publish_bpb
from quarry.config import Params
from quarry.engine import run_stage
from quarry.eval.scoring import checkpoint_label
from quarry.config.values import load_params
from quarry.records import JsonDict
from quarry.stages.evaluate import EVALUATE, EvaluateArgs
from tasks.executor import PrefectExecutor


@flow(name="evaluate")
def evaluate(dataset: str, checkpoints: list[str], out_dir: str, metrics_file: str,
             params_file: str | None = None, params: Params | None = None) -> JsonDict:
    """Returns {checkpoint: report}; writes out_dir/<checkpoint name>/bpb.json (and plots) and the
    BPB summary ``metrics_file`` that `dvc metrics show` reads."""
    args = EvaluateArgs(tuple(checkpoints),
                        tuple(str(Path(out_dir) / checkpoint_label(checkpoint)) for checkpoint in checkpoints),
                        metrics_file)
    reports = run_stage(EVALUATE, Path(dataset), Path(out_dir), load_params(params_file, params), PrefectExecutor(),
                        args=args).result
    publish_bpb(reports)
    return reports

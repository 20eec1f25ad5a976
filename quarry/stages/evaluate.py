"""The evaluate stage: plan (checkpoint, shard) pairs over the test split of a dataset (its input
folder), score each (a map, keyed on the checkpoint's and the shard's content), then one report
per checkpoint: bpb.json, plots, MLflow."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quarry.config.training import EvaluateParams
from quarry.datasets.subsets import resolve_subset, version_subsets
from quarry.engine import Global, GlobalJob, ItemJob, Map, Plan, Stage, WorkItem, run_local
from quarry.eval.scoring import (build_report, checkpoint_label, document_limits, evaluation_shards, merge_shards,
                               publish_report, score_shard)
from quarry.records import JsonDict, write_json

STAGE = "evaluate"


@dataclass(frozen=True)
class EvaluateArgs:
    checkpoints: tuple[str, ...]
    report_dirs: tuple[str | None, ...]   # per checkpoint: where bpb.json and plots go (None: nowhere)
    metrics_file: str | None = None       # BPB per checkpoint and subset, for `dvc metrics show`
    track: bool | None = None             # log to MLflow (None: params evaluate.mlflow)


@dataclass(frozen=True, kw_only=True)
class ScoringPlan(Plan):
    """Every checkpoint's shards of the split (items: checkpoint-major)."""

    per_checkpoint: int


@dataclass(frozen=True)
class ScoreWork:
    checkpoint: Path
    shard: Any
    max_docs: int | None


def plan_phase(job: GlobalJob, cfg: EvaluateParams) -> ScoringPlan:
    args: EvaluateArgs = job.args
    if (subsets := version_subsets(job.src)) is not None:  # a subset the version lacks: say so before scoring
        for subset in cfg.subsets or ():
            resolve_subset("params evaluate.subsets", subset, subsets)
    shards = evaluation_shards(job.src, cfg.split)
    limits = document_limits(shards, cfg.subsets, cfg.max_docs)
    items = [WorkItem(f"{checkpoint_label(checkpoint)} {shard.name}", ScoreWork(Path(checkpoint), shard, limit))
             for checkpoint in args.checkpoints for shard, limit in zip(shards, limits)]
    return ScoringPlan(per_checkpoint=len(shards), items=items)


def score_phase(job: ItemJob, cfg: EvaluateParams) -> dict:
    work: ScoreWork = job.item
    return score_shard(work.checkpoint, work.shard, cfg, work.max_docs)


def report_finish(job: GlobalJob, cfg: EvaluateParams) -> dict:
    """One report per checkpoint from its shards' totals, written and logged where args say."""
    args: EvaluateArgs = job.args
    per_checkpoint = job.of(PLAN).per_checkpoint
    scores = job.each(SCORE)
    reports = {}
    for i, (checkpoint, folder) in enumerate(zip(args.checkpoints, args.report_dirs, strict=True)):
        result = merge_shards(scores[i * per_checkpoint:(i + 1) * per_checkpoint])
        report = build_report(result, checkpoint, job.src, cfg.split, list(cfg.subsets or ()) or None)
        if folder is not None:
            report = publish_report(report, checkpoint, folder, cfg, track=args.track)
        reports[checkpoint_label(checkpoint)] = report
    if args.metrics_file:
        write_json(args.metrics_file, {name: _metrics(report) for name, report in reports.items()})
    return reports


def _metrics(report: JsonDict) -> JsonDict:
    """The numbers DVC shows in `dvc metrics show`: aggregate and per-subset BPB."""
    return {"bpb": report.get("bpb"), "subsets": {k: v.get("bpb") for k, v in (report.get("subsets") or {}).items()}}


# The plan lists the split's shards (uncached, cheap); nothing is staged: each report folder is
# written whole by publish_report.
PLAN = Global("plan", plan_phase, ScoringPlan, cached=False)
SCORE = Map("score", score_phase, dict, over="plan")   # one shard's BPB totals
EVALUATE = Stage(STAGE, folder="", config=lambda params: params.evaluate, finish=report_finish, reads_shards=False,
                 staged=False, keeps_work=False, phases=(PLAN, SCORE))


def score_checkpoint(checkpoint: str | os.PathLike, data: str | os.PathLike, params: Any = None, *,
                     workers: int = 1) -> JsonDict:
    """The BPB report of a checkpoint on a dataset (per subset, aggregate, what was scored), on
    local processes; nothing is kept."""
    with tempfile.TemporaryDirectory(prefix="quarry-eval-") as scratch:
        args = EvaluateArgs((os.fspath(checkpoint),), (None,))
        [report] = run_local(EVALUATE, Path(data), Path(scratch) / "out", params, workers=workers, args=args).values()
    return report


def run_evaluate(checkpoint: str | os.PathLike, data: str | os.PathLike, out_dir: str | os.PathLike,
                 params: Any = None, *, track: bool | None = None, workers: int = 1) -> JsonDict:
    """Score, write ``out_dir/bpb.json`` and ``bpb.png`` (and ``loss.png`` when the training run
    logged a loss), then log everything to MLflow; returns the report (plus ``mlflow_run_id``)."""
    args = EvaluateArgs((os.fspath(checkpoint),), (os.fspath(out_dir),), track=track)
    [report] = run_local(EVALUATE, Path(data), Path(out_dir), params, workers=workers, args=args).values()
    return report

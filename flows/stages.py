"""One entry point per DAG stage: the flow, its folders from params.yaml, and its task runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flows import curate as curation
from flows import evaluate as evaluation
from flows import pipeline as whole
from flows import train as training
from flows.paths import pipeline_paths
from flows.runners import task_runner
from quarry.params import load_params


def run_stage(stage: str, params_file: str | None = None, *, workers: int | None = None,
              dask_address: str | None = None) -> Any:
    params = load_params(params_file)
    settings = params.get("pipeline") or {}
    workers = int(workers if workers is not None else settings.get("workers", 1))
    runner = task_runner(workers, dask_address or settings.get("dask_address"))
    p = pipeline_paths(params)
    calls = {
        "snapshot": (curation.snapshot, (p["snapshot"], params_file)),
        "curate": (curation.curate, (p["snapshot"], p["curated"], params_file)),
        "assemble": (curation.assemble, (p["curated"], p["snapshot"], p["dataset"], params_file)),
        "audit": (curation.audit, (p["dataset"], p["snapshot"], p["audit"], params_file)),
        "tokenizer": (training.tokenizer, (p["dataset"], p["tokenizer"], params_file)),
        "tokenize": (training.tokenize, (p["dataset"], p["tokenizer"], p["tokens"], params_file)),
        "train": (training.train, ("train", params_file)),
        "finetune": (training.finetune, (params_file,)),
        "evaluate": (evaluation.evaluate, (p["dataset"], [str(Path(p["pretrain"]) / "final"),
                                                          str(Path(p["finetune"]) / "final")],
                                           p["reports"], p["metrics"], params_file)),
        "pipeline": (whole.pipeline, (params_file, workers, dask_address)),
    }
    if stage not in calls:
        from quarry.errors import QuarryError

        raise QuarryError(f"unknown stage '{stage}'; stages: {', '.join(calls)}")
    flow_obj, args = calls[stage]
    return flow_obj.with_options(task_runner=runner)(*args)

"""The whole DAG as one flow: snapshot -> curate -> assemble -> audit -> tokenizer -> tokenize -> train -> finetune ->
evaluate, each stage a subflow over the folders of params.yaml `pipeline.paths` (the same folders
dvc.yaml uses, so `dvc repro` and a Prefect deployment build the same thing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow

from flows import curate as curation
from flows import evaluate as evaluation
from flows import train as training
from flows.paths import pipeline_paths
from flows.runners import task_runner
from quarry.params import load_params


@flow(name="pipeline")
def pipeline(params_file: str | None = None, workers: int | None = None,
             dask_address: str | None = None) -> dict[str, Any]:
    """Build everything; returns the dataset version hash and the BPB reports."""
    params = load_params(params_file)
    settings = params.get("pipeline") or {}
    runner = task_runner(int(workers or settings.get("workers", 1)), dask_address or settings.get("dask_address"))
    p = pipeline_paths(params)

    def run(flow_obj, *args):
        return flow_obj.with_options(task_runner=runner)(*args)

    run(curation.snapshot, p["snapshot"], params_file)
    run(curation.curate, p["snapshot"], p["curated"], params_file)
    manifest = run(curation.assemble, p["curated"], p["snapshot"], p["dataset"], params_file)
    run(curation.audit, p["dataset"], p["snapshot"], p["audit"], params_file)
    run(training.tokenizer, p["dataset"], p["tokenizer"], params_file)
    run(training.tokenize, p["dataset"], p["tokenizer"], p["tokens"], params_file)
    run(training.train, "train", params_file)
    run(training.finetune, params_file)
    checkpoints = [str(Path(p["pretrain"]) / "final"), str(Path(p["finetune"]) / "final")]
    reports = run(evaluation.evaluate, p["dataset"], checkpoints, p["reports"], p["metrics"], params_file)
    return {"dataset": manifest.get("version"), "reports": reports}

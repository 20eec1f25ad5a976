"""One entry point per DAG node (quarry.dag.NODES): its flow, its folders from params.yaml, and its task runner."""

from __future__ import annotations

from flows import curate as curation
from flows import evaluate as evaluation
from flows import snapshot as snapshotting
from flows import train as training
from quarry.dag import NODES
from flows.runners import task_runner
from quarry.config import Layout, Params


def node_calls(params: Params, params_file: str | None) -> dict[str, tuple]:
    """node -> (flow, arguments), in the DAG's order."""
    layout = Layout.of(params)
    p = layout.as_strings()
    checkpoints = [str(layout.pretrained), str(layout.finetuned)]
    calls = {
        "snapshot": (snapshotting.snapshot, (p["snapshot"], params_file)),
        "curate": (curation.curate, (p["snapshot"], p["curated"], params_file)),
        "assemble": (curation.assemble, (p["curated"], p["snapshot"], p["dataset"], params_file)),
        "audit": (curation.audit, (p["dataset"], p["snapshot"], p["audit"], params_file)),
        "tokenizer": (training.tokenizer, (p["dataset"], p["tokenizer"], params_file)),
        "tokenize": (training.tokenize, (p["dataset"], p["tokenizer"], p["tokens"], params_file)),
        "train": (training.train, ("train", params_file)),
        "finetune": (training.finetune, (params_file,)),
        "evaluate": (evaluation.evaluate, (p["dataset"], checkpoints, p["reports"], p["metrics"], params_file)),
    }
    assert tuple(calls) == NODES
    return calls


def runner_for(params: Params, workers: int | None, dask_address: str | None):
    settings = params.pipeline
    return task_runner(workers if workers is not None else settings.workers, dask_address or settings.dask_address)


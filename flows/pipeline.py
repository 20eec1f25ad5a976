"""The whole DAG as one flow: each node of quarry.dag.NODES a subflow over the folders of
params.yaml `pipeline.paths` (the same folders dvc.yaml uses, so `dvc repro` and a Prefect
deployment build the same thing); ``run_node`` runs it, or one of its nodes."""

from __future__ import annotations

from typing import Any

from prefect import flow

from quarry.dag import NODES
from flows.dag import runner_for, node_calls
from flows.runners import shared_cluster
from quarry.config import Params
from quarry.config.params import effective_file
from quarry.errors import QuarryError
from quarry.infra.lock import project_lock
from quarry.config.values import load_params
from quarry.records import JsonDict


@flow(name="pipeline")
def pipeline(params_file: str | None = None, workers: int | None = None,
             dask_address: str | None = None, params: Params | None = None) -> JsonDict:
    """Build everything; returns the dataset version hash and the BPB reports. ``params`` (every
    section, typed, as the Prefect UI shows them) replaces params_file when given."""
    if params is not None:
        params_file = str(effective_file(params))

    params = load_params(params_file)
    count = workers if workers is not None else params.pipeline.workers
    # a scheduled run and one started by hand never mix; every node's flow runs on one cluster
    with project_lock("pipeline flow"), shared_cluster(count, dask_address or params.pipeline.dask_address) as address:
        runner = runner_for(params, workers, address)
        results = {name: flow_obj.with_options(task_runner=runner)(*args)
                   for name, (flow_obj, args) in node_calls(params, params_file).items()}
    return {"dataset": results["assemble"].get("version"), "reports": results["evaluate"]}


def run_node(node: str, params_file: str | None = None, *, workers: int | None = None,
             dask_address: str | None = None) -> Any:
    """One node of the DAG as its flow, or the whole ``pipeline``, on the task runner of params
    ``pipeline`` (or of ``workers`` / ``dask_address``)."""
    if node == "pipeline":   # its own task runner stays idle: its nodes' flows run the tasks
        return pipeline(params_file, workers, dask_address)
    params = load_params(params_file)
    calls = node_calls(params, params_file)
    if node not in calls:
        raise QuarryError(f"unknown DAG node '{node}'; nodes: {', '.join((*NODES, 'pipeline'))}")
    flow_obj, args = calls[node]
    return flow_obj.with_options(task_runner=runner_for(params, workers, dask_address))(*args)

"""The curation flows: licenses -> optout -> filters -> PII -> dedup -> decontaminate
(quarry.stages.curation), then assembly into a dataset version and its audit.

Every phase of every stage is a cached task per shard (tasks.executor), so a re-run after a
crash or a param change recomputes only the shards whose inputs, params or code changed.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow

from flows.artifacts import publish_datacard, publish_ledgers
from flows.data_runs import track
from quarry.datasets.audit import summary
from quarry.config import Params
from quarry.engine import run_stage
from quarry.errors import QuarryError
from quarry.config.values import load_params
from quarry.records import JsonDict, read_json, write_json
from quarry.stages.optout import OPTOUT
from quarry.stages.curation import CURATION, curated_output, run_curation
from quarry.stages.assemble import ASSEMBLE, AssembleArgs
from quarry.stages.audit import run_audit
from tasks.executor import PrefectExecutor


def named_after_dataset(stage: str):
    """A flow-run name a person recognises: the stage and the dataset it builds (`curate quarry-code`)."""
    def name() -> str:
        from prefect.runtime import flow_run

        given = flow_run.parameters.get("params")
        typed = Params.model_validate(given) if given is not None else None
        return f"{stage} {load_params(flow_run.parameters.get('params_file'), typed).assemble.name}"
    return name


@flow(name="curate", flow_run_name=named_after_dataset("curate"))
def curate(snapshot_dir: str, out_dir: str, params_file: str | None = None,
           params: Params | None = None) -> JsonDict:
    """Run every curation stage over the snapshot's shards; returns the ledgers by stage."""
    settings = load_params(params_file, params)
    runs = run_curation(Path(snapshot_dir) / "shards", Path(out_dir), settings, PrefectExecutor())
    ledgers = {run.stage: run.result for run in runs}
    write_json(Path(out_dir) / "ledgers.json", ledgers)
    publish_ledgers(ledgers)
    track(f"curate {settings.assemble.name}", runs, settings, [stage.name for stage in CURATION])
    return ledgers


@flow(name="assemble", flow_run_name=named_after_dataset("assemble"))
def assemble(curated_dir: str, snapshot_dir: str, out_dir: str, params_file: str | None = None,
             params: Params | None = None) -> JsonDict:
    """Assemble the curated shards into a dataset version; returns its manifest."""
    settings = load_params(params_file, params)
    curated = Path(curated_dir)
    registry_hash = read_json(curated / "ledgers.json")[OPTOUT.name].get("registry_hash")
    # Ledger files (not their contents): assembly reads each stage's rejects/ beside its ledger
    # to say why a document left the dataset.
    stage_ledgers = [Path(snapshot_dir) / "ledger.json", *(curated / stage.folder / "ledger.json" for stage in CURATION)]
    args = AssembleArgs(snapshot_manifest=str(Path(snapshot_dir) / "manifest.json"), ledgers=tuple(stage_ledgers),
                        optout_registry_hash=registry_hash)
    run = run_stage(ASSEMBLE, curated_output(curated), Path(out_dir), settings, PrefectExecutor(), args=args)
    manifest = run.result
    publish_datacard(out_dir, manifest)
    track(f"assemble {settings.assemble.name} {manifest['label']}", [run], settings, ["assemble"],
          dataset_hash=manifest["version"])
    return manifest


@flow(name="audit")
def audit(dataset_dir: str, snapshot_dir: str, out: str, params_file: str | None = None,
          params: Params | None = None) -> JsonDict:
    """Audit the assembled version against the snapshot (quarry.datasets.audit); fails on any violation, so
    the DAG stops before anything is built on a dataset that breaks its own policy."""
    report = run_audit(Path(dataset_dir), Path(snapshot_dir), load_params(params_file, params), Path(out),
                       executor=PrefectExecutor())
    if not report["passed"]:
        raise QuarryError(f"{summary(report)}; the violations are listed in {out}")
    return report

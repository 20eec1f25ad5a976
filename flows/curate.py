"""The curation flows: snapshot, then licenses -> opt-out -> filters -> PII -> dedup ->
decontaminate, then assembly into a dataset version.

Every heavy step is a cached task over one shard, so a re-run after a crash or a param change
recomputes only the shards whose inputs, params or code changed; the order lives here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow

from flows.artifacts import publish_datacard, publish_ledgers
from quarry.optout import registry_path_from
from quarry.params import load_params
from quarry.records import read_json, write_json
from tasks.decontaminate import decontaminate_with_tasks
from tasks.dedup import dedup_with_tasks
from tasks.filters import filters_with_tasks
from tasks.licenses import licenses_with_tasks
from tasks.optout import optout_with_tasks
from tasks.pii import pii_with_tasks

# Stage folders under the curated output, in order; the last one feeds assembly.
CURATION_STAGES = ("licensed", "optout", "filtered", "pii", "dedup", "decontaminated")


def curated_output(curated_dir: str | Path) -> Path:
    return Path(curated_dir) / CURATION_STAGES[-1]


@flow(name="snapshot")
def snapshot(out_dir: str, params_file: str | None = None) -> dict[str, Any]:
    """Content-addressed snapshot of params `snapshot.sources`; returns its manifest."""
    from tasks.snapshot import snapshot_with_tasks

    return snapshot_with_tasks(None, Path(out_dir), load_params(params_file))


def named_after_dataset(stage: str):
    """A flow-run name a person recognises: the stage and the dataset it builds (`curate quarry-code`)."""
    def name() -> str:
        from prefect.runtime import flow_run

        from quarry.params import get

        section = get(load_params(flow_run.parameters.get("params_file")), "assemble", None) or {}
        dataset = section.get("name") or "dataset"
        return f"{stage} {dataset}"
    return name


@flow(name="curate", flow_run_name=named_after_dataset("curate"))
def curate(snapshot_dir: str, out_dir: str, params_file: str | None = None) -> dict[str, Any]:
    """Run every curation stage over the snapshot's shards; returns the ledgers by stage."""
    params = load_params(params_file)
    out = Path(out_dir)
    folders = {name: out / name for name in CURATION_STAGES}
    ledgers = {
        "licenses": licenses_with_tasks(Path(snapshot_dir) / "shards", folders["licensed"], params),
        "opt-out": optout_with_tasks(folders["licensed"], folders["optout"], registry_path_from(params)),
        "filters": filters_with_tasks(folders["optout"], folders["filtered"], params),
        "pii": pii_with_tasks(folders["filtered"], folders["pii"], params),
        "dedup": dedup_with_tasks(folders["pii"], folders["dedup"], params),
        "decontaminate": decontaminate_with_tasks(folders["dedup"], folders["decontaminated"], params),
    }
    write_json(out / "ledgers.json", ledgers)
    publish_ledgers(ledgers)
    return ledgers


@flow(name="assemble", flow_run_name=named_after_dataset("assemble"))
def assemble(curated_dir: str, snapshot_dir: str, out_dir: str, params_file: str | None = None) -> dict[str, Any]:
    """Assemble the curated shards into a dataset version; returns its manifest."""
    from tasks.assemble import assemble_tasks

    params = load_params(params_file)
    curated = Path(curated_dir)
    registry_hash = read_json(curated / "ledgers.json")["opt-out"].get("registry_hash")
    # Ledger files (not their contents): assembly reads each stage's rejects/ beside its ledger
    # to say why a document left the dataset.
    stage_ledgers = [Path(snapshot_dir) / "ledger.json", *(curated / name / "ledger.json" for name in CURATION_STAGES)]
    manifest = assemble_tasks(curated_output(curated), Path(out_dir), params,
                              snapshot_manifest=Path(snapshot_dir) / "manifest.json", ledgers=stage_ledgers,
                              optout_registry_hash=registry_hash)
    publish_datacard(out_dir, manifest)
    return manifest

"""The curation flows: snapshot, then licenses -> opt-out -> filters -> PII -> dedup ->
decontaminate, then assembly into a dataset version.

Every heavy step is a cached task over one shard, so a re-run after a crash or a param change
recomputes only the shards whose inputs, params or code changed; the order lives here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow, unmapped

from quarry.optout import load_registry, registry_path_from
from quarry.params import load_params
from quarry.parallel import input_shards, relative_name
from quarry.records import read_json, write_json
from tasks.shards import map_shard_stage

# Stage folders under the curated output, in order; the last one feeds assembly.
CURATION_STAGES = ("licensed", "optout", "filtered", "pii", "dedup", "decontaminated")


def curated_output(curated_dir: str | Path) -> Path:
    return Path(curated_dir) / CURATION_STAGES[-1]


@flow(name="snapshot")
def snapshot(out_dir: str, params_file: str | None = None) -> dict[str, Any]:
    """Content-addressed snapshot of params `snapshot.sources`; returns its manifest."""
    from tasks.snapshot import snapshot_with_tasks

    return snapshot_with_tasks(None, Path(out_dir), load_params(params_file))


@flow(name="curate")
def curate(snapshot_dir: str, out_dir: str, params_file: str | None = None) -> dict[str, Any]:
    """Run every curation stage over the snapshot's shards; returns the ledgers by stage."""
    params = load_params(params_file)
    out = Path(out_dir)
    folders = {name: out / name for name in CURATION_STAGES}
    ledgers = {
        "licenses": licenses_stage(Path(snapshot_dir) / "shards", folders["licensed"], params),
        "opt-out": optout_stage(folders["licensed"], folders["optout"], params),
        "filters": filters_stage(folders["optout"], folders["filtered"], params),
        "pii": pii_stage(folders["filtered"], folders["pii"], params),
        "dedup": dedup_stage(folders["pii"], folders["dedup"], params),
        "decontaminate": decontaminate_stage(folders["dedup"], folders["decontaminated"], params),
    }
    write_json(out / "ledgers.json", ledgers)
    return ledgers


@flow(name="assemble")
def assemble(curated_dir: str, snapshot_dir: str, out_dir: str, params_file: str | None = None) -> dict[str, Any]:
    """Assemble the curated shards into a dataset version; returns its manifest."""
    from tasks.assemble import assemble_tasks

    params = load_params(params_file)
    curated = Path(curated_dir)
    ledgers = read_json(curated / "ledgers.json")
    snapshot_manifest = Path(snapshot_dir) / "manifest.json"
    stage_ledgers = [read_json(Path(snapshot_dir) / "ledger.json"), *ledgers.values()]
    return assemble_tasks(curated_output(curated), Path(out_dir), params, snapshot_manifest=snapshot_manifest,
                          ledgers=stage_ledgers, optout_registry_hash=ledgers["opt-out"].get("registry_hash"))



# ---------------------------------------------------------------------------------------------
# Stages as tasks


def licenses_stage(src: Path, dst: Path, params: dict) -> dict:
    from quarry.licenses.stage import STAGE, section
    from tasks.licenses import license_shard_task, repo_licenses_task

    conf = section(params)
    dst.mkdir(parents=True, exist_ok=True)
    repo_licenses = repo_licenses_task(src, str(dst / "repo_licenses.json"), conf)
    ledger, _ = map_shard_stage(license_shard_task, STAGE, src, dst, params=conf, repo_licenses=repo_licenses)
    return ledger


def optout_stage(src: Path, dst: Path, params: dict) -> dict:
    from quarry.optout import STAGE
    from tasks.optout import optout_shard_task

    registry = registry_path_from(params)
    ledger, _ = map_shard_stage(optout_shard_task, STAGE, src, dst, registry=registry)
    ledger["registry_hash"] = load_registry(registry).hash
    write_json(dst / "ledger.json", ledger)
    return ledger


def filters_stage(src: Path, dst: Path, params: dict) -> dict:
    from tasks.filters import filter_shard_task

    ledger, _ = map_shard_stage(filter_shard_task, "filters", src, dst, filters_params=params.get("filters") or {})
    return ledger


def pii_stage(src: Path, dst: Path, params: dict) -> dict:
    from tasks.pii import redact_shard_task

    ledger, _ = map_shard_stage(redact_shard_task, "pii", src, dst, params=params)
    return ledger


def dedup_stage(src: Path, dst: Path, params: dict) -> dict:
    from tasks.dedup import cluster_task, decisions_file, filter_dedup_shard_task, index_shard_task

    dedup_params = params.get("dedup") or {}
    shards = input_shards(src)
    index_dir = dst.parent / f".{dst.name}-index"
    names = [relative_name(s, src).replace("/", "__") for s in shards]
    indexes = [f.result() for f in index_shard_task.map(shards, unmapped(str(index_dir)), names,
                                                         unmapped(dedup_params))]
    clusters = cluster_task(indexes, dedup_params)
    by_shard = {relative_name(s, src): decisions_file(Path(i["prefix"])) for s, i in zip(shards, indexes)}
    ledger, _ = map_shard_stage(filter_dedup_shard_task, "dedup", src, dst,
                                per_shard=lambda name: {"decisions": by_shard[name]})
    ledger["clusters"] = clusters
    write_json(dst / "ledger.json", ledger)
    return ledger


def decontaminate_stage(src: Path, dst: Path, params: dict) -> dict:
    from quarry.curate.decontaminate import REPORT, DecontaminationConfig
    from tasks.decontaminate import build_eval_index_task, decontaminate_shard_task, eval_items_task

    config = DecontaminationConfig.from_params(params)
    shards = input_shards(src)
    items = [item for f in eval_items_task.map(shards, unmapped(params)) for item in f.result()]
    index_dir = build_eval_index_task(items, [Path(p) for p in config.eval_files],
                                      str(dst.parent / f".{dst.name}-index"), params)
    ledger, results = map_shard_stage(decontaminate_shard_task, "decontaminate", src, dst,
                                      ledger_of=lambda r: r["ledger"], index_dir=Path(index_dir), params=params)
    matches = [m for r in results for m in r["matches"]]
    ledger["contamination"] = {"documents_matched": len(matches), "eval_items": len(items)}
    write_json(dst / REPORT, {"ngram": config.ngram, "action": config.action, "matches": matches})
    write_json(dst / "ledger.json", ledger)
    return ledger

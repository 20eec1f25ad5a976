"""Lineage of a checkpoint, walked back to the source files it was trained on, and forward again.

    checkpoint  <- recipe config <- tokenizer <- dataset version <- stage ledgers
                <- snapshot <- origins and revisions

Each link carries its hash and the code version that produced it. The walk starts at the
checkpoint's lineage.json (written by the training recipe), opens the dataset version's
manifest, and from its snapshot id the snapshot manifest. A link that cannot be resolved (a
folder moved, a manifest missing) is kept with ``"resolved": false`` and the reason, so the chain
always prints. ``trace`` answers the reverse question for one file: did it go into the
checkpoint's training data, and under which license. The chain is also emitted as OpenLineage
RunEvents (one per job: snapshot, assemble, train).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from quarry.config.params import project_layout
from quarry.config.pipeline import FINAL
from quarry.datasets.manifest import Manifest
from quarry.datasets.versions import DROPPED, locate, read_dropped
from quarry.errors import QuarryError
from quarry.infra.hashing import file_hash, hashes_digest, value_hash
from quarry.paths import project_root
from quarry.records import JsonDict, Record, read_json, read_records, shard_paths
from quarry.snapshot.listing import snapshot_files, snapshot_origins

SCHEMA = "quarry.lineage/1"
STEP_DIR = re.compile(r"^step-(\d+)$")  # an intermediate checkpoint of a training run
CHECKPOINT_LINEAGE = "lineage.json"
TOKENIZER_LINEAGE = "tokenizer_lineage.json"
WEIGHT_FILES = ("config.json", "model.safetensors", "model.safetensors.index.json", "adapter_model.safetensors",
                "adapter_config.json", "state.pt")  # state.pt: an intermediate step-N checkpoint
OPENLINEAGE_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent"
PRODUCER = "urn:quarry:lineage"
NAMESPACE = "quarry"
# Curation stages in the order the DAG runs them (a ledger of another name sorts after these).
STAGE_ORDER = ("snapshot", "licenses", "optout", "filters", "pii", "dedup", "decontaminate", "assemble")


# ---------------------------------------------------------------------------------------------
# Resolving paths recorded in lineage.json and manifests


def _resolve(path: str | os.PathLike | None, *bases: Path) -> Path | None:
    """A recorded path as it is now: absolute, or relative to the checkpoint or the project."""
    if not path:
        return None
    path = Path(path)
    if path.is_absolute():
        return path
    for base in (*bases, project_root()):
        if (base / path).exists():
            return (base / path).resolve()
    return (bases[0] / path) if bases else path


def checkpoint_hash(folder: Path) -> str:
    """sha256 over the hashes of the files that define the weights (not the lineage or card)."""
    files = {name: file_hash(folder / name) for name in WEIGHT_FILES if (folder / name).is_file()}
    files.update({p.name: file_hash(p) for p in sorted(folder.glob("model-*-of-*.safetensors"))})
    return value_hash(files)


def read_checkpoint_lineage(checkpoint: str | os.PathLike) -> tuple[Path, JsonDict]:
    folder = Path(checkpoint)
    path = folder / CHECKPOINT_LINEAGE
    if not path.is_file():
        raise QuarryError(f"{folder}: not a checkpoint with lineage (no {CHECKPOINT_LINEAGE})")
    return folder, read_json(path)


def dataset_manifest(dataset_dir: Path | None) -> JsonDict | None:
    if dataset_dir is None or not (dataset_dir / "manifest.json").is_file():
        return None
    return read_json(dataset_dir / "manifest.json")


def snapshot_manifest_path(manifest: Manifest | None, dataset_dir: Path | None) -> Path | None:
    """Where the dataset's snapshot manifest is: recorded in the manifest, else the default place."""
    recorded = None
    if manifest:
        snapshot = manifest.get("snapshot")
        recorded = (manifest.get("snapshot_manifest") or manifest.get("snapshot_path")
                    or (snapshot.get("path") if isinstance(snapshot, dict) else None))
    candidates = [_resolve(recorded, dataset_dir or project_root())] if recorded else []
    candidates.append(project_layout().snapshot_manifest)
    for candidate in candidates:
        if candidate is not None:
            if candidate.is_dir():
                candidate = candidate / "manifest.json"
            if candidate.is_file():
                return candidate
    wanted = (manifest or {}).get("snapshot_id")
    data = project_root() / "data"
    for candidate in sorted(data.glob("snapshot*/**/manifest.json")) if wanted and data.is_dir() else []:
        if read_json(candidate).get("snapshot_id") == wanted:
            return candidate
    return None


def origins_of(snapshot: JsonDict, folder: Path | None = None) -> list[JsonDict]:
    """[{"origin", "revision", ...}] from a snapshot manifest (in ``folder``: its origin lists; a
    manifest of another tool's: a list, or a mapping by origin)."""
    raw = snapshot.get("origins") or (list(snapshot_origins(folder)) if folder and snapshot.get("origin_lists") else [])
    if isinstance(raw, dict):
        raw = [{"origin": name, **(info if isinstance(info, dict) else {"revision": info})}
               for name, info in raw.items()]
    rows = []
    for item in raw:
        if isinstance(item, str):
            item = {"origin": item}
        origin = item.get("origin") or item.get("url") or item.get("path")
        revision = item.get("revision") or item.get("commit") or item.get("head")
        rows.append({**{k: v for k, v in item.items() if k not in ("files",)},
                     "origin": origin, "revision": revision})
    return sorted(rows, key=lambda row: str(row["origin"]))


# ---------------------------------------------------------------------------------------------
# The chain


def lineage_chain(checkpoint: str | os.PathLike) -> JsonDict:
    """The resolved chain of a checkpoint folder (a JSON-able dict, stable for the same inputs)."""
    folder, record = read_checkpoint_lineage(checkpoint)
    dataset_info = record.get("dataset") or {}
    tokenizer_info = record.get("tokenizer") or {}
    chain: JsonDict = {"schema": SCHEMA}
    chain["checkpoint"] = {"path": str(folder), "hash": checkpoint_hash(folder),
                           "code_version": record.get("code_version"), "mlflow_run_id": record.get("mlflow_run_id"),
                           "base_model": record.get("base_model"),
                           # sha256 over the base model's files as the run found them (fine-tunes)
                           "base_model_hash": hashes_digest(record["base_model_files"])
                           if record.get("base_model_files") else None}
    chain["run_checkpoints"] = run_checkpoints(folder)
    chain["recipe"] = {"name": record.get("recipe"), "config_hash": record.get("config_hash")
                       or (value_hash(record["config"]) if record.get("config") else None)}
    chain["tokenizer"] = _tokenizer_link(tokenizer_info, folder)

    dataset_dir = _resolve(dataset_info.get("path"), folder)
    manifest = dataset_manifest(dataset_dir)
    link = {"name": dataset_info.get("name"), "version": dataset_info.get("version"),
            "path": str(dataset_dir) if dataset_dir else None, "resolved": manifest is not None}
    if manifest is None:
        link["problem"] = f"no manifest.json in {dataset_dir}" if dataset_dir else "no dataset path recorded"
    else:
        link.update({"name": manifest.get("name", link["name"]), "label": manifest.get("label"),
                     "manifest_version": manifest.get("version"), "params_hash": manifest.get("params_hash"),
                     "code_version": manifest.get("code_version")})
        if link["version"] and manifest.get("version") != link["version"]:
            link["resolved"] = False
            link["problem"] = (f"{dataset_dir} now holds version {manifest.get('version')}, "
                               f"the checkpoint was trained on {link['version']}")
        link["version"] = link["version"] or manifest.get("version")
    chain["dataset"] = link
    chain["stages"] = _stage_links(manifest)

    snapshot_id = (manifest or {}).get("snapshot_id")
    snapshot_path = snapshot_manifest_path(manifest, dataset_dir)
    snapshot = read_json(snapshot_path) if snapshot_path else None
    snap_link = {"snapshot_id": snapshot_id, "path": str(snapshot_path) if snapshot_path else None,
                 "resolved": snapshot is not None}
    if snapshot is not None:
        snap_link["code_version"] = snapshot.get("code_version")
        snap_link["params_hash"] = snapshot.get("params_hash")
        snap_link["files"] = (snapshot.get("counts") or {}).get("files", len(snapshot.get("files") or []))
        if snapshot_id and snapshot.get("snapshot_id") != snapshot_id:
            snap_link["resolved"] = False
            snap_link["problem"] = f"{snapshot_path} is snapshot {snapshot.get('snapshot_id')}, not {snapshot_id}"
        snap_link["snapshot_id"] = snapshot_id or snapshot.get("snapshot_id")
    else:
        snap_link["problem"] = "snapshot manifest not found"
    chain["snapshot"] = snap_link
    chain["origins"] = origins_of(snapshot, snapshot_path.parent) if snapshot and snap_link["resolved"] else []
    return chain


def run_folder(checkpoint: Path) -> Path:
    """The training run a checkpoint belongs to: the folder holding its step-N folders and final."""
    return checkpoint.parent if checkpoint.name == FINAL or STEP_DIR.match(checkpoint.name) else checkpoint


def run_checkpoints(folder: Path) -> list[JsonDict]:
    """Every checkpoint of the training run ``folder`` belongs to (its step-N folders, then final),
    with its step and hash."""
    run = run_folder(folder)
    found = []
    for path in sorted(run.iterdir()) if run.is_dir() else []:
        step = STEP_DIR.match(path.name)
        if (step or path.name == FINAL) and (path / CHECKPOINT_LINEAGE).is_file():
            record = read_json(path / CHECKPOINT_LINEAGE)
            found.append({"path": str(path), "step": int(step.group(1)) if step else record.get("steps"),
                          "final": not step, "hash": checkpoint_hash(path)})
    return sorted(found, key=lambda c: (c["final"], c["step"] or 0))


def _tokenizer_link(info: JsonDict, folder: Path) -> JsonDict:
    """The tokenizer as recorded, checked against the tokenizer.json saved with the weights, and
    the dataset version it was trained on (from its tokenizer_lineage.json)."""
    path = _resolve(info.get("path"), folder)
    link: JsonDict = {"path": str(path) if path else None, "hash": info.get("hash")}
    local = folder / "tokenizer.json"
    if local.is_file():
        link["file_hash"] = file_hash(local)
        if link["hash"]:
            link["verified"] = link["file_hash"] == link["hash"]
    for where in (folder, path):
        record = where / TOKENIZER_LINEAGE if where and where.is_dir() else None
        if record is not None and record.is_file():
            link["dataset_hash"] = read_json(record).get("dataset_hash")
            break
    return link


def _stage_links(manifest: Manifest | None) -> list[JsonDict]:
    """Each curation stage's ledger in the manifest, in pipeline order: documents in, kept,
    dropped by reason."""
    ledgers = (manifest or {}).get("ledger") or (manifest or {}).get("ledgers") or {}
    links = []
    order = {name: i for i, name in enumerate(STAGE_ORDER)}
    for stage, ledger in sorted(ledgers.items(), key=lambda item: (order.get(item[0], len(order)), item[0])):
        links.append({"stage": stage, "hash": value_hash(ledger), "seen": ledger.get("input"),
                      "kept": ledger.get("kept"), "dropped": ledger.get("dropped") or {},
                      "code_version": ledger.get("code_version")})
    return links


def lineage_summary(chain: JsonDict) -> JsonDict:
    """The few fields MLflow tags carry (the full chain goes in as lineage.json)."""
    return {"checkpoint_hash": chain["checkpoint"]["hash"], "recipe": chain["recipe"]["name"],
            "config_hash": chain["recipe"]["config_hash"], "tokenizer_hash": chain["tokenizer"].get("hash"),
            "dataset_name": chain["dataset"].get("name"), "dataset_version": chain["dataset"].get("version"),
            "snapshot_id": chain["snapshot"].get("snapshot_id"), "origins": len(chain["origins"]),
            "code_version": chain["checkpoint"].get("code_version")}


# ---------------------------------------------------------------------------------------------
# OpenLineage


def _dataset(name: str, version: str | None = None, **facets: Any) -> JsonDict:
    node: JsonDict = {"namespace": NAMESPACE, "name": name, "facets": {}}
    if version:
        node["facets"]["version"] = {"_producer": PRODUCER, "_schemaURL":
                                     "https://openlineage.io/spec/facets/1-0-1/DatasetVersionDatasetFacet.json",
                                     "datasetVersion": version}
    if facets:
        node["facets"]["quarry"] = {"_producer": PRODUCER, "_schemaURL": f"{PRODUCER}:facet", **facets}
    return node


def openlineage_events(chain: JsonDict, event_time: str | None = None) -> list[JsonDict]:
    """COMPLETE RunEvents for the jobs of the chain, oldest first. Run ids are UUIDs derived from
    the job's output hash, so the same chain always gives the same events."""
    when = event_time or _event_time(chain)
    dataset = chain["dataset"]
    snapshot = chain["snapshot"]
    origins = [_dataset(str(o["origin"]), o.get("revision")) for o in chain["origins"]]
    snap_node = _dataset(f"snapshot/{snapshot.get('snapshot_id')}", snapshot.get("snapshot_id"))
    data_node = _dataset(f"dataset/{dataset.get('name')}", dataset.get("version"),
                         stages={s["stage"]: {"seen": s["seen"], "kept": s["kept"], "dropped": s["dropped"]}
                                 for s in chain["stages"]})
    inputs = [data_node]
    if chain["tokenizer"].get("hash") or chain["tokenizer"].get("file_hash"):
        inputs.append(_dataset("tokenizer", chain["tokenizer"].get("hash") or chain["tokenizer"].get("file_hash")))
    if chain["checkpoint"].get("base_model"):
        inputs.append(_dataset(f"model/{chain['checkpoint']['base_model']}"))
    ckpt_node = _dataset(f"checkpoint/{Path(chain['checkpoint']['path']).name}", chain["checkpoint"]["hash"],
                         recipe=chain["recipe"]["name"], config_hash=chain["recipe"]["config_hash"])
    jobs = [("snapshot", origins, [snap_node], snapshot.get("code_version"), snapshot.get("snapshot_id")),
            ("assemble", [snap_node], [data_node], dataset.get("code_version"), dataset.get("version")),
            (f"train.{chain['recipe']['name']}", inputs, [ckpt_node], chain["checkpoint"].get("code_version"),
             chain["checkpoint"]["hash"])]
    events = []
    for job, job_inputs, outputs, code_version, output_hash in jobs:
        run_facets = {"quarry": {"_producer": PRODUCER, "_schemaURL": f"{PRODUCER}:facet",
                                 "code_version": code_version}}
        events.append({"eventType": "COMPLETE", "eventTime": when, "producer": PRODUCER,
                       "schemaURL": OPENLINEAGE_SCHEMA,
                       "run": {"runId": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{PRODUCER}:{job}:{output_hash}")),
                               "facets": run_facets},
                       "job": {"namespace": NAMESPACE, "name": job, "facets": {}},
                       "inputs": job_inputs, "outputs": outputs})
    return events


def _event_time(chain: JsonDict) -> str:
    lineage_file = Path(chain["checkpoint"]["path"]) / CHECKPOINT_LINEAGE
    stamp = lineage_file.stat().st_mtime if lineage_file.exists() else 0.0
    return dt.datetime.fromtimestamp(stamp, tz=dt.timezone.utc).isoformat().replace("+00:00", "Z")


# ---------------------------------------------------------------------------------------------
# Trace: from a file to the checkpoints that saw it


def split_shards(dataset_dir: Path, split: str, manifest: Manifest | None = None) -> list[Path]:
    """The shards of one split of a dataset folder (from its manifest when it has one)."""
    manifest = manifest if manifest is not None else dataset_manifest(dataset_dir)
    if manifest and split in (manifest.get("splits") or {}):
        return [dataset_dir / entry["path"] for entry in manifest["splits"][split].get("files", [])]
    return shard_paths(dataset_dir / split) if (dataset_dir / split).is_dir() else []


def _matches(record: Record, ref: str) -> bool:
    meta = record.get("meta") or {}
    if ref.startswith("swh:"):
        return meta.get("id") == ref
    path = str(meta.get("path") or "")
    origin = str(meta.get("origin") or "").rstrip("/")
    return ref in (path, f"{origin}/{path}", f"{origin}:{path}") or (bool(path) and ref.endswith("/" + path)
                                                                    and ref.startswith(origin))


def _found(record: Record, split: str) -> JsonDict:
    meta = record.get("meta") or {}
    return {"id": meta.get("id"), "path": meta.get("path"), "origin": meta.get("origin"),
            "revision": meta.get("revision"), "license": meta.get("license"), "split": split,
            "subset": meta.get("pile_set_name")}


def trace(checkpoint: str | os.PathLike, ref: str) -> JsonDict:
    """Did the file ``ref`` (a SWHID, a path, or origin/path) go into the checkpoint's training data?

    Returns {"in_training": bool, "answer": one line, and where it was found: split, id, path,
    origin, revision, license}. A document of the validation or test split, or one dropped during
    curation (with the stage's reason when the ledger folders keep it), was not trained on.
    """
    folder, record = read_checkpoint_lineage(checkpoint)
    dataset_dir = _resolve((record.get("dataset") or {}).get("path"), folder)
    manifest = dataset_manifest(dataset_dir)
    if dataset_dir is None or not dataset_dir.exists():
        raise QuarryError(f"{folder}: its dataset ({dataset_dir}) is not on this machine; `dvc pull` it first")
    version = (record.get("dataset") or {}).get("version") or (manifest or {}).get("version")
    result: JsonDict = {"checkpoint": str(folder), "query": ref, "dataset_version": version,
                              "in_training": False}
    splits = list((manifest or {}).get("splits") or {}) or sorted(p.name for p in dataset_dir.iterdir() if p.is_dir())
    for split in ["train", *[s for s in splits if s != "train"]]:
        for shard in split_shards(dataset_dir, split, manifest):
            for doc in read_records(shard):
                if _matches(doc, ref):
                    result.update(_found(doc, split))
                    result["in_training"] = split == "train"
                    result["answer"] = _answer(result)
                    return result
    source = _snapshot_file(ref, manifest, dataset_dir)
    if source:
        result.update(source)
    dropped = _dropped_reason(result.get("id") or ref, manifest, dataset_dir)
    if dropped:
        result.update(dropped)
        result["answer"] = f"no: removed during curation ({dropped['stage']}: {dropped['reason']})"
    elif source:
        result["answer"] = (f"no: in snapshot {str(source['snapshot_id'])[:12]} but not in dataset version "
                            f"{str(version)[:12]}")
    else:
        result["answer"] = f"no: not in the snapshot nor in dataset version {str(version)[:12]}"
    return result


def _snapshot_file(ref: str, manifest: Manifest | None, dataset_dir: Path) -> JsonDict | None:
    """The file ``ref`` as the dataset's snapshot manifest lists it: id, path, origin, revision."""
    path = snapshot_manifest_path(manifest, dataset_dir)
    if path is None:
        return None
    for entry in snapshot_files(path.parent):
        if _matches({"meta": entry}, ref):
            return {"id": entry.get("id"), "path": entry.get("path"), "origin": entry.get("origin"),
                    "revision": entry.get("revision"), "snapshot_id": read_json(path).get("snapshot_id")}
    return None


def _answer(found: JsonDict) -> str:
    license_info = found.get("license") or {}
    spdx = license_info.get("spdx") if isinstance(license_info, dict) else license_info
    if found["in_training"]:
        return f"yes: trained on, license {spdx or 'unknown'}"
    return f"no: held out in the {found['split']} split (license {spdx or 'unknown'})"


def _dropped_reason(ref: str, manifest: Manifest | None, dataset_dir: Path) -> JsonDict | None:
    """The stage and reason a document was dropped: from the rejects beside the dataset and below
    the project's curated folder (they name paths), else from the registered release's list of
    dropped ids."""
    for folder in [dataset_dir / "rejects", *_curation_reject_folders()]:
        for shard in shard_paths(folder) if folder.is_dir() else []:
            for row in read_records(shard, require_text=False, strict=False):
                meta = row.get("meta") or {}
                if _matches(row, ref):
                    return {"stage": meta.get("stage") or folder.parent.name, "reason": meta.get("reason"),
                            "id": meta.get("id"), "path": meta.get("path"), "origin": meta.get("origin")}
    if manifest is None or not ref.startswith("swh:"):
        return None
    _, _, release = locate(dataset_dir)
    if release is None or not (release / DROPPED).is_file():
        return None
    for row in read_dropped(release):
        if row.get("id") == ref:
            stage, _, reason = str(row.get("reason") or "").partition(": ")
            return {"stage": stage, "reason": reason or stage, "id": ref}
    return None


def _curation_reject_folders() -> list[Path]:
    """rejects/ folders of the curation stages (params pipeline.paths.curated)."""
    root = project_layout().curated
    return sorted(p for p in root.rglob("rejects") if p.is_dir()) if root.is_dir() else []


def _normalise_origin(origin: str) -> str:
    return str(origin).rstrip("/").removesuffix(".git")


def checkpoint_folders(models_root: str | os.PathLike) -> Iterator[Path]:
    root = Path(models_root)
    if not root.is_dir():
        return
    for path in sorted(root.rglob(CHECKPOINT_LINEAGE)):
        yield path.parent


def checkpoints_with_origin(origin: str, models_root: str | os.PathLike,
                            versions: Iterable[str] = ()) -> list[JsonDict]:
    """Every checkpoint below ``models_root`` whose training split holds a document of ``origin``:
    [{"checkpoint", "run", "step", "final", "dataset_version", "documents", "mlflow_run_id"}] (for
    `quarry whois`). A checkpoint trained on one of ``versions`` (known to hold the origin) is
    listed even when that version's folder is gone or now holds another version (documents None)."""
    wanted = _normalise_origin(origin)
    holding = set(versions)
    counts_by_dataset: dict[tuple[str, str | None], int] = {}
    found = []
    for folder in checkpoint_folders(models_root):
        record = read_json(folder / CHECKPOINT_LINEAGE)
        info = record.get("dataset") or {}
        dataset_dir = _resolve(info.get("path"), folder)
        manifest = dataset_manifest(dataset_dir)
        documents = None
        if dataset_dir is not None and dataset_dir.exists() and (
                manifest is None or not info.get("version") or manifest.get("version") == info.get("version")):
            key = (str(dataset_dir), info.get("version"))
            if key not in counts_by_dataset:
                counts_by_dataset[key] = sum(
                    1 for doc in _records(split_shards(dataset_dir, "train"))
                    if _normalise_origin((doc.get("meta") or {}).get("origin") or "") == wanted)
            documents = counts_by_dataset[key]
        if documents or info.get("version") in holding:
            step = STEP_DIR.match(folder.name)
            found.append({"checkpoint": str(folder), "run": str(run_folder(folder)),
                          "step": int(step.group(1)) if step else record.get("steps"), "final": not step,
                          "dataset_version": info.get("version"), "documents": documents,
                          "recipe": record.get("recipe"), "mlflow_run_id": record.get("mlflow_run_id")})
    return found


def _records(shards: Iterable[Path]) -> Iterator[Record]:
    for shard in shards:
        yield from read_records(shard)

"""What honouring an opt-out request touches, and the commands that honour it (`quarry optout impact`).

``whois`` finds the dataset versions holding the origin and the checkpoints trained on them (the
lineage walk); this adds the checkpoints grouped by training run, the MLflow runs that trained or
evaluated on those versions, and the commands that give versions without the origin: record the
request in the registry, then `dvc repro` for the DAG's own dataset (its curate stage depends on
the registry, everything downstream follows) and `quarry optout reapply` for any other version.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from quarry.config import Layout
from quarry.datasets.lineage import dataset_manifest
from quarry.curation.optout import default_registry_path
from quarry.datasets.reapply import whois
from quarry.config.values import load_params
from quarry.paths import project_root
from quarry.records import JsonDict
from quarry.dag import NODES
from quarry import tracking

PathLike = str | os.PathLike
REBUILT_BY_REPRO = NODES[NODES.index("curate"):]  # the registry is a dependency of curate


def optout_impact(origin: str, *, registry_path: PathLike | None = None, releases_root: PathLike | None = None,
                  datasets_root: PathLike | None = None, models_root: PathLike | None = None,
                  reason: str = "owner request") -> JsonDict:
    """whois(origin) plus "runs" (checkpoints by training run and step), "mlflow_runs" (None when the
    project has no MLflow store), "mlflow_store" and "commands" ([{"command", "does"}], in order;
    a step no command can do, such as retraining outside the DAG, has command None)."""
    found = whois(origin, registry_path=registry_path, releases_root=releases_root, datasets_root=datasets_root,
                  models_root=models_root)
    runs = training_runs(found["checkpoints"])
    versions = {d["version"] for d in found["datasets"]}
    run_ids = {run["mlflow_run_id"] for run in runs if run["mlflow_run_id"]}
    mlflow_runs = tracking.runs_on_datasets(versions, run_ids) if versions or run_ids else []
    return {**found, "runs": runs, "mlflow_runs": mlflow_runs,
            "mlflow_store": tracking.tracking_uri() if mlflow_runs is not None else None,
            "commands": rebuild_commands(origin, found, runs, registry_path=registry_path, reason=reason)}


def training_runs(checkpoints: list[JsonDict]) -> list[JsonDict]:
    """Checkpoints (as whois lists them) grouped by run folder, steps in order, final last."""
    by_run: dict[str, JsonDict] = {}
    for c in checkpoints:
        run = by_run.setdefault(c["run"], {"run": c["run"], "recipe": c.get("recipe"), "checkpoints": [],
                                           "dataset_versions": [], "mlflow_run_id": None})
        run["checkpoints"].append({"step": c.get("step"), "final": c.get("final"), "path": c["checkpoint"],
                                   "documents": c.get("documents")})
        if c.get("dataset_version") and c["dataset_version"] not in run["dataset_versions"]:
            run["dataset_versions"].append(c["dataset_version"])
        run["mlflow_run_id"] = run["mlflow_run_id"] or c.get("mlflow_run_id")
    for run in by_run.values():
        run["checkpoints"].sort(key=lambda c: (bool(c["final"]), c["step"] or 0))
    return [by_run[k] for k in sorted(by_run)]


def rebuild_commands(origin: str, found: JsonDict, runs: list[JsonDict], *, registry_path: PathLike | None = None,
                     reason: str = "owner request") -> list[JsonDict]:
    root = project_root()
    registry = f" --registry {_q(registry_path)}" if registry_path else ""
    commands = []
    if found["opted_out"] is None:
        where = shown(Path(registry_path) if registry_path else default_registry_path())
        commands.append({"command": f"quarry optout add {shlex.quote(origin)} --reason {shlex.quote(reason)}{registry}",
                         "does": f"record the request in {where} (every later build leaves the origin out)"})
    dvc = (root / "dvc.yaml").is_file()
    layout = Layout.of(load_params() if (root / "params.yaml").is_file() else None, root)
    dag_dataset = layout.dataset.resolve()
    repro = False
    for d in found["datasets"]:
        folder = Path(d["path"])
        what = f"{d['name']} {d['label']} ({d['version'][:12]})"
        if (dataset_manifest(folder) or {}).get("version") != d["version"]:
            commands.append({"command": None, "does": f"{what}: superseded, {shown(folder)} no longer holds it "
                                                      "(withdraw copies already shared)"})
        elif dvc and folder.resolve() == dag_dataset:
            repro = True
        else:
            out = folder.with_name(f"{folder.name}-without-{_slug(origin)}")
            commands.append({"command": f"quarry optout reapply {_q(folder)} {_q(out)}{registry}",
                             "does": f"a new version of {what} without the origin's documents (nothing else "
                                     "recomputed)"})
    dag_models = {layout.pretrain.resolve(), layout.finetune.resolve()}
    retrain = [run for run in runs if not (dvc and Path(run["run"]).resolve() in dag_models)]
    repro = repro or (dvc and len(retrain) < len(runs))
    if repro:
        commands.append({"command": "dvc repro", "does": f"rebuild the DAG with the registry: re-runs "
                                                         f"{', '.join(REBUILT_BY_REPRO)}"})
    for run in retrain:
        commands.append({"command": None, "does": f"retrain {shown(Path(run['run']))} ({run['recipe']}) on the new "
                                                  "version: its config is in its checkpoints' lineage.json"})
    return commands


def _slug(origin: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", origin.lower().split("://", 1)[-1]).strip("-")


def shown(path: Path) -> str:
    """A path relative to the working folder when it is below it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _q(path: PathLike) -> str:
    return shlex.quote(shown(Path(path)))

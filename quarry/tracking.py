"""MLflow wiring: the one module of quarry/ that imports mlflow.

The default tracking store is a SQLite database inside the project (mlflow.db, artifacts in
mlartifacts/), so experiments travel with the checkout; MLFLOW_TRACKING_URI overrides it (a
real `mlflow server`, for example). Every run is tagged with the git commit of the code, and,
when given, the params hash and dataset version hash it depends on.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from quarry.paths import project_root

DEFAULT_EXPERIMENT = "quarry"


def tracking_uri(root: Path | None = None) -> str:
    if uri := os.environ.get("MLFLOW_TRACKING_URI"):
        return uri
    return f"sqlite:///{(root or project_root()) / 'mlflow.db'}"


def artifact_root(root: Path | None = None) -> str:
    return ((root or project_root()) / "mlartifacts").as_uri()


def configure(root: Path | None = None):
    """Point mlflow at the project's store; returns the mlflow module."""
    import mlflow

    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    mlflow.set_tracking_uri(tracking_uri(root))
    return mlflow


def ensure_experiment(name: str = DEFAULT_EXPERIMENT, root: Path | None = None) -> str:
    """The experiment id for ``name``, creating it with a project-local artifact location."""
    mlflow = configure(root)
    client = mlflow.MlflowClient()
    found = client.get_experiment_by_name(name)
    if found is not None:
        return found.experiment_id
    location = None if os.environ.get("MLFLOW_TRACKING_URI") else artifact_root(root) + f"/{name}"
    return client.create_experiment(name, artifact_location=location)


def git_commit(root: Path | None = None) -> str:
    """The commit of the code that ran, with '-dirty' when the tree has changes; 'unknown' outside git."""
    cwd = root or Path(__file__).resolve().parent
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha + ("-dirty" if dirty else "")


def lineage_tags(*, params_hash: str | None = None, dataset_hash: str | None = None,
                 **extra: Any) -> dict[str, str]:
    """Tags every Quarry run carries: code version, and the hashes it depends on."""
    tags = {"quarry.git_commit": git_commit()}
    if params_hash:
        tags["quarry.params_hash"] = params_hash
    if dataset_hash:
        tags["quarry.dataset_hash"] = dataset_hash
    for key, value in extra.items():
        if value is not None:
            tags[f"quarry.{key}"] = str(value)
    return tags


@contextlib.contextmanager
def start_run(run_name: str | None = None, *, experiment: str = DEFAULT_EXPERIMENT,
              params_hash: str | None = None, dataset_hash: str | None = None,
              tags: dict[str, str] | None = None, run_id: str | None = None,
              root: Path | None = None, **extra_tags: Any) -> Iterator[Any]:
    """An MLflow run tagged with lineage; resumes ``run_id`` when given."""
    mlflow = configure(root)
    experiment_id = ensure_experiment(experiment, root)
    all_tags = lineage_tags(params_hash=params_hash, dataset_hash=dataset_hash, **extra_tags)
    all_tags.update(tags or {})
    with mlflow.start_run(run_id=run_id, run_name=run_name, experiment_id=experiment_id) as run:
        mlflow.set_tags(all_tags)
        yield run

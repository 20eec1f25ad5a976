"""MLflow wiring: the one module of quarry/ that imports mlflow.

The default tracking store is a SQLite database inside the project (mlflow.db, artifacts in
mlartifacts/), so experiments travel with the checkout; MLFLOW_TRACKING_URI overrides it (a
real `mlflow server`, for example). Every run is tagged with the git commit of the code, and,
when given, the params hash and dataset version hash it depends on.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from quarry.errors import QuarryError
from quarry.paths import project_root
from quarry.records import JsonDict, Record

DEFAULT_EXPERIMENT = "quarry"
DATA_EXPERIMENT = "quarry-data"


def default_tracking_uri(root: Path | None = None) -> str:
    return f"sqlite:///{(root or project_root()) / 'mlflow.db'}"


def tracking_uri(root: Path | None = None) -> str:
    return os.environ.get("MLFLOW_TRACKING_URI") or default_tracking_uri(root)


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
    # mlflow.set_tracking_uri exports MLFLOW_TRACKING_URI itself: compare with the project's store
    # rather than testing whether the variable is set. A user's server keeps its own artifact root.
    own_store = tracking_uri(root) == default_tracking_uri(root)
    location = artifact_root(root) + f"/{name}" if own_store else None
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


# ---------------------------------------------------------------------------------------------
# Evaluation results, plots, the model registry and run comparison


BATCH_LIMIT = 100


def _flat(prefix: str, value: Any) -> dict[str, str]:
    """Nested dict -> {"a.b.c": "str"}: MLflow tags are flat strings (at most 5000 characters)."""
    if isinstance(value, dict):
        out: dict[str, str] = {}
        for key in sorted(value):
            out.update(_flat(f"{prefix}.{key}" if prefix else str(key), value[key]))
        return out
    if value is None:
        return {}
    return {prefix: str(value)[:5000]}


def eval_metrics(result: JsonDict, prefix: str = "bpb") -> dict[str, float]:
    """MLflow metrics of a BpbResult dict: bpb/<subset>, bpb (aggregate), and their counts."""
    metrics = {prefix: float(result["aggregate"]["bpb"])}
    for name, score in result["subsets"].items():
        metrics[f"{prefix}/{name}"] = float(score["bpb"])
        metrics[f"eval_bytes/{name}"] = float(score["bytes"])
        metrics[f"eval_docs/{name}"] = float(score["docs"])
        metrics[f"eval_tokens/{name}"] = float(score["tokens"])
    metrics["eval_bytes"] = float(result["aggregate"]["bytes"])
    metrics["eval_docs"] = float(result["aggregate"]["docs"])
    return metrics


def run_exists(run_id: str | None, root: Path | None = None) -> bool:
    if not run_id:
        return False
    mlflow = configure(root)
    try:
        mlflow.MlflowClient().get_run(run_id)
    except Exception:  # noqa: BLE001 - mlflow raises MlflowException or a REST error for unknown ids
        return False
    return True


def log_evaluation(result: JsonDict, *, training_run_id: str | None = None,
                   run_name: str | None = None, experiment: str = DEFAULT_EXPERIMENT,
                   artifacts: list[Path] | None = None, lineage: JsonDict | None = None,
                   lineage_summary: JsonDict | None = None, dataset_hash: str | None = None,
                   dataset_path: str | os.PathLike | None = None, settings: JsonDict | None = None,
                   step: int | None = None, root: Path | None = None) -> str:
    """Log BPB metrics, plots and the lineage record (``lineage`` as lineage.json, its
    ``lineage_summary`` as quarry.lineage.* tags) to the training run when it is in this
    store, else to a new run tagged with the training run's id; returns the run id used.

    The training run's own tags (its code version, its dataset hash) are left as they are: what
    the evaluation ran with goes under quarry.eval.*.
    """
    import time

    from mlflow.entities import Metric

    client = configure(root).MlflowClient()
    tags = {"quarry.eval.git_commit": git_commit()}
    if dataset_hash:
        tags["quarry.eval.dataset_hash"] = dataset_hash
    tags.update({f"quarry.eval.{k}": v for k, v in _flat("", settings or {}).items()})
    tags.update({f"quarry.lineage.{k}": v for k, v in _flat("", lineage_summary or {}).items()})
    if run_exists(training_run_id, root):
        run_id = training_run_id
    else:
        link = {"quarry.evaluated_run_id": training_run_id} if training_run_id else {}
        with start_run(run_name, experiment=experiment, dataset_hash=dataset_hash, tags=link, root=root,
                       stage="evaluate") as run:
            run_id = run.info.run_id
    now = int(time.time() * 1000)
    metrics = [Metric(key, value, now, step or 0) for key, value in eval_metrics(result).items()]
    tag_list = [_tag(k, v) for k, v in sorted(tags.items())]
    for begin in range(0, max(len(metrics), len(tag_list)), BATCH_LIMIT):  # MLflow's per-call limits
        client.log_batch(run_id, metrics=metrics[begin:begin + BATCH_LIMIT],
                         tags=tag_list[begin:begin + BATCH_LIMIT])
    for path in artifacts or ():
        client.log_artifact(run_id, str(path), artifact_path="evaluation")
    if lineage:
        client.log_dict(run_id, lineage, "lineage.json")
    if dataset_path is not None:
        log_dataset_input(run_id, dataset_path, dataset_hash, context="evaluation", root=root)
    return run_id


def log_dataset_input(run_id: str, folder: str | os.PathLike, version: str | None, *, context: str,
                      name: str | None = None, root: Path | None = None) -> None:
    """Record a dataset version as an input of ``run_id`` (MLflow's Dataset column and lineage
    views): its source is the dataset folder, its digest the version hash (as much as MLflow's
    36-character field holds; the whole hash is the input tag quarry.dataset_version)."""
    if not version:
        return
    from mlflow.data.dataset_source_registry import resolve_dataset_source
    from mlflow.data.meta_dataset import MetaDataset
    from mlflow.entities import DatasetInput, InputTag

    client = configure(root).MlflowClient()
    with warnings.catch_warnings():  # MLflow registers its local-files source for "" and "file" alike, and
        # says the URI "can be interpreted in multiple ways" when both (the same class) match
        warnings.filterwarnings("ignore", message="The specified dataset source can be interpreted in multiple ways")
        source = resolve_dataset_source(Path(folder).resolve().as_uri())
    dataset = MetaDataset(source=source, name=name or Path(folder).name, digest=version[:36])
    tags = [InputTag("mlflow.data.context", context), InputTag("quarry.dataset_version", version)]
    client.log_inputs(run_id, datasets=[DatasetInput(dataset._to_mlflow_entity(), tags=tags)])


def _tag(key: str, value: str):
    from mlflow.entities import RunTag

    return RunTag(key, value)


def metric_history(run_id: str, key: str, root: Path | None = None) -> list[tuple[int, float]]:
    """(step, value) of a logged metric, in step order (the training loss curve, for instance)."""
    client = configure(root).MlflowClient()
    return sorted((m.step, m.value) for m in client.get_metric_history(run_id, key))


def register_checkpoint(checkpoint: Path, name: str, *, run_id: str,
                        lineage: JsonDict | None = None, root: Path | None = None) -> Any:
    """Upload the checkpoint folder to ``run_id``'s artifacts and register it as a new version
    of model ``name``, tagged with its lineage; returns the ModelVersion."""
    mlflow = configure(root)
    client = mlflow.MlflowClient()
    client.log_artifacts(run_id, str(checkpoint), artifact_path="checkpoint")
    try:
        client.get_registered_model(name)
    except Exception:  # noqa: BLE001 - not registered yet
        client.create_registered_model(name, tags={"quarry.kind": "checkpoint"})
    tags = {f"quarry.lineage.{k}": v for k, v in _flat("", lineage or {}).items()}
    return client.create_model_version(name, source=f"runs:/{run_id}/checkpoint", run_id=run_id, tags=tags,
                                       description=f"Quarry checkpoint {checkpoint.name}")


def resolve_run(ref: str, root: Path | None = None) -> Any:
    """A run by id, by a unique prefix of its id (4 hex digits or more), or by run name (the
    latest of that name)."""
    mlflow = configure(root)
    client = mlflow.MlflowClient()
    try:
        return client.get_run(ref)
    except Exception:  # noqa: BLE001 - not a whole id: try a prefix, then a name
        pass
    experiments = [e.experiment_id for e in client.search_experiments()]
    if re.fullmatch(r"[0-9a-f]{4,31}", ref):
        # The search syntax has no prefix match on run ids: list ids and compare here.
        matches = [run for run in client.search_runs(experiments, max_results=50000) if run.info.run_id.startswith(ref)]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            ids = ", ".join(sorted(run.info.run_id[:12] for run in matches)[:5])
            raise QuarryError(f"mlflow ({tracking_uri(root)}): run id prefix '{ref}' is ambiguous: {ids}")
    found = client.search_runs(experiments, filter_string=f"attributes.run_name = '{ref}'",
                               order_by=["attributes.start_time DESC"], max_results=1)
    if not found:
        raise QuarryError(f"mlflow ({tracking_uri(root)}): no run with id, id prefix or name '{ref}'")
    return found[0]


# The tags that name the dataset version a run read: a training run's own (start_run's
# dataset_hash), an evaluation logged onto that run, a separate evaluation run's.
DATASET_TAGS = {"quarry.dataset_hash": "trained", "quarry.eval.dataset_hash": "evaluated"}


def runs_on_datasets(versions: set[str], run_ids: set[str] = frozenset(), root: Path | None = None
                     ) -> list[JsonDict] | None:
    """The runs that trained or evaluated on any of ``versions`` (dataset version hashes), the runs
    ``run_ids`` (named by checkpoints' lineage), and the evaluations of either (tagged
    quarry.evaluated_run_id): [{"run_id", "name", "experiment", "roles", "dataset_version", "status"}].
    None when the project has no MLflow store yet (looking must not create one)."""
    if tracking_uri(root) == default_tracking_uri(root) and not ((root or project_root()) / "mlflow.db").is_file():
        return None
    client = configure(root).MlflowClient()
    experiments = {e.experiment_id: e.name for e in client.search_experiments()}
    if not experiments:
        return []
    found: dict[str, JsonDict] = {}

    def add(run, role: str) -> None:
        row = found.setdefault(run.info.run_id, {
            "run_id": run.info.run_id, "name": run.info.run_name, "experiment": experiments.get(run.info.experiment_id),
            "roles": [], "dataset_version": run.data.tags.get("quarry.dataset_hash"), "status": run.info.status})
        if role not in row["roles"]:
            row["roles"].append(role)

    def search(key: str, value: str) -> list:
        return client.search_runs(list(experiments), filter_string=f"tags.`{key}` = '{value}'", max_results=50000)

    for version in sorted(versions):
        for key, role in DATASET_TAGS.items():
            for run in search(key, version):
                built = experiments.get(run.info.experiment_id) == DATA_EXPERIMENT  # the run that assembled it
                add(run, "built" if built else "evaluated" if run.data.tags.get("quarry.stage") == "evaluate" else role)
    for run_id in sorted(run_ids):
        if run_exists(run_id, root):
            add(client.get_run(run_id), "trained")
    for trained in [row["run_id"] for row in found.values() if "trained" in row["roles"]]:
        for run in search("quarry.evaluated_run_id", trained):
            add(run, "evaluated")
    return sorted(found.values(), key=lambda row: (row["experiment"] or "", row["name"] or "", row["run_id"]))


COMPARE_TAGS = ("quarry.dataset_hash", "quarry.params_hash", "quarry.git_commit", "quarry.evaluated_run_id")
COMPARE_TAG_PREFIXES = ("quarry.lineage.", "quarry.eval.")  # what the evaluation ran on and with


def compare_runs(refs: list[str], root: Path | None = None) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """A side-by-side table of runs: (column headers, [(row label, one value per run)]).

    Rows: the lineage tags (dataset and params hashes, code version), the evaluation's lineage
    and settings, every param, then every metric that starts with 'bpb' (per subset and
    aggregate) and the training loss, as last logged.
    Rows present in only some runs show '-' for the others.
    """
    runs = [resolve_run(ref, root) for ref in refs]
    headers = [run.info.run_name or run.info.run_id[:8] for run in runs]
    rows: list[tuple[str, list[str]]] = [("run id", [run.info.run_id for run in runs])]
    for tag in COMPARE_TAGS:
        values = [run.data.tags.get(tag, "-") for run in runs]
        if any(v != "-" for v in values):
            rows.append((tag.removeprefix("quarry."), values))
    for key in sorted({k for run in runs for k in run.data.tags if k.startswith(COMPARE_TAG_PREFIXES)}):
        rows.append((key.removeprefix("quarry."), [run.data.tags.get(key, "-") for run in runs]))
    for key in sorted({k for run in runs for k in run.data.params}):
        rows.append((f"param {key}", [run.data.params.get(key, "-") for run in runs]))
    metric_keys = sorted({k for run in runs for k in run.data.metrics
                          if k.startswith("bpb") or k in ("loss", "train_loss", "eval_bytes")})
    for key in metric_keys:
        rows.append((key, [_fmt(run.data.metrics.get(key)) for run in runs]))
    return headers, rows


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if float(value).is_integer() and abs(value) >= 10 else f"{value:.4f}"


# ---------------------------------------------------------------------------------------------
# Data runs: what a curation or assembly run cost and kept, comparable like training runs


def stage_metrics(stage: str, ledger: JsonDict, seconds: float, cpu_seconds: float, input_bytes: int) -> dict[str, float]:
    """<stage>.input / .kept / .dropped[.<reason>] counts, .seconds, .cpu_s and .mb_per_s."""
    name = _metric_name(stage)
    metrics = {f"{name}.seconds": round(seconds, 3), f"{name}.cpu_s": round(cpu_seconds, 3)}
    if input_bytes and seconds > 0:
        metrics[f"{name}.mb_per_s"] = round(input_bytes / 1e6 / seconds, 4)
    if {"input", "kept", "dropped"} <= set(ledger):
        metrics.update({f"{name}.input": ledger["input"], f"{name}.kept": ledger["kept"],
                        f"{name}.dropped": sum(ledger["dropped"].values())})
        metrics.update({f"{name}.dropped.{_metric_name(r)}": n for r, n in ledger["dropped"].items()})
    return metrics


def _metric_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_./ -]", "_", text)


def log_data_run(run_name: str, metrics: dict[str, float], params: JsonDict, *, params_hash: str | None = None,
                 dataset_hash: str | None = None, root: Path | None = None) -> str:
    """One run in the data experiment: the params sections it read (flattened) and its metrics;
    returns the run id."""
    with start_run(run_name, experiment=DATA_EXPERIMENT, params_hash=params_hash, dataset_hash=dataset_hash,
                   root=root) as run:
        mlflow = configure(root)
        flat = _flat("", params)
        items = sorted(flat.items())
        for start in range(0, len(items), BATCH_LIMIT):
            mlflow.log_params(dict(items[start:start + BATCH_LIMIT]))
        metric_items = sorted(metrics.items())
        for start in range(0, len(metric_items), BATCH_LIMIT):
            mlflow.log_metrics(dict(metric_items[start:start + BATCH_LIMIT]))
        return run.info.run_id

"""`quarry optout impact` and `quarry whois`: what holds an origin, and the commands that rebuild without it."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from quarry.datasets.impact import optout_impact, shown
from quarry.records import JsonDict

out = Console()

REGISTRY = typer.Option(None, "--registry", help="Opt-out registry file (default: params optout.registry).")
MODELS = typer.Option(None, "--models", help="Checkpoints folder (default: models/).")
AS_JSON = typer.Option(False, "--json", help="Print the whole answer as JSON.")


def print_impact(found: JsonDict, console: Console = out) -> None:
    """Dataset versions, checkpoints by run and step, MLflow runs and the commands, as tables."""
    table = Table("name", "version", "documents", "origins", title=f"dataset versions holding {found['origin']}")
    for d in found["datasets"]:
        table.add_row(d["name"], f"{d['label']} {d['version'][:12]}", str(d["documents"]),
                      ", ".join(f"{o} ({n})" for o, n in d["origins"].items()))
    console.print(table)
    held = sum(d["documents"] for d in found["datasets"])
    console.print(f"{held} documents in {len(found['datasets'])} of {found['versions_checked']} dataset versions")

    # The run folder may be long: it folds onto more lines rather than being cut (every row would
    # otherwise end in the same truncated prefix); the checkpoint column names the step.
    table = Table(title="checkpoints trained on them")
    table.add_column("run", overflow="fold", ratio=1)
    for column in ("checkpoint", "recipe", "dataset", "documents"):
        table.add_column(column, no_wrap=True)
    for run in found["runs"]:
        for i, c in enumerate(run["checkpoints"]):
            name = f"final (step {c['step']})" if c["final"] else f"step {c['step']}"
            table.add_row(shown(Path(run["run"])) if i == 0 else "", name, run["recipe"] or "-",
                          ", ".join(v[:12] for v in run["dataset_versions"]),
                          "-" if c["documents"] is None else str(c["documents"]))
    console.print(table if found["runs"] else "no checkpoint was trained on them")

    if found["mlflow_runs"] is None:
        console.print("MLflow: the project has no MLflow store (mlflow.db) yet")
    else:
        table = Table(title=f"MLflow runs ({found['mlflow_store']})")
        table.add_column("run id", no_wrap=True)  # whole: what `quarry compare` and the MLflow UI take
        for column in ("name", "experiment", "role"):
            table.add_column(column, overflow="fold")
        for run in found["mlflow_runs"]:
            table.add_row(run["run_id"], run["name"] or "-", run["experiment"] or "-", ", ".join(run["roles"]))
        console.print(table if found["mlflow_runs"] else "MLflow: no run trained or evaluated on them")

    entry = found["opted_out"]
    console.print(f"opt-out: covered by {entry['kind']} {entry['value']} ({entry['date']})" if entry
                  else "opt-out: not covered by the registry")
    if found["commands"]:
        console.print("to rebuild without it:")
    for step in found["commands"]:
        console.print(f"  {step['command']}" if step["command"] else "  (by hand)", markup=False, highlight=False,
                      soft_wrap=True)
        console.print(f"      # {step['does']}", markup=False, highlight=False, soft_wrap=True)


def show(origin: str, registry: Path | None, models: Path | None, as_json: bool) -> None:
    found = optout_impact(origin, registry_path=registry, models_root=models)
    if as_json:
        print(json.dumps(found, indent=2, sort_keys=True, default=str))
    else:
        print_impact(found)


def register_impact(app: typer.Typer, optout: typer.Typer) -> None:
    @optout.command("impact")
    def impact(origin: str = typer.Argument(..., help="An origin (repository URL, pypi:name, path)."),
               registry: Path = REGISTRY, models: Path = MODELS, as_json: bool = AS_JSON) -> None:
        """Dataset versions, checkpoints (by run and step) and MLflow runs holding ORIGIN's data, and the
        commands that rebuild without it."""
        show(origin, registry, models, as_json)

    @app.command("whois")
    def whois_(origin: str = typer.Argument(..., help="An origin (repository URL, pypi:name, path)."),
               registry: Path = REGISTRY, models: Path = MODELS, as_json: bool = AS_JSON) -> None:
        """Every dataset version, checkpoint and MLflow run holding data from ORIGIN, whether an opt-out
        covers it, and the commands that rebuild without it (the same as `quarry optout impact`)."""
        show(origin, registry, models, as_json)

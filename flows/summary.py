"""What a person sees when a stage (or the demo) ends: the dataset version, its composition, the
BPB table, and where to look in MLflow and Prefect."""

from __future__ import annotations

import os
from typing import Any

from rich.console import Console
from rich.table import Table

from flows.server import running_api
from quarry.datasets.audit import summary
from quarry.config import Layout
from quarry.config.values import load_params
from quarry.records import read_json
from quarry.tracking import tracking_uri


def print_stage_summary(stage: str, result: Any, console: Console) -> None:
    if stage in ("evaluate", "pipeline"):
        print_demo_summary(console)
    elif isinstance(result, dict) and "version" in result:
        # soft_wrap: a hash people copy to cite stays on one line, whatever the terminal's width
        console.print(f"[green]{stage}[/green]: dataset version [bold]{result['version']}[/bold]", soft_wrap=True)
    elif stage == "audit" and isinstance(result, dict):
        console.print(f"[green]{stage}[/green]: {summary(result)}")
    elif isinstance(result, dict) and "snapshot_id" in result:
        console.print(f"[green]{stage}[/green]: snapshot [bold]{result['snapshot_id']}[/bold]", soft_wrap=True)
        if result.get("notice"):  # what the byte caps left out
            console.print(f"[yellow]{stage}[/yellow]: {result['notice']}", soft_wrap=True)
    else:
        console.print(f"[green]{stage}[/green]: done")


def print_demo_summary(console: Console, params_file: str | None = None) -> None:
    layout = Layout.of(load_params(params_file))
    manifest_path = layout.dataset / "manifest.json"
    if manifest_path.is_file():
        manifest = read_json(manifest_path)
        console.print(f"dataset [bold]{manifest['name']}[/bold] {manifest.get('label')} "
                      f"version [bold]{manifest['version']}[/bold] (snapshot {manifest.get('snapshot_id', '')[:12]})",
                      soft_wrap=True)
        table = Table("subset", "documents", "MB", title="composition")
        for subset, row in sorted(manifest["composition"]["by_subset"].items()):
            table.add_row(subset, str(row["documents"]), f"{row['bytes'] / 1e6:.2f}")
        console.print(table)
    metrics_path = layout.metrics
    if metrics_path.is_file():
        metrics = read_json(metrics_path)
        subsets = sorted({s for m in metrics.values() for s in (m.get("subsets") or {})})
        table = Table("checkpoint", "all", *subsets, title="bits per byte (test split)")
        for name, m in metrics.items():
            row = [m.get("subsets", {}).get(s) for s in subsets]
            table.add_row(name, _fmt(m.get("bpb")), *map(_fmt, row))
        console.print(table)
    console.print(f"MLflow: runs in {tracking_uri()}; browse with `mlflow ui --backend-store-uri "
                  f"{tracking_uri()}` then http://127.0.0.1:5000")
    if url := os.environ.get("PREFECT_API_URL") or running_api():
        console.print(f"Prefect: flow runs at {url.removesuffix('/api')} (the project's server stays up for the next "
                      "run; `quarry server stop` ends it)")
    else:
        console.print("Prefect: flow runs in .quarry/prefect; `quarry server status` shows the server once a flow ran")


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"

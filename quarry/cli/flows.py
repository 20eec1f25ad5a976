"""Run the DAG's stages as Prefect flows (what dvc.yaml calls), the whole pipeline, or serve it
as a scheduled deployment. Folders come from params.yaml `pipeline.paths`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

out = Console()

from flows.dag import DAG

STAGES = (*DAG, "pipeline")


def register(app: typer.Typer) -> None:
    @app.command("flow")
    def flow_command(stage: str = typer.Argument(..., help=f"One of: {', '.join(STAGES)}."),
                     params_file: Path = typer.Option(None, "--params", help="params.yaml (default: the project's)."),
                     workers: int = typer.Option(None, help="Worker processes (default params pipeline.workers)."),
                     dask_address: str = typer.Option(None, "--dask-address", help="Run tasks on this Dask scheduler."),
                     ) -> None:
        """Run one stage of the DAG (or the whole pipeline) as a Prefect flow."""
        from flows.server import ensure_api

        ensure_api()  # one API for every stage of the run, before Prefect reads its settings
        from flows.stages import run_stage

        result = run_stage(stage, str(params_file) if params_file else None, workers=workers,
                           dask_address=dask_address)
        from flows.summary import print_stage_summary

        print_stage_summary(stage, result, out)

    @app.command("serve")
    def serve(cron: str = typer.Option("0 2 * * *", help="Cron schedule of the rebuild (UTC)."),
              interval: int = typer.Option(None, help="Seconds between runs instead of a cron schedule."),
              name: str = typer.Option("nightly", help="Deployment name."),
              params_file: Path = typer.Option(None, "--params", help="params.yaml the runs use."),
              ) -> None:
        """Register the pipeline as a scheduled Prefect deployment and serve its runs (Ctrl-C stops)."""
        from flows.deployments import serve_pipeline

        serve_pipeline(name=name, cron=None if interval else cron, interval=interval,
                       params_file=str(params_file.resolve()) if params_file else None)

"""Run the DAG's stages as Prefect flows (what dvc.yaml calls), the whole pipeline, or serve it
as a scheduled deployment. Folders come from params.yaml `pipeline.paths`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from quarry.cli.project_code import load_project_code
from quarry.infra.lock import project_lock
from quarry.dag import NODES

out = Console()
STAGES = (*NODES, "pipeline")


def register(app: typer.Typer) -> None:
    @app.command("flow")
    def flow_command(stage: str = typer.Argument(..., help=f"One of: {', '.join(STAGES)}."),
                     params_file: Path = typer.Option(None, "--params", help="params.yaml (default: the project's)."),
                     workers: int = typer.Option(None, help="Worker processes (default params pipeline.workers)."),
                     dask_address: str = typer.Option(None, "--dask-address", help="Run tasks on this Dask scheduler."),
                     no_wait: bool = typer.Option(False, "--no-wait",
                                                  help="Fail at once when another run is writing the project."),
                     ) -> None:
        """Run one stage of the DAG (or the whole pipeline) as a Prefect flow."""
        load_project_code()
        from flows.server import ensure_api  # the project's code (quarry.cli.project_code)
        from flows.summary import print_stage_summary  # the project's code, loaded by load_project_code

        with project_lock(f"quarry flow {stage}", wait=not no_wait):  # one writer per project
            ensure_api()  # one API for every stage of the run, before Prefect reads its settings
            from flows.pipeline import run_node  # Prefect: loaded once ensure_api has set its API URL

            result = run_node(stage, str(params_file) if params_file else None, workers=workers,
                               dask_address=dask_address)
        print_stage_summary(stage, result, out)

    @app.command("serve")
    def serve(cron: str = typer.Option("0 2 * * *", help="Cron schedule of the rebuild (UTC)."),
              interval: int = typer.Option(None, help="Seconds between runs instead of a cron schedule."),
              name: str = typer.Option("nightly", help="Deployment name."),
              params_file: Path = typer.Option(None, "--params", help="params.yaml the runs use."),
              ) -> None:
        """Register the pipeline as a scheduled Prefect deployment and serve its runs (Ctrl-C stops)."""
        load_project_code()
        from flows.server import ensure_api, serving  # the project's code (quarry.cli.project_code)

        ensure_api()  # the project's server (or PREFECT_API_URL): the one `quarry server status` names
        from flows.deployments import serve_pipeline  # Prefect: loaded once ensure_api has set its API URL

        with serving():  # the server stays up while this waits for the schedule
            serve_pipeline(name=name, cron=None if interval else cron, interval=interval,
                           params_file=str(params_file.resolve()) if params_file else None)

    server = typer.Typer(help="The project's local Prefect server (started by `quarry flow`, reused).",
                         no_args_is_help=True)
    app.add_typer(server, name="server")

    @server.command("status")
    def server_status() -> None:
        """Where the local server listens, if it runs."""
        load_project_code()
        from flows.server import running_api  # the project's code (quarry.cli.project_code)

        url = running_api()
        out.print(f"Prefect server at {url}" if url else "no local Prefect server is running")

    @server.command("stop")
    def server_stop() -> None:
        """Stop the local server the flows share (the next `quarry flow` starts a new one)."""
        load_project_code()
        from flows.server import stop_api  # the project's code (quarry.cli.project_code)

        out.print("stopped the local Prefect server" if stop_api() else "no local Prefect server was running")

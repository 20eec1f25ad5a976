"""The pipeline as a scheduled Prefect deployment: for example a nightly rebuild that picks up
new opt-outs. Every stage is cached on content, so a night with no change in sources, registry,
params or code re-uses every shard and ends on the same dataset version hash (no new version)."""

from __future__ import annotations

from datetime import timedelta

from flows.pipeline import pipeline


def pipeline_deployment(name: str = "nightly", *, cron: str | None = "0 2 * * *", interval: int | None = None,
                        params_file: str | None = None):
    """A RunnerDeployment of the pipeline flow with its schedule and parameters. Its entrypoint
    is the module path (flows.pipeline.pipeline), so runs work from any working folder."""
    from prefect.deployments.runner import EntrypointType

    return pipeline.to_deployment(
        name=name,
        cron=cron if interval is None else None,
        interval=timedelta(seconds=interval) if interval else None,
        parameters={"params_file": params_file},
        description="Rebuild the Quarry DAG: snapshot, curation, dataset version, training, evaluation.",
        tags=["quarry"],
        entrypoint_type=EntrypointType.MODULE_PATH,
    )


def serve_pipeline(name: str = "nightly", *, cron: str | None = "0 2 * * *", interval: int | None = None,
                   params_file: str | None = None, limit: int | None = None) -> None:
    """Register the deployment with the Prefect API and run its scheduled runs in this process."""
    from prefect import serve

    serve(pipeline_deployment(name, cron=cron, interval=interval, params_file=params_file), limit=limit)

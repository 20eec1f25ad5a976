"""The flows against a real `prefect server`: runs are visible through its API, the pipeline's
deployment registers with its schedule, and a served deployment's scheduled run completes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from local_servers import free_port, wait_healthy
from pipeline_project import BIN, REPO, project_env, quarry

pytestmark = pytest.mark.slow


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture
def prefect_server(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PREFECT_HOME=str(tmp_path / "server-home"), PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_UI_ENABLED="false", PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS="5")
    log = open(tmp_path / "server.log", "w")
    process = subprocess.Popen([str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                               env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/api"
    try:
        wait_healthy(url, process)
        yield url
    finally:
        stop(process)
        log.close()


def api_client(url: str):
    from prefect.client.orchestration import SyncPrefectClient

    return SyncPrefectClient(url)


def flow_runs(url: str, flow_name: str, **filters):
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName

    with api_client(url) as client:
        return client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(any_=[flow_name])), **filters)


def test_flow_runs_visible_through_the_server_api(project, prefect_server):
    quarry(project, "flow", "snapshot", PREFECT_API_URL=prefect_server)
    quarry(project, "flow", "curate", PREFECT_API_URL=prefect_server)

    (snapshot_run,) = flow_runs(prefect_server, "snapshot")
    (curate_run,) = flow_runs(prefect_server, "curate")
    assert snapshot_run.state.is_completed() and curate_run.state.is_completed()
    assert curate_run.parameters["snapshot_dir"] == "data/snapshot"
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    with api_client(prefect_server) as client:
        tasks = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[curate_run.id])),
                                      limit=200)
    # a map is a task run per worker (one here) sharing its shards or items out, named by the stage,
    # the phase (not for the map that writes the output) and the slot; a global phase by the stage and phase
    licensed = sorted(t.name for t in tasks if t.name.startswith("licenses"))
    maps = [name for name in licensed if re.fullmatch(r"licenses(?: [a-z]+)? 1/1", name)]
    assert maps == ["licenses 1/1", "licenses decide 1/1", "licenses survey 1/1"], licensed
    assert all(t.state.is_completed() for t in tasks)

    # What the UI shows of the run: a name a person recognises, and the ledgers as artifacts.
    assert curate_run.name == "curate quarry-code"
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    with api_client(prefect_server) as client:
        artifacts = client.read_artifacts(artifact_filter=ArtifactFilter(
            flow_run_id=ArtifactFilterFlowRunId(any_=[curate_run.id])))
    by_key = {a.key: a for a in artifacts}
    ledgers = (project / "data" / "curated" / "ledgers.json")
    import json

    for stage, ledger in json.loads(ledgers.read_text()).items():
        rows = by_key[f"ledger-{stage}"].data
        rows = json.loads(rows) if isinstance(rows, str) else rows
        assert {"outcome": "kept", "documents": ledger["kept"]} in rows


SERVE = textwrap.dedent("""
    import sys
    from datetime import timedelta
    from prefect import serve
    from prefect.deployments.runner import EntrypointType
    from flows.snapshot import snapshot
    from flows.deployments import pipeline_deployment

    # The pipeline's nightly deployment registers with its cron schedule (not served here: too long).
    pipeline_deployment("nightly", params_file=sys.argv[1]).apply()
    serve(snapshot.to_deployment(name="every-few-seconds", interval=timedelta(seconds=5),
                                 parameters={"out_dir": "data/snapshot", "params_file": sys.argv[1]},
                                 entrypoint_type=EntrypointType.MODULE_PATH), limit=1)
""")


def test_scheduled_deployment_run_completes(project, prefect_server, tmp_path):
    script = tmp_path / "serve.py"
    script.write_text(SERVE)
    log = open(tmp_path / "serve.log", "w")
    # the project's flows/, as `quarry serve` puts them on the path of the runs it starts
    env = project_env(project, PREFECT_API_URL=prefect_server, PREFECT_RUNNER_POLL_FREQUENCY="2", PYTHONPATH=str(REPO))
    server = subprocess.Popen([sys.executable, str(script), str(project / "params.yaml")], cwd=project, env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName

        deadline = time.monotonic() + 480
        completed = []
        while not completed and time.monotonic() < deadline:
            assert server.poll() is None, Path(log.name).read_text()[-4000:]
            runs = flow_runs(prefect_server, "snapshot",
                             deployment_filter=DeploymentFilter(name=DeploymentFilterName(any_=["every-few-seconds"])))
            failed = [r for r in runs if r.state and (r.state.is_failed() or r.state.is_crashed())]
            assert not failed, Path(log.name).read_text()[-4000:]
            completed = [r for r in runs if r.state and r.state.is_completed()]
            time.sleep(3)
        assert completed, f"no scheduled run completed:\n{Path(log.name).read_text()[-4000:]}"
        assert completed[0].auto_scheduled
        assert (project / "data" / "snapshot" / "manifest.json").is_file()

        with api_client(prefect_server) as client:
            nightly = client.read_deployment_by_name("pipeline/nightly")
        assert [s.schedule.cron for s in nightly.schedules] == ["0 2 * * *"]
        assert nightly.parameters == {"params_file": str(project / "params.yaml")}
        assert nightly.entrypoint == "flows.pipeline.pipeline"
    finally:
        stop(server)
        log.close()

"""The curate flow on a real Dask cluster (`dask scheduler` and two `dask worker` processes on
localhost) writes the same bytes as the CLI on local processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from licenses_helpers import needs_scancode
from stage_corpus import make_corpus, tree
from test_stage_parity import run_cli

from quarry.stages.curation import CURATION

pytestmark = [pytest.mark.slow, needs_scancode]
BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]


def scheduler_address(scheduler_file: Path) -> str | None:
    try:
        return json.loads(scheduler_file.read_text())["address"]
    except (OSError, ValueError, KeyError):  # not written yet, or half-written
        return None


@pytest.fixture
def cluster(tmp_path):
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}, "PYTHONPATH": str(REPO)}
    log, address_file = open(tmp_path / "scheduler.log", "w+"), tmp_path / "scheduler.json"
    # the address comes from --scheduler-file: the log may be quiet (DASK_LOGGING__DISTRIBUTED=warning)
    processes = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                   "--no-dashboard", "--scheduler-file", str(address_file)],
                                  stdout=log, stderr=subprocess.STDOUT, env=env)]
    try:
        address, deadline = None, time.monotonic() + 120
        while address is None and time.monotonic() < deadline:
            time.sleep(0.5)
            address = scheduler_address(address_file)
        log.seek(0)
        assert address, f"the Dask scheduler did not start:\n{log.read()[-3000:]}"
        processes += [subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-dashboard"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
                      for _ in range(2)]
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=60)


FLOW = """
import sys
from flows.server import ensure_api
ensure_api()  # before Prefect is imported: this process and the workers share one server
from flows.curate import curate
from flows.runners import task_runner
curate.with_options(task_runner=task_runner(dask_address=sys.argv[1]))(*sys.argv[2:])
"""


def worker_state(dask_worker) -> tuple:
    """What QuarryWorkerSetup leaves on a worker: the forwarded home, no pinned malloc threshold, no profiler."""
    return os.environ.get("QUARRY_HOME"), os.environ.get("MALLOC_TRIM_THRESHOLD_"), \
        "profile" in dask_worker.periodic_callbacks


def test_curate_on_a_dask_cluster_writes_the_same_bytes(cluster, tmp_path):
    from licenses_helpers import license_text

    corpus = make_corpus(tmp_path / "corpus", license_text)
    run_cli(corpus, tmp_path / "cli", workers=1)
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}, "PYTHONPATH": str(REPO),
           "QUARRY_HOME": str(tmp_path)}
    try:
        done = subprocess.run([sys.executable, "-c", FLOW, cluster, str(corpus["snapshot"]), str(tmp_path / "dask"),
                               str(corpus["params"])], cwd=tmp_path, env=env, capture_output=True, text=True)
    finally:  # after the flow's process has sent its last events
        subprocess.run([str(BIN / "quarry"), "server", "stop"], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr[-5000:]
    import cloudpickle
    from distributed import Client

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module
    with Client(cluster) as client:
        assert set(client.run(worker_state).values()) == {(str(tmp_path), None, False)}
    for stage in CURATION:
        assert tree(tmp_path / "dask" / stage.folder) == tree(tmp_path / "cli" / stage.folder), stage.name
    assert len((tmp_path / ".quarry" / "prefect" / "servers.log").read_text().splitlines()) == 1

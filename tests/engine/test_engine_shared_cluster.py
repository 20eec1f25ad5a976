"""The flows of one pipeline run share one LocalCluster: a node's flow finds the workers the
previous node's flow used (their imports and loaded models with them), not a cluster of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]

TWO_FLOWS = """
import json, os
from flows.server import ensure_api
ensure_api()
from prefect import flow, task
from flows.runners import shared_cluster, task_runner

@task
def worker_pid(number: int) -> int:
    return os.getpid()

@flow
def node(count: int) -> list[int]:
    return sorted({future.result() for future in worker_pid.map(range(count))})

with shared_cluster(2, None) as address:
    first = node.with_options(task_runner=task_runner(2, address))(8)
    second = node.with_options(task_runner=task_runner(2, address))(8)
print("PIDS", json.dumps({"driver": os.getpid(), "first": first, "second": second, "address": address}))
"""


def test_the_flows_of_one_run_share_one_local_cluster(tmp_path):
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}, "QUARRY_HOME": str(tmp_path),
           "PYTHONPATH": str(REPO)}
    try:
        done = subprocess.run([sys.executable, "-c", TWO_FLOWS], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=600)
    finally:
        subprocess.run([str(BIN / "quarry"), "server", "stop"], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr[-5000:]
    found = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("PIDS "))[5:])
    assert found["address"].startswith("tcp://")
    assert found["driver"] not in found["first"] and 1 <= len(found["first"]) <= 2
    assert set(found["second"]) <= set(found["first"]) or set(found["first"]) <= set(found["second"])
    assert len(set(found["first"]) | set(found["second"])) <= 2   # two workers in all, not two per flow

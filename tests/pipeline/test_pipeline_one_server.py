"""Every `quarry flow` of a run reports to one Prefect API: the first starts the project's local
server, the next ones reuse it; PREFECT_API_URL, when set, wins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ENSURE = "from flows.server import ensure_api; print(ensure_api())"


def ensure(home: Path, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    done = subprocess.run([sys.executable, "-c", ENSURE], cwd=home, capture_output=True, text=True, check=True,
                          env={**clean, "QUARRY_HOME": str(home), "PYTHONPATH": str(REPO), **env})
    return done.stdout.strip()


def quarry(home: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "quarry", *args], cwd=home, capture_output=True, text=True, check=True,
                          env={**os.environ, "QUARRY_HOME": str(home), "PYTHONPATH": str(REPO)})
    return done.stdout.strip()


@pytest.mark.slow  # a server start: about a minute on a loaded machine
def test_runs_share_one_local_server(tmp_path):
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    try:
        first, second = ensure(tmp_path), ensure(tmp_path)
        assert first == second and first.startswith("http://127.0.0.1:")
        assert len((tmp_path / ".quarry" / "prefect" / "servers.log").read_text().splitlines()) == 1
        assert ensure(tmp_path, PREFECT_API_URL="http://example.invalid/api") == "http://example.invalid/api"
        assert first in quarry(tmp_path, "server", "status")
        assert quarry(tmp_path, "server", "stop") == "stopped the local Prefect server"
        assert quarry(tmp_path, "server", "status") == "no local Prefect server is running"
    finally:
        subprocess.run([sys.executable, "-c", "from flows.server import stop_api; stop_api()"], cwd=tmp_path,
                       env={**os.environ, "QUARRY_HOME": str(tmp_path), "PYTHONPATH": str(REPO)}, check=True)


IMPORTED_FIRST = """
import prefect
from prefect import flow
from prefect.settings import get_current_settings
from flows.server import ensure_api

url = ensure_api()

@flow
def probe():
    return get_current_settings().api.url

print(url == get_current_settings().api.url == probe())
"""


@pytest.mark.slow  # a server start
def test_a_process_that_imported_prefect_first_still_uses_the_project_server(tmp_path):
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    try:
        done = subprocess.run([sys.executable, "-c", IMPORTED_FIRST], cwd=tmp_path, capture_output=True, text=True,
                              env={**clean, "QUARRY_HOME": str(tmp_path), "PYTHONPATH": str(REPO)}, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip().splitlines()[-1] == "True"
        assert "Starting temporary server" not in done.stderr  # the flow ran against the project's server
    finally:
        subprocess.run([sys.executable, "-c", "from flows.server import stop_api; stop_api()"], cwd=tmp_path,
                       env={**os.environ, "QUARRY_HOME": str(tmp_path), "PYTHONPATH": str(REPO)}, check=True)

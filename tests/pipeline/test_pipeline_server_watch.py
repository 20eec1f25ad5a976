"""The project's Prefect server stops itself: after params pipeline.server_idle_minutes without a
flow run, and when its project folder is deleted (a real server and its supervisor)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from flows.server import gone_within, group_alive, healthy, stop_group  # noqa: E402

SLOW = pytest.mark.slow  # a server start: about a minute on a loaded machine


def start(home: Path, idle_minutes: float) -> dict:
    (home / "params.yaml").write_text(f"pipeline: {{server_idle_minutes: {idle_minutes}}}\n")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    subprocess.run([sys.executable, "-c", "from flows.server import ensure_api; ensure_api()"], cwd=home, check=True,
                   env={**clean, "QUARRY_HOME": str(home), "PYTHONPATH": str(REPO)}, timeout=300)
    return json.loads((home / ".quarry" / "prefect" / "server.json").read_text())


@SLOW
def test_server_stops_after_its_idle_time(tmp_path):
    home = tmp_path / "project"
    home.mkdir()
    server = start(home, 0.1)  # six seconds
    try:
        assert healthy(server["url"])
        assert gone_within(server["pid"], 120)
        state = home / ".quarry" / "prefect"
        assert not (state / "server.json").exists()  # the next `quarry flow` starts a new one
        deadline = time.monotonic() + 30
        while "stopped: idle" not in (state / "servers.log").read_text() and time.monotonic() < deadline:
            time.sleep(0.5)  # the supervisor logs why once the group is gone
        assert "stopped: idle for 6 s" in (state / "servers.log").read_text()
    finally:
        stop_group(server["pid"])


@SLOW
def test_server_stops_when_its_project_folder_is_gone(tmp_path):
    home = tmp_path / "project"
    home.mkdir()
    server = start(home, 30)
    try:
        assert healthy(server["url"])
        time.sleep(2)
        assert group_alive(server["pid"])  # not idle yet
        shutil.rmtree(home)
        assert gone_within(server["pid"], 60)
    finally:
        stop_group(server["pid"])


def test_supervisor_counts_a_reuse_as_activity_and_stops_a_stand_in_server(tmp_path):
    """The supervisor's rules on a stand-in process group (no API answers: no flow run is active)."""
    from flows.server_watch import watch

    state = tmp_path / "state"
    state.mkdir()
    stand_in = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        (state / "server.json").write_text(json.dumps({"url": "http://127.0.0.1:9/api", "pid": stand_in.pid}))
        started = time.monotonic()
        assert watch(stand_in.pid, "http://127.0.0.1:9/api", tmp_path, state, 1.0) == "idle for 1 s"
        assert time.monotonic() - started >= 1.0 and not group_alive(stand_in.pid)
        assert not (state / "server.json").exists()
    finally:
        stand_in.kill()
        stand_in.wait()

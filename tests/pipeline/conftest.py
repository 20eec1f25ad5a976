"""Fixtures of the orchestration tests: a tiny project folder (see pipeline_project.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from pipeline_project import SCANCODE_PYTHON, make_project  # noqa: E402


@pytest.fixture
def project(tmp_path):
    if not SCANCODE_PYTHON.exists():
        pytest.skip(f"ScanCode's interpreter {SCANCODE_PYTHON} is absent")
    return make_project(tmp_path / "project")


def _servers_started_by(nodeid: str) -> list[int]:
    """Prefect servers still running that were started while test ``nodeid`` ran (its call; a module
    fixture's server, started in setup, lives until the module's teardown)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            if b"server" not in cmdline or not any(part.endswith(b"prefect") for part in cmdline):
                continue
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(entry == f"PYTEST_CURRENT_TEST={nodeid} (call)".encode() for entry in environ):
            found.append(int(proc.name))
    return found


@pytest.fixture(autouse=True)
def no_server_left_running(request):
    """A test that runs flows through `quarry flow` / `dvc repro` stops the project's server."""
    yield
    if not sys.platform.startswith("linux"):
        return
    left = _servers_started_by(request.node.nodeid)
    for pid in left:
        import os
        import signal

        os.kill(pid, signal.SIGTERM)
    assert not left, f"{request.node.nodeid} left {len(left)} Prefect server(s) running (pids {left})"

"""One writer per project: real processes racing for a project's lock, and real stage commands
that wait for it, fail at once with --no-wait, or take it over from a SIGKILLed holder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
QUARRY = Path(sys.executable).parent / "quarry"
JSON_SOURCE = f"dir:{Path(sysconfig.get_paths()['stdlib']) / 'json'}"

HOLDER = """
import sys, time
from pathlib import Path
from quarry.infra.lock import project_lock
with project_lock("test holder"):
    print("held", flush=True)
    time.sleep(float(sys.argv[1]))
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "params.yaml").write_text("snapshot: {max_total_bytes: 100000}\n")
    env = {**os.environ, "QUARRY_HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    env.pop("QUARRY_PROJECT_LOCK", None)
    return tmp_path, env


def hold(env: dict, seconds: float) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(seconds)], env=env, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def snapshot(root: Path, env: dict, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(QUARRY), "snapshot", str(root / "data" / "snapshot"), "--source", JSON_SOURCE, *extra],
                          cwd=root, env=env, capture_output=True, text=True)


def test_a_second_writer_waits_for_the_first_and_names_it(project):
    root, env = project
    holder = hold(env, 3)
    waited = snapshot(root, env)
    released = time.time()
    assert holder.wait() == 0
    assert waited.returncode == 0, waited.stderr
    assert f"being written by pid {holder.pid} on " in waited.stderr and "`test holder`" in waited.stderr
    assert "waiting for it to finish" in waited.stderr
    assert (root / "data" / "snapshot" / "manifest.json").stat().st_mtime >= released - 3


def test_no_wait_fails_at_once_naming_the_holder(project):
    root, env = project
    holder = hold(env, 30)
    try:
        started = time.monotonic()
        refused = subprocess.run([str(QUARRY), "flow", "snapshot", "--no-wait"], cwd=root, env=env,
                                 capture_output=True, text=True)
        assert refused.returncode == 1
        assert f"being written by pid {holder.pid}" in refused.stderr and "not waiting (--no-wait)" in refused.stderr
        assert not (root / "data" / "snapshot").exists()
        assert time.monotonic() - started < 25  # it did not wait for the holder
    finally:
        holder.kill()
        holder.wait()


def test_the_lock_of_a_killed_holder_is_taken_over_with_a_warning(project):
    root, env = project
    holder = hold(env, 60)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    taken = snapshot(root, env)
    assert taken.returncode == 0, taken.stderr
    assert f"taking over the project lock from pid {holder.pid}" in taken.stderr
    assert "waiting" not in taken.stderr


def test_a_folder_outside_the_project_needs_no_lock(project, tmp_path_factory):
    root, env = project
    holder = hold(env, 30)
    try:
        elsewhere = tmp_path_factory.mktemp("elsewhere")
        done = subprocess.run([str(QUARRY), "snapshot", str(elsewhere / "snapshot"), "--source", JSON_SOURCE],
                              cwd=root, env=env, capture_output=True, text=True, timeout=25)
        assert done.returncode == 0 and "being written" not in done.stderr, done.stderr
    finally:
        holder.kill()
        holder.wait()

"""The suite's check for processes a test leaves running (tests/leftovers.py), on real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import leftovers

SLEEPER = "import time; time.sleep(120)"
ORPHAN = "import os, time\nif os.fork() == 0:\n    time.sleep(120)\n"   # its parent exits at once


def _env(**marks: str) -> dict[str, str]:
    return {**os.environ, **marks}


def test_a_process_orphaned_by_a_test_is_found_and_stopped():
    started = time.time()
    subprocess.run([sys.executable, "-c", ORPHAN], env=_env(**{leftovers.NODE_VAR: "some test"}), check=True)
    found = leftovers.left_by("some test", started, grace=0)
    try:
        assert len(found) == 1 and "time.sleep(120)" in " ".join(found[0].cmdline())
        assert leftovers.left_by("another test", started, grace=0) == []   # named by the test that started it
    finally:
        leftovers.stop(found)
    assert leftovers.left_by("some test", started, grace=0) == []


def test_a_child_still_running_is_found_and_another_sessions_is_not():
    started = time.time()
    ours = subprocess.Popen([sys.executable, "-c", SLEEPER], env=_env(**{leftovers.NODE_VAR: "some test"}))
    theirs = subprocess.Popen([sys.executable, "-c", SLEEPER],
                              env=_env(**{leftovers.NODE_VAR: "some test", leftovers.SESSION_VAR: "another run"}))
    try:
        time.sleep(0.5)  # both have exec'd (their environment is readable)
        assert [proc.pid for proc in leftovers.left_by("some test", started, grace=0)] == [ours.pid]
    finally:
        for proc in (ours, theirs):
            proc.kill()
            proc.wait()

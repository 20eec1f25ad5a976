"""Test isolation: project state (Prefect home and results, caches, MLflow store) lives in a
temporary folder created before any test module imports tasks/ or flows/; the suite fails if it
leaves any file behind in the checkout, and a test fails if it leaves a process running that
nothing would stop (tests/leftovers.py)."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

import leftovers

REPO = Path(__file__).resolve().parents[1]
_HOME = Path(tempfile.mkdtemp(prefix="quarry-test-home-"))
(_HOME / "params.yaml").write_text("pipeline: {}\n")
os.environ["QUARRY_HOME"] = str(_HOME)
os.environ.pop("MLFLOW_TRACKING_URI", None)
for key in [k for k in os.environ if k.startswith("PREFECT_")]:
    del os.environ[key]
leftovers.mark_session()


def checkout_files() -> set[str] | None:
    """Untracked files of the checkout that git does not ignore (None outside a git checkout)."""
    try:
        done = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=REPO,
                              capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return set(done.stdout.splitlines())


_BEFORE = checkout_files()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    leftovers.mark_test(item.nodeid)   # before any fixture: what they start is the test's too


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    # what a session or module fixture starts belongs to the fixture, which stops it at its own end
    if fixturedef.scope == "function":
        yield
        return
    test = os.environ.get(leftovers.NODE_VAR, "")
    leftovers.mark_test(f"{fixturedef.scope} fixture {fixturedef.argname}")
    try:
        yield
    finally:
        leftovers.mark_test(test)


@pytest.fixture(autouse=True)
def no_leftover_processes(request):
    """Fails the test that leaves a process running (after stopping it)."""
    started = time.time()
    yield
    left = leftovers.left_by(request.node.nodeid, started)
    if left:
        described = leftovers.describe(left)
        leftovers.stop(left)
        pytest.fail(f"the test left {len(left)} process(es) running: {described}", pytrace=False)


def pytest_sessionfinish(session, exitstatus):
    # the shared services (the ScanCode server) and anything else of the session still running
    leftovers.stop(leftovers.session_processes())
    shutil.rmtree(_HOME, ignore_errors=True)
    after = checkout_files()
    if _BEFORE is None or after is None:
        return
    left = sorted(after - _BEFORE)
    if left:
        message = f"the tests left {len(left)} file(s) in the checkout: {', '.join(left[:10])}"
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line(message, red=True) if reporter else print(message)
        session.exitstatus = 1


def pytest_unconfigure(config):
    # Prefect's temporary API server stops at interpreter exit and says so through a console
    # handler whose stream pytest has closed by then; that one line would end every run as a
    # "--- Logging error ---" traceback. Nothing is logged after this point that a test reads.
    logging.raiseExceptions = False

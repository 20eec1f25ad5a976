"""Test isolation: project state (Prefect home and results, caches, MLflow store) lives in a
temporary folder created before any test module imports tasks/ or flows/, and the suite fails if
it leaves any file behind in the checkout."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_HOME = Path(tempfile.mkdtemp(prefix="quarry-test-home-"))
(_HOME / "params.yaml").write_text("pipeline: {}\n")
os.environ["QUARRY_HOME"] = str(_HOME)
os.environ.pop("MLFLOW_TRACKING_URI", None)
for key in [k for k in os.environ if k.startswith("PREFECT_")]:
    del os.environ[key]


def checkout_files() -> set[str] | None:
    """Untracked files of the checkout that git does not ignore (None outside a git checkout)."""
    try:
        done = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=REPO,
                              capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return set(done.stdout.splitlines())


_BEFORE = checkout_files()


def pytest_sessionfinish(session, exitstatus):
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

"""Test isolation: project state (Prefect home and results, caches, MLflow store) lives in a
temporary folder created before any test module imports tasks/ or flows/."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

_HOME = Path(tempfile.mkdtemp(prefix="quarry-test-home-"))
(_HOME / "params.yaml").write_text("pipeline: {}\n")
os.environ["QUARRY_HOME"] = str(_HOME)
os.environ.pop("MLFLOW_TRACKING_URI", None)
for key in [k for k in os.environ if k.startswith("PREFECT_")]:
    del os.environ[key]


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_HOME, ignore_errors=True)

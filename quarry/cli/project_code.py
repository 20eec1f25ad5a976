"""The project's orchestration code: its flows/ and tasks/ (Prefect flows and the engine's Prefect
executor) live in the project beside dvc.yaml, not in the installed library, which claims no
top-level module but ``quarry``. The commands that run flows load them from the project root, or
from the checkout the library was installed from (an editable install)."""

from __future__ import annotations

import importlib.util
import os
import sys

from quarry.paths import project_code_root


def load_project_code() -> None:
    """Make ``flows`` and ``tasks`` importable, or fail naming where they were looked for."""
    if importlib.util.find_spec("flows") and importlib.util.find_spec("tasks"):
        return
    folder = project_code_root()
    sys.path.insert(0, str(folder))
    # and for the processes the flows start (a deployment's runs, Dask workers, ScanCode's)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))

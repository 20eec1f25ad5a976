"""The project's orchestration code: its flows/ and tasks/ (Prefect flows and the engine's Prefect
executor) live in the project beside dvc.yaml, not in the installed library, which claims no
top-level module but ``quarry``. The commands that run flows load them from the project root, or
from the checkout the library was installed from (an editable install)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import quarry
from quarry.errors import QuarryError
from quarry.paths import project_root


def load_project_code() -> None:
    """Make ``flows`` and ``tasks`` importable, or fail naming where they were looked for."""
    if importlib.util.find_spec("flows") and importlib.util.find_spec("tasks"):
        return
    places = [project_root(), Path(quarry.__file__).resolve().parents[1]]
    for folder in places:
        if (folder / "flows" / "__init__.py").is_file() and (folder / "tasks" / "__init__.py").is_file():
            sys.path.insert(0, str(folder))
            # and for the processes the flows start (a deployment's runs, Dask workers, ScanCode's)
            os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
            return
    raise QuarryError(f"no flows/ and tasks/ in {places[0]} (nor in {places[1]}): run this command in a Quarry "
                      "project, the folder with its dvc.yaml, flows/ and tasks/")

"""Where the project lives: the folder holding params.yaml (or QUARRY_HOME)."""

from __future__ import annotations

import os
from pathlib import Path


def project_root(start: str | os.PathLike | None = None) -> Path:
    """QUARRY_HOME if set, else the nearest folder at or above ``start`` (cwd) with params.yaml."""
    if env := os.environ.get("QUARRY_HOME"):
        return Path(env).resolve()
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "params.yaml").is_file() or (folder / "dvc.yaml").is_file():
            return folder
    return here


def project_code_root() -> Path:
    """The folder holding the project's orchestration code (flows/ and tasks/, beside dvc.yaml):
    the project root, else the checkout the library was installed from (an editable install)."""
    from quarry.errors import QuarryError

    places = [project_root(), Path(__file__).resolve().parents[1]]
    for folder in places:
        if (folder / "flows" / "__init__.py").is_file() and (folder / "tasks" / "__init__.py").is_file():
            return folder
    raise QuarryError(f"no flows/ and tasks/ in {places[0]} (nor in {places[1]}): run this command in a Quarry "
                      "project, the folder with its dvc.yaml, flows/ and tasks/")


def state_dir(root: Path | None = None) -> Path:
    """Project-local state (Prefect home and results, caches): never the user's home."""
    return (root or project_root()) / ".quarry"

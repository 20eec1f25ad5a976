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

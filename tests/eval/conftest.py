"""A project built once per session through the real stages (see eval_helpers.build_project).

The tiny models here run fastest on one intra-op thread; more threads only contend for the
machine's few cores, so each test of this folder runs with one and restores the setting after.
"""

from __future__ import annotations

import contextlib

import pytest
import torch


@contextlib.contextmanager
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@pytest.fixture(autouse=True)
def _single_thread():
    with one_thread():
        yield


@pytest.fixture(scope="session")
def project(tmp_path_factory):
    from eval_helpers import build_project

    root = tmp_path_factory.mktemp("eval-project")
    with pytest.MonkeyPatch.context() as patch, one_thread():
        patch.setenv("QUARRY_HOME", str(root))
        return build_project(root)


@pytest.fixture
def in_project(project, monkeypatch):
    """The project as the current Quarry project (where data/snapshot is looked up)."""
    monkeypatch.setenv("QUARRY_HOME", str(project["root"]))
    return project

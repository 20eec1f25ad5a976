"""Snapshot -> curate -> assemble on the tiny project: the same dataset version hash with the
default runner, on a Dask LocalCluster of 2 processes, and after a curate run killed mid-way."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from pipeline_project import BIN, SCANCODE_PYTHON, dataset_version, make_project, project_env, quarry, stop_server

from quarry.hashing import tree_hash

pytestmark = pytest.mark.slow


def curate_to_dataset(root: Path, *flags: str) -> str:
    for stage in ("snapshot", "curate", "assemble"):
        quarry(root, "flow", stage, *flags)
    return dataset_version(root)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The tiny project built with the default (single process) runner."""
    if not SCANCODE_PYTHON.exists():
        pytest.skip(f"ScanCode's interpreter {SCANCODE_PYTHON} is absent")
    root = make_project(tmp_path_factory.mktemp("reference") / "project")
    try:
        yield root, curate_to_dataset(root, "--workers", "1")
    finally:
        stop_server(root)  # the project's Prefect server, which its flows started


def test_dask_runner_gives_the_same_dataset(reference, tmp_path, request):
    ref_root, ref_version = reference
    root = make_project(tmp_path / "project")
    request.addfinalizer(lambda: stop_server(root))
    assert curate_to_dataset(root, "--workers", "2") == ref_version
    for folder in ("data/snapshot/shards", "data/curated/decontaminated", "data/datasets/default/train",
                   "data/datasets/default/test", "data/datasets/default/rejects"):
        assert tree_hash(root / folder) == tree_hash(ref_root / folder), folder
    # manifest.json and the data card also name the code's git commit, which is not the data


def task_runs(log: str, prefix: str, state: str) -> list[str]:
    """Task runs of a stage that ended in ``state``: one per batch of consecutive shards, named by
    its first shard (and "(+N)" for the N that follow)."""
    return re.findall(rf"Task run '({re.escape(prefix)} part-\d+\.jsonl\.zst(?: \(\+\d+\))?)' - "
                      rf"Finished in state {state}", log)


def test_killed_curate_run_resumes_from_finished_shards(reference, tmp_path, request):
    _, ref_version = reference
    root = make_project(tmp_path / "project")
    request.addfinalizer(lambda: stop_server(root))
    quarry(root, "flow", "snapshot")
    total = len(list((root / "data" / "snapshot" / "shards").glob("part-*.jsonl.zst")))
    assert total >= 8

    killed = tmp_path / "killed.log"
    with open(killed, "w") as log:
        run = subprocess.Popen([str(BIN / "quarry"), "flow", "curate"], cwd=root, env=project_env(root),
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 600
        finished: list[str] = []
        while run.poll() is None and time.monotonic() < deadline:
            finished = task_runs(killed.read_text(), "licenses", "Completed")
            if finished:
                break
            time.sleep(0.05)
        assert run.poll() is None, "curate ended before it could be killed"
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    assert finished, "no licenses task finished before the deadline"
    assert not (root / "data" / "curated" / "ledgers.json").exists()

    rerun = quarry(root, "flow", "curate")
    log = rerun.stdout + rerun.stderr
    # (Any edit of the quarry package between the two runs changes every cache key, by design.)
    cached = task_runs(log, "licenses", "Cached")
    assert set(finished) <= set(cached), f"finished shards were computed again:\n{log[-3000:]}"
    assert task_runs(log, "licenses", "Completed"), "the shards the killed run had not finished run now"
    quarry(root, "flow", "assemble")
    assert dataset_version(root) == ref_version

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

from quarry.infra.hashing import tree_hash

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


def reused(log: str, prefix: str) -> int:
    """Shards of a stage's task runs that an earlier run's resume records answered (tasks.executor
    logs "<stage> <phase> i/n: k of m shards finished by an earlier run")."""
    return sum(int(k) for k in re.findall(rf"{re.escape(prefix)}[^:']* \d+/\d+: (\d+) of \d+ shards finished by an "
                                          rf"earlier run", log))


def test_killed_curate_run_resumes_from_finished_shards(reference, tmp_path, request):
    _, ref_version = reference
    root = make_project(tmp_path / "project")
    request.addfinalizer(lambda: stop_server(root))
    quarry(root, "flow", "snapshot")
    total = len(list((root / "data" / "snapshot" / "shards").glob("part-*.jsonl.zst")))
    assert total >= 8

    records = root / "data" / "curated" / ".licensed.work" / "survey"  # a record per shard the survey finished
    killed = tmp_path / "killed.log"
    with open(killed, "w") as log:
        run = subprocess.Popen([str(BIN / "quarry"), "flow", "curate"], cwd=root, env=project_env(root),
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 600
        finished = 0
        while run.poll() is None and time.monotonic() < deadline:
            finished = len(list(records.glob("*.done"))) if records.is_dir() else 0
            if finished:
                break
            time.sleep(0.05)
        assert run.poll() is None, "curate ended before it could be killed"
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    assert finished, "no shard's licence survey finished before the deadline"
    assert not (root / "data" / "curated" / "ledgers.json").exists()

    rerun = quarry(root, "flow", "curate")
    log = rerun.stdout + rerun.stderr
    # (Any edit of the quarry package between the two runs changes every record's key, by design.)
    assert reused(log, "licenses survey") >= finished, f"finished shards were computed again:\n{log[-3000:]}"
    quarry(root, "flow", "assemble")
    assert dataset_version(root) == ref_version

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
from pipeline_project import BIN, SCANCODE_PYTHON, dataset_version, make_project, project_env, quarry

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
    return root, curate_to_dataset(root, "--workers", "1")


def test_dask_runner_gives_the_same_dataset(reference, tmp_path):
    ref_root, ref_version = reference
    root = make_project(tmp_path / "project")
    assert curate_to_dataset(root, "--workers", "2") == ref_version
    for folder in ("data/snapshot/shards", "data/curated/decontaminated", "data/datasets/default/train",
                   "data/datasets/default/test", "data/datasets/default/rejects"):
        assert tree_hash(root / folder) == tree_hash(ref_root / folder), folder
    # manifest.json and the data card also name the code's git commit, which is not the data


def cached_task_runs(log: str, prefix: str) -> set[str]:
    return set(re.findall(rf"Task run '({re.escape(prefix)} part-\d+\.jsonl\.zst)' - Finished in state Cached", log))


def test_killed_curate_run_resumes_from_finished_shards(reference, tmp_path):
    _, ref_version = reference
    root = make_project(tmp_path / "project")
    quarry(root, "flow", "snapshot")
    total = len(list((root / "data" / "snapshot" / "shards").glob("part-*.jsonl.zst")))
    assert total >= 8

    licensed = root / "data" / "curated" / ".licensed.staging"  # shards wait there until the stage ends
    with open(tmp_path / "killed.log", "w") as log:
        run = subprocess.Popen([str(BIN / "quarry"), "flow", "curate"], cwd=root, env=project_env(root),
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 600
        done = 0
        while run.poll() is None and time.monotonic() < deadline:
            done = len(list(licensed.glob("part-*.jsonl.zst")))
            if done >= 3:
                break
            time.sleep(0.1)
        assert run.poll() is None, "curate ended before it could be killed"
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    assert 3 <= done < total
    assert not (root / "data" / "curated" / "ledgers.json").exists()

    rerun = quarry(root, "flow", "curate")
    log = rerun.stdout + rerun.stderr
    cached = cached_task_runs(log, "licenses")
    # (Any edit of the quarry package between the two runs changes every cache key, by design.)
    assert len(cached) >= 2, f"finished shards were computed again:\n{log[-3000:]}"
    assert len(cached) < total
    quarry(root, "flow", "assemble")
    assert dataset_version(root) == ref_version

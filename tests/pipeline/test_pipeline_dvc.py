"""`dvc repro` of the project's dvc.yaml in a temporary git repository with small params: every
stage runs, a second repro is a no-op, a training param change reruns only what is downstream."""

from __future__ import annotations

import re

import pytest
import yaml
from pipeline_project import BIN, REPO, SCANCODE_PYTHON, STAGES, dvc_repo, ran_stages, run, stop_server


def test_dvc_parses_the_dag(tmp_path):
    """Fast: dvc reads dvc.yaml with the params' folders and chains the stages in order."""
    root = dvc_repo(tmp_path / "project")
    output = run(root, str(BIN / "dvc"), "dag", "--md")
    names = dict(re.findall(r"(node\d+)\[\"([\w-]+)\"\]", output))
    named = {(names[a], names[b]) for a, b in re.findall(r"(node\d+)-->(node\d+)", output)}
    for upstream, downstream in zip(STAGES, STAGES[1:]):
        assert (upstream, downstream) in named, (upstream, downstream, output)
    assert ("curate", "train") not in named  # train reads the dataset version, not curated shards


def test_dvc_yaml_follows_the_dag_order():
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    assert list(stages) == STAGES  # the code each stage runs: tests/config/test_dvc_deps.py


@pytest.mark.slow
def test_dvc_repro_runs_every_stage_then_nothing_then_only_training(tmp_path, request):
    if not SCANCODE_PYTHON.exists():
        pytest.skip(f"ScanCode's interpreter {SCANCODE_PYTHON} is absent")
    root = dvc_repo(tmp_path / "project")
    dvc = str(BIN / "dvc")
    request.addfinalizer(lambda: stop_server(root))

    first = run(root, dvc, "repro")
    assert ran_stages(first) == STAGES
    # every stage's flow (and its Dask workers) reported to one Prefect server, started once
    assert len((root / ".quarry" / "prefect" / "servers.log").read_text().splitlines()) == 1
    lock = yaml.safe_load((root / "dvc.lock").read_text())
    assert sorted(lock["stages"]) == sorted(STAGES)
    assert all(out.get("md5") for stage in lock["stages"].values() for out in stage.get("outs", []))
    assert (root / "reports" / "metrics.json").is_file()
    run(root, "git", "add", "-A")
    run(root, "git", "commit", "-q", "-m", "first build")

    second = run(root, dvc, "repro")
    assert ran_stages(second) == []
    assert "Data and pipelines are up to date" in second

    experiment = run(root, dvc, "exp", "run", "-S", "train.overrides.max_steps=6")
    assert ran_stages(experiment) == ["train", "finetune", "evaluate"]
    params = yaml.safe_load((root / "params.yaml").read_text())
    assert params["train"]["overrides"]["max_steps"] == 6
    assert yaml.safe_load((root / "dvc.lock").read_text())["stages"]["train"]["params"]["params.yaml"][
        "train"]["overrides"]["max_steps"] == 6

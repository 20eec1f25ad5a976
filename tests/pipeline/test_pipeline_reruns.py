"""What DVC does to a built project: it deletes a stage's outputs before it runs the stage again,
so every re-run must rebuild them, not trust a cache whose files are gone. Each case runs exactly
the stages it should, succeeds, and leaves a project on which a second `dvc repro` is a no-op.

The default suite holds the curate case on a project built up to assembly; the slow tests build
the whole DAG once and force every stage, try a parameter of each stage, and add an opt-out."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
import pytest
from pipeline_project import (BIN, SCANCODE_PYTHON, STAGES, dataset_version, dvc_repo, quarry, ran_stages, run,
                              stop_server)

DVC = str(BIN / "dvc")
UP_TO_DATE = "Data and pipelines are up to date"


def locked_outs(root: Path) -> dict[str, list[str]]:
    """Stage -> the md5 of each of its outputs, from dvc.lock."""
    stages = yaml.safe_load((root / "dvc.lock").read_text())["stages"]
    return {name: [out["md5"] for out in stage.get("outs", [])] for name, stage in stages.items()}


@pytest.fixture
def needs_scancode():
    if not SCANCODE_PYTHON.exists():
        pytest.skip(f"ScanCode's interpreter {SCANCODE_PYTHON} is absent")


def test_forced_curate_and_a_deleted_curated_folder_rebuild_the_same_data(needs_scancode, tmp_path, request):
    root = dvc_repo(tmp_path / "project", files_per_repo=3)
    request.addfinalizer(lambda: stop_server(root))
    assert ran_stages(run(root, DVC, "repro", "assemble")) == ["snapshot", "curate", "assemble"]
    built, version = locked_outs(root), dataset_version(root)

    # DVC deletes data/curated, then `quarry flow curate` finds every task cached.
    assert ran_stages(run(root, DVC, "repro", "-f", "-s", "curate")) == ["curate"]
    assert locked_outs(root) == built  # the same bytes
    assert UP_TO_DATE in run(root, DVC, "repro", "assemble")

    shutil.rmtree(root / "data" / "curated")
    quarry(root, "flow", "curate")
    assert UP_TO_DATE in run(root, DVC, "repro", "assemble")  # the rebuilt folder is the locked one
    assert dataset_version(root) == version


# ---------------------------------------------------------------------------------------------
# Slow: the whole DAG built once, then each change tried on it and undone


def stage_graph(root: Path) -> dict[str, dict]:
    """Stage -> its param sections and the stages whose outputs it depends on (from dvc.yaml)."""
    stages = yaml.safe_load((root / "dvc.yaml").read_text())["stages"]
    producer = {next(iter(out)) if isinstance(out, dict) else out: name
                for name, stage in stages.items() for out in stage.get("outs", [])}
    return {name: {"params": [str(p) for p in stage.get("params", [])],
                   "upstream": [producer[dep] for dep in stage.get("deps", []) if dep in producer]}
            for name, stage in stages.items()}


def expected_runs(graph: dict, before: dict, after: dict, key: str) -> list[str]:
    """The stages DVC must run for a change of param ``key``: those reading it, and those whose
    upstream outputs changed (DVC's order: upstream first)."""
    section = key.split(".")
    reads = {name for name, stage in graph.items()
             if any(section[:len(p.split("."))] == p.split(".") for p in stage["params"])}
    return [name for name in STAGES
            if name in reads or any(before[u] != after[u] for u in graph[name]["upstream"])]


def dataset_ids(root: Path) -> dict[str, str]:
    """Document id -> origin over every split of the dataset version."""
    from quarry.records import read_folder

    dataset = root / "data" / "datasets" / "default"
    return {r["meta"]["id"]: r["meta"]["origin"] for split in ("train", "validation", "test")
            if (dataset / split).is_dir() for r in read_folder(dataset / split)}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if not SCANCODE_PYTHON.exists():
        pytest.skip(f"ScanCode's interpreter {SCANCODE_PYTHON} is absent")
    root = dvc_repo(tmp_path_factory.mktemp("reruns") / "project", files_per_repo=4)
    assert ran_stages(run(root, DVC, "repro")) == STAGES
    run(root, "git", "add", "-A")
    run(root, "git", "commit", "-q", "-m", "built")
    yield root
    stop_server(root)


def restore(root: Path) -> None:
    """Back to the committed build: params, registry and dvc.lock from git, outputs from DVC's cache."""
    run(root, "git", "checkout", "--", ".")
    run(root, DVC, "checkout", "-f")
    assert UP_TO_DATE in run(root, DVC, "status")


@pytest.mark.slow
def test_forcing_each_stage_runs_it_alone_and_settles(built):
    root, version = built, dataset_version(built)
    for stage in STAGES:
        before = locked_outs(root)
        assert ran_stages(run(root, DVC, "repro", "-f", "-s", stage)) == [stage], stage
        after = locked_outs(root)
        if stage in ("snapshot", "curate", "assemble", "tokenizer"):
            assert after[stage] == before[stage], stage  # the data stages rebuild the same bytes
        downstream = ran_stages(run(root, DVC, "repro"))
        assert set(downstream) <= set(STAGES[STAGES.index(stage) + 1:]), (stage, downstream)
        assert UP_TO_DATE in run(root, DVC, "repro"), stage
        assert dataset_version(root) == version, stage
    restore(root)


# One param of each stage, each chosen to change what that stage builds on the tiny project.
EXPERIMENTS = [
    ("snapshot.max_document_bytes=3000", True),    # the long licence texts (prose: the document cap) are refused
    ("licenses.policy.deny_spdx=[MIT]", True),      # repo-mit leaves
    ("pii.types=[KEY]", True),                      # the e-mail address stays
    ("dedup.near=false", True),                     # the near copy stays
    ("decontaminate.ngram=5", None),                # may or may not find overlaps
    ("assemble.shuffle=false", True),
    ("tokenizer.vocab_size=600", False),
    ("train.overrides.max_steps=6", False),
]


@pytest.mark.slow
@pytest.mark.parametrize("change, new_dataset", EXPERIMENTS, ids=[c.split("=")[0] for c, _ in EXPERIMENTS])
def test_an_experiment_on_one_param_reruns_what_reads_it(built, change, new_dataset):
    root, version = built, dataset_version(built)
    graph, before = stage_graph(root), locked_outs(root)
    try:
        ran = ran_stages(run(root, DVC, "exp", "run", "-S", change))
        assert ran and ran == expected_runs(graph, before, locked_outs(root), change.split("=")[0]), ran
        assert UP_TO_DATE in run(root, DVC, "repro")
        if new_dataset is not None:
            assert (dataset_version(root) != version) == new_dataset
    finally:
        restore(root)


@pytest.mark.slow
def test_an_opt_out_removes_exactly_that_origins_documents(built):
    root = built
    version, before = dataset_version(root), dataset_ids(root)
    origin = "src/repo-isc"  # no planted duplicates: no other copy takes its documents' place
    assert origin in before.values()
    try:
        quarry(root, "optout", "add", origin, "--reason", "request 1")
        ran = ran_stages(run(root, DVC, "repro"))
        assert ran[:2] == ["curate", "assemble"], ran
        after = dataset_ids(root)
        assert after == {i: o for i, o in before.items() if o != origin}
        assert dataset_version(root) != version
        assert UP_TO_DATE in run(root, DVC, "repro")
    finally:
        restore(root)


@pytest.mark.slow
def test_a_stage_folder_deleted_by_hand_is_rebuilt_by_its_flow(built):
    root, version = built, dataset_version(built)
    stages = yaml.safe_load((root / "dvc.lock").read_text())["stages"]
    # A persistent output (the release registry) is history, not a product of the stage's inputs:
    # deleted, its releases come back registered anew.
    persistent = {name for stage in yaml.safe_load((root / "dvc.yaml").read_text())["stages"].values()
                  for out in stage.get("outs", []) if isinstance(out, dict)
                  for name, options in out.items() if (options or {}).get("persist")}
    assert persistent == {"data/releases"}
    for stage in STAGES:
        for out in stages[stage]["outs"]:
            if out["path"] in persistent:
                continue
            path = root / out["path"]
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        quarry(root, "flow", stage)
        rerun = ran_stages(run(root, DVC, "repro"))
        if stage in ("snapshot", "curate", "assemble", "tokenizer"):
            assert rerun == [], (stage, rerun)  # the flow rebuilt the locked bytes
        assert set(rerun) <= set(STAGES[STAGES.index(stage):]), (stage, rerun)
        assert dataset_version(root) == version, stage
    restore(root)

"""`quarry optout impact ORIGIN --json` in a tiny project: the registered version holding the origin,
the training run's step checkpoints, the MLflow runs that trained and evaluated on it, and commands
that, run as printed, give a version without the origin."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from quarry import datasets as qd
from quarry import tracking
from quarry.cli import main
from quarry.recipes.registry import build_recipe
from quarry.records import write_records
from quarry.stages.assemble import assemble

from training_helpers import make_docs, tiny_overrides

REPO = Path(__file__).resolve().parents[2]
ORIGIN = "https://example.org/repo-1"


def project_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "PREFECT_"))}
    return {**env, "QUARRY_HOME": str(root), "PYTHONPATH": str(REPO)}


def run_printed(root: Path, command: str) -> None:
    """A printed `quarry ...` command, run against this checkout's code."""
    args = shlex.split(command)
    assert args[0] == "quarry", command
    done = subprocess.run([sys.executable, "-m", "quarry", *args[1:]], cwd=root, env=project_env(root),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"


def impact(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main(["optout", "impact", ORIGIN, "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_optout_impact_lists_versions_checkpoints_runs_and_commands_that_rebuild(tmp_path, monkeypatch, capsys):
    root = tmp_path / "project"
    (root / "data" / "optout").mkdir(parents=True)
    (root / "params.yaml").write_text("pipeline: {}\n")
    (root / "data" / "optout" / "registry.tsv").write_text("# kind\tvalue\tdate\treason\n")
    monkeypatch.setenv("QUARRY_HOME", str(root))
    monkeypatch.setenv("MLFLOW_TRACKING_URI", tracking.default_tracking_uri(root))  # the project's own store
    monkeypatch.chdir(root)
    raw = tmp_path / "curated"
    write_records(raw / "part-00000.jsonl.zst", make_docs(120))
    dataset = root / "data" / "datasets" / "code"
    manifest = assemble(raw, dataset, {"assemble": {"name": "code", "splits": {"train": 0.9, "validation": 0.1}}})

    run = root / "models" / "pretrain-code"
    recipe = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(
        dataset, run, max_steps=5, save_every_n_steps=2, keep_last_n_checkpoints=5,
        **{"mlflow.enabled": "true", "mlflow.experiment": "training"}))
    recipe.run()
    with tracking.start_run("eval-code", experiment="evaluation", dataset_hash=manifest["version"],
                            tags={"quarry.evaluated_run_id": recipe.mlflow_run_id}, stage="evaluate") as evaluation:
        eval_id = evaluation.info.run_id
    with tracking.start_run("unrelated", experiment="training", dataset_hash="0" * 64):
        pass

    found = impact(capsys)
    assert [(d["version"], d["path"]) for d in found["datasets"]] == [(manifest["version"], str(dataset))]
    (trained,) = found["runs"]
    assert trained["run"] == str(run) and trained["mlflow_run_id"] == recipe.mlflow_run_id
    assert [(c["step"], c["final"]) for c in trained["checkpoints"]] == [(2, False), (4, False), (5, True)]
    assert all(c["documents"] > 0 for c in trained["checkpoints"])
    roles = {r["run_id"]: r["roles"] for r in found["mlflow_runs"]}
    assert roles == {recipe.mlflow_run_id: ["trained"], eval_id: ["evaluated"]}
    assert found["opted_out"] is None
    commands = [c["command"] for c in found["commands"] if c["command"]]
    assert commands[0].startswith(f"quarry optout add {ORIGIN} ") and commands[1].startswith("quarry optout reapply")
    assert any(c["command"] is None and "retrain models/pretrain-code" in c["does"] for c in found["commands"])

    # The table names every checkpoint by run and step, whatever the terminal's width.
    assert main(["whois", ORIGIN]) == 0
    printed = capsys.readouterr().out
    assert "models/pretrain-code" in printed and "step 2" in printed and "final (step 5)" in printed
    assert recipe.mlflow_run_id in printed and "quarry optout reapply" in printed

    for command in commands:
        run_printed(root, command)
    new = dataset.with_name("code-without-example-org-repo-1")
    assert qd.load_manifest(new)["parent"] == manifest["version"]
    assert not any(r["meta"]["origin"] == ORIGIN for r in qd.open_dataset(new))
    assert any(r["meta"]["origin"] == ORIGIN for r in qd.open_dataset(dataset))  # the old version is untouched

    after = impact(capsys)
    assert after["opted_out"]["value"] == ORIGIN
    assert after["versions_checked"] == 2 and [d["version"] for d in after["datasets"]] == [manifest["version"]]
    assert not any(c["command"] and c["command"].startswith("quarry optout add") for c in after["commands"])

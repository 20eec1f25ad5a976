"""Intermediate step checkpoints carry their lineage: `quarry lineage` lists a run's checkpoints
and `quarry whois` finds the step checkpoints trained on an origin, not only the final one."""

from __future__ import annotations

from quarry.cli import main
from quarry.datasets.lineage import checkpoints_with_origin, lineage_chain
from quarry.records import read_json
from quarry.recipes.registry import build_recipe

from training_helpers import tiny_overrides


def test_step_checkpoints_are_in_lineage_and_whois(dataset_dir, tmp_path, capsys):
    run = tmp_path / "models" / "pretrain"
    build_recipe("pretrain", "tiny_pretrain", tiny_overrides(
        dataset_dir, run, max_steps=5, save_every_n_steps=2, keep_last_n_checkpoints=5)).run()
    assert read_json(run / "step-2" / "lineage.json")["steps"] == 2

    chain = lineage_chain(run / "final")
    listed = [(c["step"], c["final"]) for c in chain["run_checkpoints"]]
    assert listed == [(2, False), (4, False), (5, True)]
    assert len({c["hash"] for c in chain["run_checkpoints"]}) == 3
    step = lineage_chain(run / "step-4")
    assert step["checkpoint"]["hash"] == chain["run_checkpoints"][1]["hash"]
    assert step["dataset"]["version"] == chain["dataset"]["version"] and step["dataset"]["resolved"]

    found = checkpoints_with_origin("https://example.org/repo-1", tmp_path / "models")
    assert sorted((f["checkpoint"], f["step"]) for f in found) == [
        (str(run / "final"), 5), (str(run / "step-2"), 2), (str(run / "step-4"), 4)]
    assert checkpoints_with_origin("https://example.org/other", tmp_path / "models") == []

    assert main(["lineage", str(run / "final")]) == 0
    printed = capsys.readouterr().out
    assert "run checkpoints" in printed and "step-2" in printed and "step-4" in printed
    assert main(["whois", "https://example.org/repo-1", "--models", str(tmp_path / "models")]) == 0
    printed = capsys.readouterr().out
    assert "step 2" in printed and "step 4" in printed and "final (step 5)" in printed

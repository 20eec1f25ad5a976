"""Lineage of a checkpoint built through the real stages, trace of files, and checkpoint BPB."""

from __future__ import annotations

import json

import pytest

from quarry.cli import main
from quarry.eval.bpb import score_records
from quarry.eval.reference import reference_bpb
from quarry.eval.scoring import evaluation_records, load_for_eval
from quarry.stages.evaluate import run_evaluate, score_checkpoint
from quarry.datasets.lineage import checkpoints_with_origin, lineage_chain, openlineage_events, trace
from quarry.records import read_json

NO_MLFLOW = {"evaluate": {"mlflow": False, "batch_size": 4}}


def test_trained_checkpoint_has_lower_bpb_than_its_initialisation(project):
    init = score_checkpoint(project["init"], project["dataset"], NO_MLFLOW)
    final = score_checkpoint(project["final"], project["dataset"], NO_MLFLOW)
    assert final["aggregate"]["docs"] == init["aggregate"]["docs"] > 0
    assert final["aggregate"]["bpb"] < init["aggregate"]["bpb"]
    assert final["bpb"] == final["aggregate"]["bpb"]
    assert final["dataset"]["version"] == project["manifest"]["version"]
    test_docs = project["manifest"]["composition"]["by_split"]["test"]["documents"]
    assert final["aggregate"]["docs"] == test_docs


def test_checkpoint_bpb_matches_the_float64_reference_per_subset(project):
    model, tokenizer = load_for_eval(project["final"])
    records = list(evaluation_records(project["dataset"], "test"))
    fast = score_records(model, tokenizer, records, context_len=32, stride=12, batch_size=5)
    docs = [(r["meta"]["pile_set_name"], r["text"]) for r in records]
    slow = reference_bpb(model, tokenizer, docs, context_len=32, stride=12)
    assert sorted(fast.subsets) == ["code-python", "prose"]
    for name, score in fast.subsets.items():
        assert score.bpb == pytest.approx(slow[name]["bpb"], abs=1e-4)
    assert fast.aggregate.bpb == pytest.approx(slow["__all__"]["bpb"], abs=1e-4)


def test_lineage_names_the_dataset_hash_snapshot_and_reaches_the_source(in_project):
    project = in_project
    chain = lineage_chain(project["final"])
    assert chain["dataset"]["version"] == project["manifest"]["version"]
    assert chain["dataset"]["resolved"] is True
    assert chain["snapshot"]["snapshot_id"] == project["snapshot"]["snapshot_id"] == project["manifest"]["snapshot_id"]
    assert chain["snapshot"]["resolved"] is True
    assert [(o["origin"], o["revision"]) for o in chain["origins"]] == [(str(project["root"] / "repo"),
                                                                        project["revision"])]
    stages = {s["stage"]: s for s in chain["stages"]}
    assert list(stages) == ["snapshot", "filters", "assemble"]  # pipeline order
    assert stages["filters"]["dropped"] == {"too short": 1}
    assert chain["recipe"]["config_hash"] == project["lineage"]["config_hash"]
    assert chain["tokenizer"]["verified"] is True
    assert chain["tokenizer"]["dataset_hash"] == project["manifest"]["version"]
    assert chain["dataset"]["code_version"] and chain["checkpoint"]["code_version"]
    # the chain is stable, and its OpenLineage events link job outputs to the next job's inputs
    assert lineage_chain(project["final"]) == chain
    events = openlineage_events(chain)
    assert [e["job"]["name"] for e in events] == ["snapshot", "assemble", "train.pretrain"]
    assert events[0]["outputs"][0]["name"] == events[1]["inputs"][0]["name"]
    assert events[1]["outputs"][0]["name"] == events[2]["inputs"][0]["name"]
    assert events[1]["outputs"][0]["facets"]["version"]["datasetVersion"] == project["manifest"]["version"]
    assert events == openlineage_events(chain)


def test_trace_finds_a_training_file_with_its_license_and_explains_the_others(in_project):
    project = in_project
    train_file = next(r for r in evaluation_records(project["dataset"], "train"))
    answer = trace(project["final"], train_file["meta"]["id"])
    assert answer["in_training"] is True
    assert answer["license"]["spdx"] == "MIT"
    assert answer["revision"] == project["revision"]
    by_path = trace(project["final"], train_file["meta"]["path"])
    assert by_path["id"] == train_file["meta"]["id"] and by_path["in_training"]

    test_file = next(r for r in evaluation_records(project["dataset"], "test"))
    held_out = trace(project["final"], test_file["meta"]["path"])
    assert held_out["in_training"] is False and held_out["split"] == "test"

    dropped = trace(project["final"], "src/tiny.py")
    assert dropped["in_training"] is False
    assert dropped["reason"] == "too short" and dropped["stage"] == "filters"
    # found in the snapshot's file lists: its id, origin and the snapshot that holds it
    assert dropped["path"] == "src/tiny.py" and dropped["id"].startswith("swh:1:cnt:")
    assert dropped["revision"] == project["revision"] and dropped["snapshot_id"]
    assert trace(project["final"], "src/never_existed.py")["answer"].startswith("no: not in the snapshot")


def test_checkpoints_with_origin_lists_the_checkpoints_trained_on_it(project):
    found = checkpoints_with_origin(str(project["root"] / "repo"), project["root"] / "models")
    assert sorted(f["checkpoint"] for f in found) == sorted([str(project["init"]), str(project["final"])])
    assert all(f["documents"] > 0 for f in found)
    assert checkpoints_with_origin("https://example.org/other", project["root"] / "models") == []


def test_evaluate_stage_writes_the_same_report_twice(project, tmp_path):
    first = run_evaluate(project["final"], project["dataset"], tmp_path / "a", NO_MLFLOW)
    run_evaluate(project["final"], project["dataset"], tmp_path / "b", NO_MLFLOW)
    assert (tmp_path / "a" / "bpb.json").read_bytes() == (tmp_path / "b" / "bpb.json").read_bytes()
    assert read_json(tmp_path / "a" / "bpb.json")["aggregate"]["bpb"] == first["aggregate"]["bpb"]
    assert (tmp_path / "a" / "bpb.png").stat().st_size > 1000


def test_cli_lineage_trace_and_eval(in_project, capsys, tmp_path):
    project = in_project
    assert main(["lineage", str(project["final"])]) == 0
    printed = capsys.readouterr().out
    assert project["manifest"]["version"][:12] in printed and project["revision"] in printed
    assert main(["lineage", str(project["final"]), "--openlineage", "-"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(events) == 3 and all(e["eventType"] == "COMPLETE" for e in events)
    assert main(["trace", str(project["final"]), "src/tiny.py"]) == 0
    assert "too short" in capsys.readouterr().out
    train_file = next(r for r in evaluation_records(project["dataset"], "train"))
    assert main(["trace", str(project["final"]), train_file["meta"]["id"]]) == 0
    assert "license: MIT (permissive, from " in capsys.readouterr().out  # SPDX text, not a dict
    assert main(["eval", "bpb", str(project["final"]), str(project["dataset"]), "--no-mlflow", "--json",
                 "--context-len", "32", "--stride", "16"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["context_len"] == 32 and report["stride"] == 16 and report["aggregate"]["bpb"] > 0
    assert main(["trace", str(tmp_path), "x"]) == 1
    assert "no lineage.json" in capsys.readouterr().err.replace("\n", " ")


@pytest.mark.slow  # importing transformers alone takes most of it
def test_hugging_face_export_of_the_checkpoint_scores_the_same_bpb(project):
    from transformers import LlamaForCausalLM

    model, tokenizer = load_for_eval(project["final"])
    exported = LlamaForCausalLM.from_pretrained(project["final"]).eval()
    records = list(evaluation_records(project["dataset"], "test"))
    ours = score_records(model, tokenizer, records, context_len=48, stride=16, batch_size=4)
    theirs = score_records(exported, tokenizer, records, context_len=48, stride=16, batch_size=1)
    assert ours.aggregate.bpb == pytest.approx(theirs.aggregate.bpb, abs=1e-4)


def test_a_checkpoint_without_tokenizer_json_uses_its_recipe_tokenizer(project, tmp_path):
    from quarry.recipes.registry import build_recipe

    out = tmp_path / "bytes"
    build_recipe("pretrain", "tiny_pretrain", [
        f"dataset.path={project['dataset']}", f"output_dir={out}", "dataset.seq_len=32", "batch_size=4",
        "max_steps=2", "mlflow.enabled=false", "progress=false", "save_every_n_steps=0",
        "validation.every_n_steps=0"]).run()
    assert not (out / "final" / "tokenizer.json").exists()
    report = score_checkpoint(out / "final", project["dataset"], {"evaluate": {"mlflow": False, "max_docs": 1}})
    assert report["aggregate"]["docs"] == 1
    assert report["aggregate"]["tokens"] == report["aggregate"]["bytes"]  # one token per byte


def test_an_unmerged_lora_checkpoint_is_scored_as_base_plus_adapter(project, tmp_path):
    from quarry.recipes.registry import build_recipe

    out = tmp_path / "lora"
    common = [f"dataset.path={project['dataset']}", "dataset.seq_len=32", "batch_size=4", "max_steps=3",
              "optimizer.lr=0.02", "mlflow.enabled=false", "progress=false", "save_every_n_steps=0",
              "validation.every_n_steps=0", f"base_model={project['final']}",
              "tokenizer._component_=quarry.tokenizer.Tokenizer.load",
              f"+tokenizer.path={project['root'] / 'models' / 'tokenizer'}"]
    build_recipe("lora_finetune", "tiny_lora", [*common, f"output_dir={out}", "lora.merge_on_export=false"]).run()
    build_recipe("lora_finetune", "tiny_lora", [*common, f"output_dir={tmp_path / 'merged'}"]).run()
    assert not (out / "final" / "config.json").exists() and (out / "final" / "adapter").is_dir()
    params = {"evaluate": {"mlflow": False}}
    adapter = score_checkpoint(out / "final", project["dataset"], params)
    merged = score_checkpoint(tmp_path / "merged" / "final", project["dataset"], params)
    base = score_checkpoint(project["final"], project["dataset"], params)
    assert adapter["aggregate"]["bpb"] == pytest.approx(merged["aggregate"]["bpb"], abs=1e-5)
    assert adapter["aggregate"]["bpb"] != pytest.approx(base["aggregate"]["bpb"], abs=1e-6)


def test_every_subset_of_the_version_is_scored_or_said_why_not(project):
    from quarry.records import read_json

    report = score_checkpoint(project["final"], project["dataset"], NO_MLFLOW)
    composition = read_json(project["dataset"] / "manifest.json")["composition"]
    in_test = composition["by_split_and_subset"].get("test", {})
    for subset in composition["by_subset"]:
        if subset in report["subsets"]:
            assert in_test[subset]["documents"] >= 1
        else:
            assert report["unscored"][subset] == "no document in the test split"
    limited = score_checkpoint(project["final"], project["dataset"], {"evaluate": {"mlflow": False, "max_docs": 1}})
    assert set(limited["subsets"]) | set(limited["unscored"]) == set(composition["by_subset"])
    assert any(why == "not reached within evaluate.max_docs" for why in limited["unscored"].values()) == \
        (sum(1 for row in in_test.values() if row["documents"]) > 1)

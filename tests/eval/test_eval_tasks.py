"""The evaluate stage on Prefect tasks in a real flow run writes the report the CLI's local run does."""

from __future__ import annotations

import pytest

from quarry.records import read_json


@pytest.mark.slow  # most of its time is Prefect starting its temporary server
def test_flow_of_shard_tasks_gives_the_report_of_the_local_run(project, tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")  # a busy machine starts slowly
    from flows.evaluate import evaluate
    from quarry.eval.scoring import checkpoint_label
    from quarry.stages.evaluate import run_evaluate

    params = {"evaluate": {"mlflow": False, "batch_size": 4, "context_len": 32}}
    params_file = tmp_path / "params.yaml"
    params_file.write_text("evaluate: {mlflow: false, batch_size: 4, context_len: 32}\n")
    reports = evaluate(str(project["dataset"]), [str(project["final"])], str(tmp_path / "out"),
                       str(tmp_path / "metrics.json"), str(params_file))
    local = run_evaluate(project["final"], project["dataset"], tmp_path / "local", params, workers=2)
    name = checkpoint_label(project["final"])
    assert reports[name] == local
    assert read_json(tmp_path / "out" / name / "bpb.json") == read_json(tmp_path / "local" / "bpb.json")
    assert read_json(tmp_path / "metrics.json")[name]["bpb"] == local["bpb"]

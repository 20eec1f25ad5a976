"""The evaluate stage's Prefect tasks in a real flow run: per-shard BPB merged into the report."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.slow  # most of its time is Prefect starting its temporary server
def test_flow_of_shard_tasks_gives_the_report_of_the_single_pass(project, tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")  # a busy machine starts slowly
    from prefect import flow, unmapped

    from quarry.eval.stage import score_checkpoint
    from tasks.evaluate import publish_task, score_shard_task, test_shards

    params = {"evaluate": {"mlflow": False, "batch_size": 4, "context_len": 32}}

    @flow(name="evaluate-test")
    def evaluate(checkpoint: str, dataset: str, out_dir: str) -> dict:
        shards = test_shards(Path(dataset), params)
        results = [f.result() for f in score_shard_task.map(Path(checkpoint), shards, unmapped(params))]
        return publish_task(Path(checkpoint), Path(dataset), results, Path(out_dir), params)

    report = evaluate(str(project["final"]), str(project["dataset"]), str(tmp_path / "out"))
    single = score_checkpoint(project["final"], project["dataset"], params)
    assert report["aggregate"]["docs"] == single["aggregate"]["docs"]
    assert report["aggregate"]["bpb"] == pytest.approx(single["aggregate"]["bpb"], rel=1e-9)
    assert report["subsets"].keys() == single["subsets"].keys()
    assert (tmp_path / "out" / "bpb.json").is_file()

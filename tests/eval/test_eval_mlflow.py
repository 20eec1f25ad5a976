"""MLflow: evaluation metrics, plots and lineage on the training run, the model registry, and
`quarry compare` reading runs back, from the SQLite store and from a real `mlflow server`."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from local_servers import free_port, wait_healthy

from quarry import tracking
from quarry.cli import main
from quarry.stages.evaluate import run_evaluate
from quarry.records import read_json, write_json


def checkpoint_of_run(project, folder: Path, run_id: str) -> Path:
    """A copy of the trained checkpoint whose lineage names ``run_id`` as its training run."""
    shutil.copytree(project["final"], folder)
    write_json(folder / "lineage.json", {**read_json(folder / "lineage.json"), "mlflow_run_id": run_id})
    return folder


def training_run(name: str, lr: float, dataset_hash: str) -> str:
    import mlflow

    with tracking.start_run(name, params_hash=f"params-{lr}", dataset_hash=dataset_hash) as run:
        mlflow.log_params({"lr": lr, "recipe": "pretrain"})
        for step, loss in enumerate([5.0, 4.1, 3.5, 3.2]):
            mlflow.log_metric("loss", loss / (1 + lr), step=step)
        return run.info.run_id


def evaluate_and_compare(project, tmp_path, capsys) -> None:
    """The whole MLflow story against whatever store MLFLOW_TRACKING_URI / QUARRY_HOME name."""
    version = project["manifest"]["version"]
    runs = [training_run("train-a", 0.001, version), training_run("train-b", 0.003, version)]
    params = {"evaluate": {"batch_size": 4, "register_model": "tiny-code-lm"}}
    reports = [run_evaluate(checkpoint_of_run(project, tmp_path / f"ckpt-{i}", run), project["dataset"],
                            tmp_path / f"eval-{i}", params) for i, run in enumerate(runs)]
    assert [r["mlflow_run_id"] for r in reports] == runs  # logged to the training runs themselves

    client = tracking.configure().MlflowClient()
    run = client.get_run(runs[0])
    subsets = reports[0]["subsets"]
    assert run.data.metrics["bpb"] == pytest.approx(reports[0]["aggregate"]["bpb"])
    for name, score in subsets.items():
        assert run.data.metrics[f"bpb/{name}"] == pytest.approx(score["bpb"])
        assert run.data.metrics[f"eval_docs/{name}"] == score["docs"]
    tags = run.data.tags
    assert tags["quarry.dataset_hash"] == version  # the training run's own tags are kept
    assert tags["quarry.lineage.dataset_version"] == version
    assert tags["quarry.lineage.snapshot_id"] == project["snapshot"]["snapshot_id"]
    assert tags["quarry.eval.stride"] == str(reports[0]["stride"])
    artifacts = {a.path for a in client.list_artifacts(runs[0], "evaluation")}
    assert {"evaluation/bpb.png", "evaluation/loss.png", "evaluation/bpb.json"} <= artifacts
    inputs = run.inputs.dataset_inputs  # the UI's Dataset column: the version, from its folder
    assert [(i.dataset.digest, i.dataset.name) for i in inputs] == [(version[:36], Path(project["dataset"]).name)]
    assert {t.key: t.value for t in inputs[0].tags} == {"mlflow.data.context": "evaluation",
                                                      "quarry.dataset_version": version}
    lineage = json.loads(Path(client.download_artifacts(runs[0], "lineage.json", str(tmp_path))).read_text())
    assert lineage["dataset"]["version"] == version

    versions = client.search_model_versions("name='tiny-code-lm'")
    assert sorted(int(v.version) for v in versions) == [1, 2]
    newest = max(versions, key=lambda v: int(v.version))
    assert newest.run_id == runs[1] and newest.tags["quarry.lineage.dataset_version"] == version
    assert "config.json" in {Path(a.path).name for a in client.list_artifacts(runs[1], "checkpoint")}

    headers, rows = tracking.compare_runs(runs)
    table = dict(rows)
    assert headers == ["train-a", "train-b"]
    assert table["param lr"] == ["0.001", "0.003"]
    assert table["dataset_hash"] == [version, version]
    for name in subsets:
        assert table[f"bpb/{name}"] == [f"{r['subsets'][name]['bpb']:.4f}" for r in reports]

    capsys.readouterr()
    assert main(["compare", "train-a", runs[1], "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["runs"] == headers and printed["rows"]["bpb"] == table["bpb"]
    assert main(["compare", runs[0], runs[1]]) == 0
    assert "bpb/" in capsys.readouterr().out
    assert main(["compare", "no-such-run"]) == 1
    assert "no run with id, id prefix or name 'no-such-run'" in capsys.readouterr().err.replace("\n", "")
    # Run-id prefixes, and only the rows that differ.
    assert main(["compare", runs[0][:8], runs[1][:8], "--diff-only", "--json"]) == 0
    differing = json.loads(capsys.readouterr().out)["rows"]
    assert differing["run id"] == runs and differing["param lr"] == ["0.001", "0.003"]
    assert "dataset_hash" not in differing and "param recipe" not in differing


def test_mlflow_sqlite_store_holds_eval_metrics_plots_registry_and_compares(in_project, tmp_path, capsys,
                                                                           monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    evaluate_and_compare(in_project, tmp_path, capsys)
    assert (in_project["root"] / "mlflow.db").is_file()
    # artifacts where the README says: the project's mlartifacts/, never a stray ./mlruns
    assert any((in_project["root"] / "mlartifacts").rglob("bpb.json"))
    assert not (in_project["root"] / "mlruns").exists() and not Path("mlruns").exists()


def test_evaluation_of_a_run_from_another_store_gets_a_linked_run(in_project, tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    ckpt = checkpoint_of_run(in_project, tmp_path / "ckpt", "0123456789abcdef0123456789abcdef")
    report = run_evaluate(ckpt, in_project["dataset"], tmp_path / "eval", {"evaluate": {"batch_size": 4}})
    run = tracking.configure().MlflowClient().get_run(report["mlflow_run_id"])
    assert run.data.tags["quarry.evaluated_run_id"] == "0123456789abcdef0123456789abcdef"
    assert run.data.tags["quarry.stage"] == "evaluate"


@pytest.fixture
def mlflow_server(tmp_path):
    port = free_port()
    mlflow = Path(sys.executable).parent / "mlflow"
    log = open(tmp_path / "server.log", "wb")
    proc = subprocess.Popen([str(mlflow), "server", "--backend-store-uri", f"sqlite:///{tmp_path / 'server.db'}",
                             "--artifacts-destination", str(tmp_path / "server-artifacts"),
                             "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout=180,
                     describe=lambda: f"mlflow server log: {(tmp_path / 'server.log').read_text()[-2000:]}")
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


@pytest.mark.slow
def test_mlflow_server_holds_eval_metrics_plots_registry_and_compares(in_project, mlflow_server, tmp_path, capsys,
                                                                      monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", mlflow_server)
    evaluate_and_compare(in_project, tmp_path, capsys)
    runs = tracking.configure().MlflowClient().search_runs(
        [tracking.ensure_experiment()], filter_string="attributes.run_name = 'train-a'")
    assert len(runs) == 1 and runs[0].data.metrics["bpb"] > 0

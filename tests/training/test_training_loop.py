"""The shared loop: loss falls, gradient accumulation is exact, a killed run resumes exactly."""

from __future__ import annotations

import json

import pytest
import torch

from quarry.recipes.registry import build_recipe

from training_helpers import Killed, kill_at, tiny_overrides, weights


def test_pretrain_loss_falls_and_final_checkpoint_carries_lineage(dataset_dir, tmp_path):
    recipe = build_recipe("pretrain", "tiny_pretrain",
                          tiny_overrides(dataset_dir, tmp_path, max_steps=16, **{"validation.every_n_steps": 8}))
    result = recipe.run()
    losses = [h["loss"] for h in result["history"]]
    assert sum(losses[-4:]) / 4 < 0.75 * sum(losses[:4]) / 4
    lineage = json.loads((tmp_path / "final" / "lineage.json").read_text())
    assert lineage["recipe"] == "pretrain"
    from quarry.datasets import load_manifest

    assert lineage["dataset"]["path"] == str(dataset_dir)
    assert lineage["dataset"]["version"] == load_manifest(dataset_dir)["version"]
    assert lineage["config"]["max_steps"] == 16 and len(lineage["config_hash"]) == 64
    assert lineage["tokenizer"]["hash"] and lineage["code_version"]

    from quarry.models.checkpoint import load_pretrained

    model = load_pretrained(tmp_path / "final")
    tokens = torch.tensor([[256, 100, 101, 102]])
    recipe.model.eval()
    assert torch.allclose(model(tokens), recipe.model(tokens), atol=1e-6)


def test_validation_reports_bits_per_byte(dataset_dir, tmp_path):
    recipe = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, tmp_path, max_steps=1))
    recipe.setup()
    metrics = recipe.validate()
    # An untrained model over a 259-symbol vocabulary: about log2(512) bits per byte-token.
    assert 6.0 < metrics["val_bpb"] < 12.0


def _one_run(dataset_dir, out, **extra) -> dict[str, torch.Tensor]:
    recipe = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, out, **extra))
    recipe.run()
    return weights(out / "final")


def test_gradient_accumulation_4x2_equals_batch_8(dataset_dir, tmp_path):
    # Plain SGD, so the weights after the steps are a linear function of the accumulated gradients.
    sgd = {"optimizer._component_": "torch.optim.SGD", "optimizer.lr": 0.5, "~optimizer.betas": None}
    big = _one_run(dataset_dir, tmp_path / "b8", max_steps=2, batch_size=8, gradient_accumulation_steps=1, **sgd)
    acc = _one_run(dataset_dir, tmp_path / "a4x2", max_steps=2, batch_size=2, gradient_accumulation_steps=4, **sgd)
    base = _one_run(dataset_dir, tmp_path / "none", max_steps=0, **sgd)  # the initial weights
    for name in big:
        assert torch.allclose(big[name], acc[name], atol=1e-6, rtol=1e-5), name
    assert any(not torch.equal(big[n], base[n]) for n in big)


def test_killed_run_resumes_to_exactly_the_uninterrupted_weights(dataset_dir, tmp_path):
    settings = dict(max_steps=7, save_every_n_steps=2)
    straight = _one_run(dataset_dir, tmp_path / "straight", **settings)

    out = tmp_path / "killed"
    first = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, out, **settings))
    first.on_step = kill_at(5)
    with pytest.raises(Killed):
        first.run()
    assert sorted(p.name for p in out.iterdir()) == ["step-2", "step-4"]

    second = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, out, resume="true", **settings))
    second.setup()
    assert second.step == 4
    second.train()
    resumed = weights(out / "final")
    for name in straight:
        assert torch.equal(straight[name], resumed[name]), name


@pytest.mark.slow
def test_run_is_tracked_in_mlflow_with_lineage_tags(dataset_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path / 'mlflow.db'}")
    from quarry import tracking

    recipe = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(
        dataset_dir, tmp_path / "out", max_steps=4, log_every_n_steps=2,
        **{"mlflow.enabled": "true", "mlflow.experiment": "training-test"}))
    recipe.run()
    client = tracking.configure().MlflowClient()
    run = client.get_run(recipe.mlflow_run_id)
    tags = run.data.tags
    assert tags["quarry.dataset_hash"] == recipe.dataset_hash()
    assert tags["quarry.config_hash"] == recipe.config_hash
    assert tags["quarry.tokenizer_hash"] == recipe.tokenizer.hash and tags["quarry.git_commit"]
    history = client.get_metric_history(run.info.run_id, "loss")
    assert [m.step for m in history] == [2, 4]
    for metric in ("lr", "grad_norm", "tokens_per_s", "peak_mem_gib"):
        assert client.get_metric_history(run.info.run_id, metric), metric
    lineage = json.loads((tmp_path / "out" / "final" / "lineage.json").read_text())
    assert lineage["mlflow_run_id"] == run.info.run_id


def test_document_mask_keeps_attention_inside_each_document(dataset_dir, tmp_path):
    from quarry.training.data import ByteTokenizer, PackedSequences, document_mask

    recipe = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(
        dataset_dir, tmp_path, max_steps=2, **{"dataset.document_mask": "true"}))
    recipe.run()  # trains with the mask
    model = recipe.model.eval()
    packed = PackedSequences.from_texts(["first doc", "second"], ByteTokenizer(), seq_len=19)
    item = packed[0]
    tokens = item["tokens"][None]
    with torch.no_grad():
        masked = model(tokens, attention_mask=document_mask(item["doc_ids"][None]), input_pos=item["input_pos"][None])
        alone = model(tokens[:, 11:])  # the second document on its own
    assert torch.allclose(masked[0, 11:], alone[0], atol=1e-5)


@pytest.mark.slow
def test_sigkilled_cli_run_resumes_to_exactly_the_uninterrupted_weights(dataset_dir, tmp_path):
    """A real kill: `quarry run` is SIGKILLed once its step-4 checkpoint exists, then resumed."""
    import os
    import signal
    import subprocess
    import sys
    import time

    settings = dict(max_steps=30, save_every_n_steps=4)
    straight = _one_run(dataset_dir, tmp_path / "straight", **settings)
    out = tmp_path / "killed"
    args = [sys.executable, "-m", "quarry", "run", "pretrain", "--config", "tiny_pretrain",
            *tiny_overrides(dataset_dir, out, **settings)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 240
    while not (out / "step-4" / "meta.json").is_file():
        assert proc.poll() is None and time.time() < deadline, "run ended before its first checkpoint"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (out / "final").exists()
    resumed_from = max(int(p.name.split("-")[1]) for p in out.glob("step-*") if (p / "meta.json").is_file())
    assert resumed_from < 30
    done = subprocess.run([*args, "resume=true"], env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    resumed = weights(out / "final")
    for name in straight:
        assert torch.equal(straight[name], resumed[name]), name


def test_fp16_uses_loss_scaling_and_trains(dataset_dir, tmp_path):
    recipe = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, tmp_path, max_steps=6, dtype="fp16"))
    result = recipe.run()
    assert recipe.scaler.is_enabled() and recipe.scaler.get_scale() > 1
    losses = [h["loss"] for h in result["history"]]
    assert losses[-1] < losses[0]
    assert next(recipe.model.parameters()).dtype == torch.float32  # fp32 master weights under autocast

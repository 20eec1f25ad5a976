"""The shared loop: loss falls, gradient accumulation is exact, a killed run resumes exactly."""

from __future__ import annotations

import json

import pytest
import torch

from quarry.training.registry import build_recipe

from training_helpers import tiny_overrides, weights


def test_pretrain_loss_falls_and_final_checkpoint_carries_lineage(dataset_dir, tmp_path):
    recipe = build_recipe("pretrain", "tiny_pretrain",
                          tiny_overrides(dataset_dir, tmp_path, max_steps=24, **{"validation.every_n_steps": 12}))
    result = recipe.run()
    losses = [h["loss"] for h in result["history"]]
    assert sum(losses[-4:]) / 4 < 0.6 * sum(losses[:4]) / 4
    lineage = json.loads((tmp_path / "final" / "lineage.json").read_text())
    assert lineage["recipe"] == "pretrain"
    assert lineage["dataset"]["path"] == str(dataset_dir) and lineage["dataset"]["version"]
    assert lineage["config"]["max_steps"] == 24 and len(lineage["config_hash"]) == 64
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


class Killed(Exception):
    pass


def test_killed_run_resumes_to_exactly_the_uninterrupted_weights(dataset_dir, tmp_path):
    settings = dict(max_steps=7, save_every_n_steps=2)
    straight = _one_run(dataset_dir, tmp_path / "straight", **settings)

    out = tmp_path / "killed"
    first = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, out, **settings))

    def kill(step: int) -> None:
        if step == 5:
            raise Killed
    first.on_step = kill
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

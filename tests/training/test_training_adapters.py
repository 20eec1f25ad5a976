"""LoRA, QLoRA and DPO on the tiny model: what trains, what is exported, what it computes."""

from __future__ import annotations

import json

import pytest
import torch
from training_helpers import tiny_overrides, weights

from quarry.training.lora import LoRALinear, apply_lora, load_adapter, merge_lora, save_adapter
from quarry.recipes.registry import build_recipe

TOKENS = torch.tensor([[256, 100, 101, 32, 102, 103, 10, 104]])


def test_lora_trains_only_adapters_and_merged_export_gives_same_logits(dataset_dir, base_checkpoint, tmp_path):
    from quarry.models.checkpoint import load_pretrained

    recipe = build_recipe("lora_finetune", "tiny_lora", tiny_overrides(
        dataset_dir, tmp_path, base_model=base_checkpoint, max_steps=6, **{"optimizer.lr": 0.02}))
    recipe.setup()
    trainable = {n for n, p in recipe.model.named_parameters() if p.requires_grad}
    assert trainable and all(".lora_A." in n or ".lora_B." in n for n in trainable)
    frozen_before = {n: p.detach().clone() for n, p in recipe.model.named_parameters() if not p.requires_grad}
    recipe.train()
    for name, param in recipe.model.named_parameters():
        if name in frozen_before:
            assert torch.equal(param, frozen_before[name]), name
    assert any(not torch.equal(m.lora_B.weight, torch.zeros_like(m.lora_B.weight))
               for m in recipe.model.modules() if isinstance(m, LoRALinear))

    recipe.model.eval()
    with torch.no_grad():
        expected = recipe.model(TOKENS)
        merged = load_pretrained(tmp_path / "final")(TOKENS)
    assert torch.allclose(merged, expected, atol=1e-5)
    adapter = tmp_path / "final" / "adapter"
    config = json.loads((adapter / "adapter_config.json").read_text())
    assert config["peft_type"] == "LORA" and config["r"] == 8 and "q_proj" in config["target_modules"]
    assert (adapter / "adapter_model.safetensors").is_file()


@pytest.mark.slow
def test_adapter_loads_in_peft_and_matches(base_checkpoint, tmp_path):
    """The saved adapter is a real PEFT adapter: transformers + PEFT compute the same logits."""
    peft = pytest.importorskip("peft")
    transformers = pytest.importorskip("transformers")
    from quarry.models.checkpoint import load_pretrained

    model = load_pretrained(base_checkpoint)
    apply_lora(model, rank=4, alpha=8, target_modules="all-linear")
    torch.manual_seed(1)
    for module in model.modules():
        if isinstance(module, LoRALinear):
            torch.nn.init.normal_(module.lora_B.weight, std=0.05)
    save_adapter(model, tmp_path / "adapter", base_model=str(base_checkpoint))
    hf = transformers.AutoModelForCausalLM.from_pretrained(base_checkpoint, torch_dtype=torch.float32)
    hf = peft.PeftModel.from_pretrained(hf, tmp_path / "adapter").eval()
    model.eval()
    with torch.no_grad():
        assert torch.allclose(hf(TOKENS).logits, model(TOKENS), atol=1e-4)

    reloaded = load_pretrained(base_checkpoint)
    apply_lora(reloaded, rank=4, alpha=8, target_modules="all-linear")
    load_adapter(reloaded, tmp_path / "adapter")
    with torch.no_grad():
        assert torch.allclose(merge_lora(reloaded).eval()(TOKENS), model(TOKENS), atol=1e-5)


def test_qlora_trains_on_cpu_with_nf4_base(dataset_dir, base_checkpoint, tmp_path):
    import bitsandbytes as bnb

    recipe = build_recipe("qlora_finetune", "tiny_qlora", tiny_overrides(
        dataset_dir, tmp_path, base_model=base_checkpoint, max_steps=12, **{"optimizer.lr": 0.01}))
    recipe.setup()
    layers = [m for m in recipe.model.modules() if isinstance(m, LoRALinear)]
    assert layers and all(isinstance(m.base_layer, bnb.nn.Linear4bit) for m in layers)
    q = layers[0].base_layer.weight
    assert q.quant_type == "nf4" and q.compress_statistics  # double quantisation
    assert layers[0].lora_A.weight.dtype == torch.bfloat16
    result = recipe.train()
    losses = [h["loss"] for h in result["history"]]
    assert sum(losses[-3:]) < sum(losses[:3])
    assert (tmp_path / "final" / "adapter" / "adapter_model.safetensors").is_file()
    assert "model.layers.0.self_attn.q_proj.weight" in weights(tmp_path / "final")


def test_qlora_trains_on_cpu_with_int8_base_and_exports_dense(dataset_dir, base_checkpoint, tmp_path):
    import bitsandbytes as bnb
    from safetensors.torch import load_file

    recipe = build_recipe("qlora_finetune", "tiny_qlora", tiny_overrides(
        dataset_dir, tmp_path, base_model=base_checkpoint, max_steps=12,
        **{"optimizer.lr": 0.01, "quantize.mode": "int8", "quantize.threshold": 4.0}))
    recipe.setup()
    layers = [m for m in recipe.model.modules() if isinstance(m, LoRALinear)]
    assert layers and all(isinstance(m.base_layer, bnb.nn.Linear8bitLt) for m in layers)
    base = layers[0].base_layer
    assert base.weight.dtype == torch.int8 and base.state.threshold == 4.0
    assert not any(p.requires_grad for m in layers for p in m.base_layer.parameters())
    before = {k: v.clone() for k, v in recipe.model.state_dict().items() if "lora_B" in k}
    result = recipe.train()
    losses = [h["loss"] for h in result["history"]]
    assert sum(losses[-3:]) < sum(losses[:3])
    assert any(not torch.equal(before[k], v) for k, v in recipe.model.state_dict().items() if k in before)
    # The export merges into the dense base in the recipe's dtype: the original weights + B @ A.
    merged = weights(tmp_path / "final")
    dense = load_file(str(base_checkpoint / "model.safetensors"))
    name = "model.layers.0.self_attn.q_proj.weight"
    q = recipe.model.model.layers[0].self_attn.q_proj
    delta = q.scaling * (q.lora_B.weight.float() @ q.lora_A.weight.float())
    assert merged[name].dtype == torch.bfloat16 and delta.abs().max() > 0
    assert torch.allclose(merged[name].float(), dense[name].to(torch.bfloat16).float() + delta, atol=1e-3)
    assert (tmp_path / "final" / "adapter" / "adapter_model.safetensors").is_file()


def test_dpo_raises_margin_of_chosen_over_rejected(base_checkpoint, tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    rows = [{"prompt": f"q{i}: ", "chosen": "def good():\n    return value", "rejected": "lambda bad while"}
            for i in range(8)]
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    recipe = build_recipe("dpo", "tiny_dpo", [
        f"base_model={base_checkpoint}", f"dataset.path={pairs}", f"output_dir={tmp_path / 'out'}",
        "epochs=3", "batch_size=4", "progress=false", "optimizer.lr=0.003"])
    recipe.setup()
    before = recipe.margins()
    recipe.train()
    after = recipe.margins()
    assert (after > before).all() and after.mean() > before.mean() + 1.0
    assert json.loads((tmp_path / "out" / "final" / "lineage.json").read_text())["base_model"] == str(base_checkpoint)


def test_dpo_with_precomputed_reference_log_probs(base_checkpoint, tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    rows = [{"prompt": "q: ", "chosen": "yes", "rejected": "no", "ref_chosen_logp": -5.0, "ref_rejected_logp": -5.0}
            for _ in range(4)]
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    recipe = build_recipe("dpo", "tiny_dpo", [
        f"base_model={base_checkpoint}", f"dataset.path={pairs}", f"output_dir={tmp_path / 'out'}",
        "epochs=2", "batch_size=2", "progress=false", "dpo.reference=precomputed"])
    recipe.setup()
    assert recipe.reference is None
    recipe.train()
    assert (tmp_path / "out" / "final" / "model.safetensors").is_file()

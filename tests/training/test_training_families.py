"""Every recipe on every model family: a tiny transformers checkpoint fine-tuned for two steps.

LoRA, QLoRA (NF4 and int8), full fine-tuning and DPO start from each family's own checkpoint,
train what they should, and export a folder transformers loads as the same family.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch
from training_helpers import tiny_overrides

sys.path.insert(0, str(Path(__file__).parents[1] / "models"))
from family_models import FAMILIES, save_hf  # noqa: E402

from quarry.models.checkpoint import load_pretrained  # noqa: E402
from quarry.recipes.registry import build_recipe  # noqa: E402
from quarry.training.lora import LoRALinear  # noqa: E402

NAMES = list(FAMILIES)
RECIPES = {  # recipe, config, extra overrides
    "lora": ("lora_finetune", "tiny_lora", {"activation_checkpointing": "true"}),
    "qlora_nf4": ("qlora_finetune", "tiny_qlora", {}),
    "qlora_int8": ("qlora_finetune", "tiny_qlora", {"quantize.mode": "int8"}),
    "full": ("full_finetune", "tiny_full_finetune", {"dtype": "fp32"}),
}


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("families")
    for name in NAMES:
        save_hf(name, root / name)
    return {name: root / name for name in NAMES}


def _trainable_changed(recipe, before: dict[str, torch.Tensor]) -> bool:
    after = dict(recipe.model.named_parameters())
    return any(not torch.equal(after[n].detach(), before[n]) for n in before)


@pytest.mark.parametrize("kind", list(RECIPES))
@pytest.mark.parametrize("name", NAMES)
def test_recipe_trains_and_exports_the_family(name, kind, checkpoints, dataset_dir, tmp_path):
    recipe_name, config, extra = RECIPES[kind]
    recipe = build_recipe(recipe_name, config, tiny_overrides(
        dataset_dir, tmp_path, base_model=checkpoints[name], max_steps=2, batch_size=2, **extra))
    recipe.setup()
    before = {n: p.detach().clone() for n, p in recipe.model.named_parameters() if p.requires_grad}
    if kind != "full":
        assert before and all(".lora_A." in n or ".lora_B." in n for n in before)
    if kind.startswith("qlora"):
        import bitsandbytes as bnb

        quantized = bnb.nn.Linear4bit if kind == "qlora_nf4" else bnb.nn.Linear8bitLt
        layers = [m for m in recipe.model.modules() if isinstance(m, LoRALinear)]
        assert layers and all(isinstance(m.base_layer, quantized) for m in layers)
        # every projection of the blocks (fused ones included) is quantised and adapted
        assert not [n for n, m in recipe.model.model.layers.named_modules()
                    if type(m) is torch.nn.Linear and not n.endswith(("lora_A", "lora_B"))]
    result = recipe.train()
    assert all(torch.isfinite(torch.tensor(h["loss"])) for h in result["history"])
    assert _trainable_changed(recipe, before)
    exported = load_pretrained(tmp_path / "final")
    assert exported.args.family == load_pretrained(checkpoints[name]).args.family
    if kind != "full":
        adapter = json.loads((tmp_path / "final" / "adapter" / "adapter_config.json").read_text())
        wrapped = {n.split(".")[-1] for n, m in recipe.model.named_modules() if isinstance(m, LoRALinear)}
        assert set(adapter["target_modules"]) == wrapped


@pytest.mark.parametrize("name", NAMES)
def test_dpo_step_on_the_family(name, checkpoints, tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    rows = [{"prompt": f"q{i}: ", "chosen": "def good():\n    return value", "rejected": "lambda bad while"}
            for i in range(4)]
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    recipe = build_recipe("dpo", "tiny_dpo", [
        f"base_model={checkpoints[name]}", f"dataset.path={pairs}", f"output_dir={tmp_path / 'out'}",
        "epochs=1", "batch_size=2", "progress=false", "optimizer.lr=0.003", "dtype=fp32"])
    recipe.setup()
    before = recipe.margins()
    recipe.train()
    assert not torch.equal(recipe.margins(), before)
    assert load_pretrained(tmp_path / "out" / "final").args.family == recipe.model.args.family

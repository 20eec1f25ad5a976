"""LoRA fine-tuning: the base frozen, low-rank adapters trained; exported as a PEFT adapter
and, when ``lora.merge_on_export``, as a full checkpoint with the adapters merged in."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from quarry.config.compute import torch_dtype
from quarry.models.checkpoint import save_pretrained
from quarry.records import write_json
from quarry.training.lora import apply_lora, merge_lora, save_adapter
from quarry.recipes.base import _saveable
from quarry.config.recipes import LoraFinetuneConfig
from quarry.recipes.full_finetune import FullFinetune


class LoRAFinetune(FullFinetune):
    name = "lora_finetune"
    SCHEMA = LoraFinetuneConfig
    trainable_only_checkpoints = True

    def build_model(self) -> nn.Module:
        model = super().build_model()
        self.add_adapters(model)
        return model

    def add_adapters(self, model: nn.Module) -> None:
        lora = self.config.lora
        dtype = lora.dtype and torch_dtype(lora.dtype)
        apply_lora(model, rank=lora.rank, alpha=lora.alpha, dropout=lora.dropout,
                   target_modules=lora.target_modules, dtype=dtype)

    def export(self, state: dict[str, torch.Tensor], folder: Path) -> None:
        model = super().fresh_model()  # the dense base, unquantised
        self.add_adapters(model)
        adapters = {k: v for k, v in state.items() if ".lora_A." in k or ".lora_B." in k}
        model.load_state_dict(adapters, strict=False)
        lineage = self.lineage()
        adapter_dir = folder / "adapter"
        save_adapter(model, adapter_dir, base_model=self.config.base_model)
        write_json(adapter_dir / "lineage.json", lineage)
        if self.config.lora.merge_on_export:
            save_pretrained(merge_lora(model), folder, tokenizer=_saveable(self.tokenizer), lineage=lineage)
        else:
            folder.mkdir(parents=True, exist_ok=True)
            write_json(folder / "lineage.json", lineage)

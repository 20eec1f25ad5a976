"""Full fine-tuning: every weight of a pretrained checkpoint trained on a dataset version."""

from __future__ import annotations


import torch
from torch import nn

from quarry.errors import ConfigError
from quarry.models.checkpoint import load_pretrained
from quarry.config.recipes import FinetuneConfig
from quarry.recipes.base import Recipe


class FullFinetune(Recipe):
    name = "full_finetune"
    SCHEMA = FinetuneConfig

    def base_model_path(self) -> str | None:
        return self.cfg["base_model"]

    def load_base(self, dtype: torch.dtype | None = None) -> nn.Module:
        if not self.cfg["base_model"]:
            raise ConfigError(f"config: base_model is required for {self.name} (a model folder)")
        return load_pretrained(self.cfg["base_model"], device="cpu", dtype=dtype).train()

    def build_model(self) -> nn.Module:
        return self.load_base(self.dtype if self.dtype == torch.bfloat16 else torch.float32)

    def fresh_model(self) -> nn.Module:
        return self.load_base(self.dtype if self.dtype == torch.bfloat16 else torch.float32)

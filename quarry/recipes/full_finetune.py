"""Full fine-tuning: every weight of a pretrained checkpoint trained on a dataset version."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from quarry.errors import ConfigError
from quarry.models.checkpoint import load_pretrained
from quarry.training.config import merge_defaults
from quarry.recipes.base import BASE_DEFAULTS, Recipe

FINETUNE_DEFAULTS: dict[str, Any] = merge_defaults(BASE_DEFAULTS, {
    "base_model": None,  # a folder save_pretrained wrote (Quarry's or transformers'), or a hub id
    "model": None,       # unused: the architecture comes from base_model's config.json
})


class FullFinetune(Recipe):
    name = "full_finetune"
    DEFAULTS = FINETUNE_DEFAULTS

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

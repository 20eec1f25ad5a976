"""Full fine-tuning: every weight of a pretrained checkpoint trained on a dataset version."""

from __future__ import annotations

import warnings

import torch
from torch import nn

from quarry.errors import ConfigError
from quarry.infra.hashing import file_hashes
from quarry.models.checkpoint import load_pretrained
from quarry.models.hub import resolve
from quarry.records import JsonDict
from quarry.tokenizer import Tokenizer
from quarry.config.recipes import FinetuneConfig
from quarry.recipes.base import Recipe


class FullFinetune(Recipe):
    name = "full_finetune"
    SCHEMA = FinetuneConfig

    def base_model_path(self) -> str | None:
        return self.config.base_model

    def lineage(self) -> JsonDict:
        return {**super().lineage(), "base_model_files": self.base_model_files()}

    def base_model_files(self) -> dict[str, str]:
        """sha256 of every file of the base model's folder (a hub id's snapshot): which weights,
        config and tokenizer the run started from, whatever the folder is called. Hashed once."""
        if not hasattr(self, "_base_files"):
            self._base_files = file_hashes(resolve(self.config.base_model)) if self.config.base_model else {}
        return self._base_files

    def load_base(self, dtype: torch.dtype | None = None) -> nn.Module:
        if not self.config.base_model:
            raise ConfigError(f"config: base_model is required for {self.name} (a model folder)")
        model = load_pretrained(self.config.base_model, device="cpu", dtype=dtype).train()
        self.check_tokenizer(model)
        return model

    def build_model(self) -> nn.Module:
        return self.load_base(self.dtype if self.dtype == torch.bfloat16 else torch.float32)

    def check_tokenizer(self, model: nn.Module) -> None:
        """A tokenizer with ids past the embedding would fail mid-run (or index garbage on GPU);
        one other than the tokenizer.json the base model ships trains on ids it never saw: said once."""
        use_own = ("use the model's own: tokenizer._component_=quarry.tokenizer.Tokenizer.load "
                   f"tokenizer.path={self.cfg['base_model']}")
        have, need = model.args.vocab_size, getattr(self.tokenizer, "vocab_size", 0)
        if need > have:
            raise ConfigError(f"config: the tokenizer has {need} ids but {self.cfg['base_model']} embeds only "
                              f"{have}; {use_own}")
        folder = resolve(self.config.base_model)
        if not getattr(self, "_tokenizer_checked", False) and (folder / "tokenizer.json").is_file():
            self._tokenizer_checked = True
            own = Tokenizer.load(folder).hash
            if str(getattr(self.tokenizer, "hash", "")) != str(own):
                warnings.warn(f"{self.cfg['base_model']} ships its own tokenizer.json, but this run tokenises with "
                              f"{self.cfg['tokenizer'].get('_component_')}; {use_own}", stacklevel=2)

    def fresh_model(self) -> nn.Module:
        return self.load_base(self.dtype if self.dtype == torch.bfloat16 else torch.float32)

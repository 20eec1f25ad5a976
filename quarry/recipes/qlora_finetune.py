"""QLoRA: the base quantised by bitsandbytes, LoRA adapters on top. ``quantize.mode`` picks NF4
with double quantisation (the QLoRA paper) or LLM.int8 with its outlier ``threshold``.

Under FSDP2 the 4-bit base is kept out of sharding (replicated on every rank) and only the
adapters and their optimizer state are sharded; see quarry.training.distributed. The merged
export folds the adapters into the original dense base weights (not the dequantised NF4 ones),
so it is the model the adapters were meant to correct, at full precision, in either mode.
"""

from __future__ import annotations

import torch
from torch import nn

from quarry.config.compute import torch_dtype
from quarry.config.recipes import QLoraFinetuneConfig
from quarry.errors import ConfigError
from quarry.recipes.lora_finetune import LoRAFinetune
from quarry.training.config import ConfigNode
from quarry.training.quantize import MODES, quantize_int8, quantize_nf4, quantized_parameters


class QLoRAFinetune(LoRAFinetune):
    name = "qlora_finetune"
    SCHEMA = QLoraFinetuneConfig

    def __init__(self, cfg: ConfigNode):
        super().__init__(cfg)
        mode = self.config.quantize.mode
        if mode not in MODES:
            raise ConfigError(f"config: quantize.mode={mode!r}; valid: {', '.join(MODES)}")

    def build_model(self) -> nn.Module:
        q = self.config.quantize
        compute = torch_dtype(q.compute_dtype)
        model = self.load_base(compute)
        if q.mode == "int8":
            quantize_int8(model, target_modules=q.target_modules, threshold=float(q.threshold),
                          device=self.device)
        else:
            quantize_nf4(model, target_modules=q.target_modules, compute_dtype=compute,
                         double_quant=q.double_quant, blocksize=q.blocksize, device=self.device)
        self.add_adapters(model)
        return model

    def unsharded_params(self) -> set[nn.Parameter]:
        return quantized_parameters(self.model) | {p for p in self.model.parameters() if not p.requires_grad}

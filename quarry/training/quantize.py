"""NF4 base weights for QLoRA (Dettmers et al. 2023) through bitsandbytes.

Every projection of the transformer blocks becomes a ``bitsandbytes.nn.Linear4bit`` holding
4-bit NormalFloat weights with double quantisation (the absmax constants are themselves
quantised); matmuls run in ``compute_dtype``. Embeddings, norms and the output head stay dense,
as in the QLoRA paper.
"""

from __future__ import annotations

from typing import Iterable

import torch
from torch import nn

from quarry.training.lora import ALL_LINEAR


def is_quantized(param: torch.Tensor) -> bool:
    return getattr(param, "quant_state", None) is not None or type(param).__name__ == "Params4bit"


@torch.no_grad()
def quantize_nf4(model: nn.Module, *, target_modules: Iterable[str] = ALL_LINEAR,
                 compute_dtype: torch.dtype = torch.bfloat16, double_quant: bool = True,
                 blocksize: int = 64, device: str | torch.device | None = None) -> list[str]:
    """Swap matching nn.Linear layers for NF4 Linear4bit in place; returns the swapped names."""
    import bitsandbytes as bnb

    targets = set(target_modules)
    swapped = []
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if child_name not in targets or type(child) is not nn.Linear:
                continue
            target_device = torch.device(device) if device is not None else child.weight.device
            layer = bnb.nn.Linear4bit(child.in_features, child.out_features, bias=child.bias is not None,
                                      compute_dtype=compute_dtype, compress_statistics=double_quant,
                                      quant_type="nf4", device="meta")
            layer.weight = bnb.nn.Params4bit(child.weight.detach().to("cpu", torch.float32).contiguous(),
                                             requires_grad=False, compress_statistics=double_quant,
                                             quant_type="nf4", blocksize=blocksize)
            if child.bias is not None:
                layer.bias = nn.Parameter(child.bias.detach().to(compute_dtype), requires_grad=False)
            setattr(module, child_name, layer.to(target_device))
            swapped.append(f"{name}.{child_name}" if name else child_name)
    return swapped


def quantized_parameters(model: nn.Module) -> set[nn.Parameter]:
    return {p for p in model.parameters() if is_quantized(p)}

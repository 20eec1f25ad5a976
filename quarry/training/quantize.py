"""Quantised base weights for QLoRA through bitsandbytes: NF4 or LLM.int8.

``nf4`` (Dettmers et al. 2023): every projection of the transformer blocks becomes a
``bitsandbytes.nn.Linear4bit`` holding 4-bit NormalFloat weights with double quantisation (the
absmax constants are themselves quantised); matmuls run in ``compute_dtype``.
``int8`` (LLM.int8, Dettmers et al. 2022): a ``bitsandbytes.nn.Linear8bitLt`` with row-wise int8
weights; input columns holding an outlier above ``threshold`` are multiplied in 16-bit, the rest
in int8. Embeddings, norms and the output head stay dense in both, as in the papers.
"""

from __future__ import annotations

import logging
from typing import Callable, Iterable

import torch
from torch import nn

from quarry.training.lora import ALL_LINEAR, resolve_targets


MODES = ("nf4", "int8")


class _NoOptionalCpuKernel(logging.Filter):
    """bitsandbytes (0.49+) warns at import, on CPUs with AVX512-BF16, that the optional
    ``kernels`` package (a faster NF4 matmul downloaded from the Hub) is missing; it then uses its
    own built-in CPU kernel, which is correct. Quarry never downloads kernels: drop that one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to load CPU gemm_4bit_forward from kernels-community")


logging.getLogger("bitsandbytes.backends.cpu.ops").addFilter(_NoOptionalCpuKernel())


def is_quantized(param: torch.Tensor) -> bool:
    return getattr(param, "quant_state", None) is not None or type(param).__name__ in ("Params4bit", "Int8Params")


def _swap_linears(model: nn.Module, target_modules: Iterable[str] | str, device: str | torch.device | None,
                  quantized: Callable[[nn.Linear], nn.Module]) -> list[str]:
    """Replace every nn.Linear named in ``target_modules`` by ``quantized(linear)`` moved to
    ``device`` (default: where the layer was); returns the swapped names."""
    targets = resolve_targets(model, target_modules)
    swapped = []
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if child_name not in targets or type(child) is not nn.Linear:
                continue
            target_device = torch.device(device) if device is not None else child.weight.device
            setattr(module, child_name, quantized(child).to(target_device))
            swapped.append(f"{name}.{child_name}" if name else child_name)
    return swapped


@torch.no_grad()
def quantize_nf4(model: nn.Module, *, target_modules: Iterable[str] = ALL_LINEAR,
                 compute_dtype: torch.dtype = torch.bfloat16, double_quant: bool = True,
                 blocksize: int = 64, device: str | torch.device | None = None) -> list[str]:
    """Swap matching nn.Linear layers for NF4 Linear4bit in place; returns the swapped names."""
    import bitsandbytes as bnb

    def nf4(child: nn.Linear) -> nn.Module:
        layer = bnb.nn.Linear4bit(child.in_features, child.out_features, bias=child.bias is not None,
                                  compute_dtype=compute_dtype, compress_statistics=double_quant,
                                  quant_type="nf4", device="meta")
        layer.weight = bnb.nn.Params4bit(child.weight.detach().to("cpu", torch.float32).contiguous(),
                                         requires_grad=False, compress_statistics=double_quant,
                                         quant_type="nf4", blocksize=blocksize)
        if child.bias is not None:
            layer.bias = nn.Parameter(child.bias.detach().to(compute_dtype), requires_grad=False)
        return layer

    return _swap_linears(model, target_modules, device, nf4)


def _int8_linear_class():
    import bitsandbytes as bnb

    class Int8Linear(bnb.nn.Linear8bitLt):
        """Linear8bitLt whose state dict holds only its parameters. bitsandbytes adds SCB and
        weight_format keys, which torch.distributed.checkpoint cannot map to attributes; the int8
        base is never saved anyway (checkpoints hold the adapters, the export the dense base)."""

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            nn.Module._save_to_state_dict(self, destination, prefix, keep_vars)

    return Int8Linear


@torch.no_grad()
def quantize_int8(model: nn.Module, *, target_modules: Iterable[str] = ALL_LINEAR, threshold: float = 6.0,
                  device: str | torch.device | None = None) -> list[str]:
    """Swap matching nn.Linear layers for LLM.int8 Linear8bitLt in place; returns the swapped names.
    The weights are quantised when the layer moves to its device (bitsandbytes does it in ``to``)."""
    import bitsandbytes as bnb

    int8_linear = _int8_linear_class()

    def int8(child: nn.Linear) -> nn.Module:
        layer = int8_linear(child.in_features, child.out_features, bias=child.bias is not None,
                            has_fp16_weights=False, threshold=threshold, device="meta")
        layer.weight = bnb.nn.Int8Params(child.weight.detach().to("cpu", torch.float16).contiguous(),
                                         requires_grad=False, has_fp16_weights=False)
        if child.bias is not None:
            layer.bias = nn.Parameter(child.bias.detach().clone(), requires_grad=False)
        return layer

    return _swap_linears(model, target_modules, device, int8)


def quantized_parameters(model: nn.Module) -> set[nn.Parameter]:
    return {p for p in model.parameters() if is_quantized(p)}

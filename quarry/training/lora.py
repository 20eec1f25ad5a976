"""LoRA (Hu et al. 2021) as a module wrapping a linear layer, plus PEFT-layout save and merge.

``LoRALinear`` keeps the wrapped layer as ``base_layer`` (an nn.Linear, or a bitsandbytes
Linear4bit for QLoRA) and adds ``lora_A`` / ``lora_B``: y = base(x) + B(A(dropout(x))) * alpha/r.
B starts at zero, so a freshly wrapped model computes exactly what the base did. The names match
PEFT's, so an adapter saved here loads with ``peft.PeftModel.from_pretrained``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Iterable

import torch
from torch import nn

from quarry.records import JsonDict, atomic_write_bytes

ALL_LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
              "qkv_proj", "gate_up_proj", "c_fc", "c_proj")  # Phi-3's fused, StarCoder2's MLP
# A Llama projection name asked for on a family that lacks it stands for the layer computing it
# there: Phi-3's fused qkv_proj / gate_up_proj (the targets PEFT uses), StarCoder2's MLP.
TARGET_ALIASES = {"q_proj": ("qkv_proj",), "k_proj": ("qkv_proj",), "v_proj": ("qkv_proj",),
                  "gate_proj": ("gate_up_proj",), "up_proj": ("gate_up_proj", "c_fc"), "down_proj": ("c_proj",)}


def resolve_targets(model: nn.Module, target_modules: Iterable[str] | str) -> set[str]:
    """Module names to adapt or quantise in this model: ``"all-linear"`` is every block projection;
    a name the model lacks is replaced by its TARGET_ALIASES that it has."""
    targets = set(ALL_LINEAR if target_modules == "all-linear" else target_modules)
    present = {name.split(".")[-1] for name, module in model.named_modules() if hasattr(module, "in_features")}
    return {t for t in targets if t in present} | {
        alias for t in targets - present for alias in TARGET_ALIASES.get(t, ()) if alias in present} or targets


class LoRALinear(nn.Module):
    def __init__(self, base_layer: nn.Module, rank: int, alpha: float, dropout: float = 0.0,
                 dtype: torch.dtype | None = None):
        super().__init__()
        self.base_layer = base_layer
        self.in_features, self.out_features = base_layer.in_features, base_layer.out_features
        self.rank, self.alpha = rank, alpha
        self.scaling = alpha / rank
        self.dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        device = _device_of(base_layer)
        dtype = dtype or _float_dtype(base_layer)
        self.lora_A = nn.Linear(self.in_features, rank, bias=False, device=device, dtype=dtype)
        self.lora_B = nn.Linear(rank, self.out_features, bias=False, device=device, dtype=dtype)
        self.reset_lora_parameters()

    def reset_lora_parameters(self) -> None:
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.base_layer(x)
        lora_in = self.dropout(x).to(self.lora_A.weight.dtype)
        return out + (self.lora_B(self.lora_A(lora_in)) * self.scaling).to(out.dtype)

    def merged_weight(self) -> torch.Tensor:
        """The dense weight W + scaling * B @ A, in float32."""
        base = dense_weight(self.base_layer).float()
        return base + self.scaling * (self.lora_B.weight.float() @ self.lora_A.weight.float())


def _device_of(module: nn.Module) -> torch.device:
    return next(module.parameters()).device


def _float_dtype(module: nn.Module) -> torch.dtype:
    weight = module.weight
    if weight.is_floating_point():
        return weight.dtype
    return getattr(module, "compute_dtype", None) or torch.bfloat16


def dense_weight(layer: nn.Module) -> torch.Tensor:
    """A linear layer's weight as a dense tensor (dequantising a bitsandbytes 4-bit or int8 one)."""
    weight = layer.weight
    quant_state = getattr(weight, "quant_state", None)
    if quant_state is not None:
        import bitsandbytes.functional as bnbf

        return bnbf.dequantize_4bit(weight.data, quant_state)
    if weight.dtype == torch.int8 and getattr(weight, "SCB", None) is not None:  # LLM.int8: row-wise absmax
        return weight.data.float() * weight.SCB.float().unsqueeze(1) / 127.0
    return weight.detach()


def apply_lora(model: nn.Module, *, rank: int = 8, alpha: float = 16.0, dropout: float = 0.0,
               target_modules: Iterable[str] = ("q_proj", "v_proj"), dtype: torch.dtype | None = None,
               train_modules: Iterable[str] = ()) -> list[str]:
    """Wrap every linear whose last name part is in ``target_modules``; freeze all else.

    ``target_modules="all-linear"`` picks every projection of the transformer blocks; names are
    resolved for the model's family by ``resolve_targets``.
    ``train_modules`` (e.g. "lm_head") stay trainable in full. Returns the wrapped names.
    """
    targets = resolve_targets(model, target_modules)
    for param in model.parameters():
        param.requires_grad_(False)
    wrapped = []
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if child_name in targets and hasattr(child, "in_features") and not isinstance(child, LoRALinear):
                setattr(module, child_name, LoRALinear(child, rank, alpha, dropout, dtype))
                wrapped.append(f"{name}.{child_name}" if name else child_name)
    if not wrapped:
        raise ValueError(f"LoRA: no linear layer named any of {sorted(targets)} in the model")
    for name, module in model.named_modules():
        if name.split(".")[-1] in set(train_modules):
            for param in module.parameters():
                param.requires_grad_(True)
    return wrapped


def lora_state_dict(model: nn.Module) -> dict[str, torch.Tensor]:
    return {k: v for k, v in model.state_dict().items() if ".lora_A." in k or ".lora_B." in k}


def peft_key(name: str, model: nn.Module) -> str:
    """Our parameter name as PEFT stores it: base_model.model.<Hugging Face name>."""
    hf = name if hasattr(model, "model") or name.startswith(("model.", "lm_head")) else f"model.{name}"
    return f"base_model.model.{hf}"


def save_adapter(model: nn.Module, folder: str | Path, *, base_model: str | None = None,
                 extra_config: JsonDict | None = None) -> Path:
    """Write adapter_config.json + adapter_model.safetensors (Hugging Face PEFT layout)."""
    from safetensors.torch import save

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    layers = {n: m for n, m in model.named_modules() if isinstance(m, LoRALinear)}
    if not layers:
        raise ValueError("save_adapter: the model has no LoRA layers")
    first = next(iter(layers.values()))
    tensors = {peft_key(k, model): v.detach().to("cpu").contiguous() for k, v in lora_state_dict(model).items()}
    config = {
        "peft_type": "LORA", "task_type": "CAUSAL_LM", "r": first.rank, "lora_alpha": first.alpha,
        "lora_dropout": float(getattr(first.dropout, "p", 0.0)), "bias": "none", "fan_in_fan_out": False,
        "target_modules": sorted({n.split(".")[-1] for n in layers}), "inference_mode": True,
        "base_model_name_or_path": base_model, "modules_to_save": None, "use_rslora": False,
        "use_dora": False, "init_lora_weights": True, "layers_to_transform": None, "layers_pattern": None,
        "rank_pattern": {}, "alpha_pattern": {}, "revision": None,
    }
    config.update(extra_config or {})
    atomic_write_bytes(folder / "adapter_model.safetensors", save(tensors, metadata={"format": "pt"}))
    atomic_write_bytes(folder / "adapter_config.json", (json.dumps(config, indent=2, sort_keys=True) + "\n").encode())
    return folder


def load_adapter(model: nn.Module, folder: str | Path) -> None:
    """Load a PEFT-layout adapter into a model already wrapped by ``apply_lora``."""
    from safetensors.torch import load_file

    saved = load_file(str(Path(folder) / "adapter_model.safetensors"))
    ours = lora_state_dict(model)
    by_peft = {peft_key(k, model): k for k in ours}
    missing = set(by_peft) - set(saved)
    if missing:
        raise ValueError(f"{folder}: adapter lacks {len(missing)} tensors, e.g. {sorted(missing)[0]}")
    model.load_state_dict({by_peft[k]: v for k, v in saved.items() if k in by_peft}, strict=False)


@torch.no_grad()
def merge_lora(model: nn.Module, dtype: torch.dtype | None = None) -> nn.Module:
    """Replace every LoRALinear by a plain nn.Linear holding W + scaling * B @ A (in place)."""
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if isinstance(child, LoRALinear):
                base = child.base_layer
                out_dtype = dtype or _float_dtype(base)
                merged = nn.Linear(child.in_features, child.out_features, bias=base.bias is not None,
                                   device=_device_of(child.lora_A), dtype=out_dtype)
                merged.weight.copy_(child.merged_weight().to(out_dtype))
                if base.bias is not None:
                    merged.bias.copy_(base.bias.detach().to(out_dtype))
                setattr(module, child_name, merged)
    return model

"""Llama 2 / 3 / 3.1 / 3.2 (and Code Llama) and Mistral: the base block; Mistral adds a sliding window."""

from __future__ import annotations

from quarry.models.families.common import activation, check_keys, shape, shape_to_hf
from quarry.models.llama import ModelArgs

ARCHITECTURES = {"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM"}


def from_hf(config: dict) -> ModelArgs:
    kind = config["model_type"]
    if kind == "llama":
        check_keys(config, {"rms_norm_eps", "attention_bias", "mlp_bias"})
        bias = bool(config.get("attention_bias"))
        return ModelArgs(**shape(config), family=kind, activation=activation(config), qkv_bias=bias, o_bias=bias,
                         mlp_bias=bool(config.get("mlp_bias")))
    check_keys(config, {"rms_norm_eps", "sliding_window"})
    return ModelArgs(**shape(config), family=kind, activation=activation(config),
                     sliding_window=config.get("sliding_window"))


def to_hf(args: ModelArgs) -> dict:
    config = shape_to_hf(args, ARCHITECTURES[args.family])
    if args.family == "llama":
        return {**config, "attention_bias": args.qkv_bias, "mlp_bias": args.mlp_bias}
    return {**config, "sliding_window": args.sliding_window}

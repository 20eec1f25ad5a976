"""Llama-style models: the module, presets, KV cache, Hugging Face-layout checkpoints, hub download."""

from quarry.models.builders import (
    PRESETS,
    build_model,
    llama3_1_8b,
    llama3_2_1b,
    llama3_2_3b,
    llama_125m,
    llama_tiny,
    model_args,
)
from quarry.models.kv_cache import KVCache
from quarry.models.llama import ModelArgs, Transformer

LlamaForCausalLM = Transformer

__all__ = [
    "PRESETS", "KVCache", "LlamaForCausalLM", "ModelArgs", "Transformer", "build_model", "llama3_1_8b",
    "llama3_2_1b", "llama3_2_3b", "llama_125m", "llama_tiny", "model_args",
]

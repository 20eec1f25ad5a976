"""The decoder of every supported family (Llama, Mistral, Qwen2, Gemma, Gemma 2, Phi-3, StarCoder2):
module, presets, KV cache, Hugging Face checkpoints, hub download."""

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

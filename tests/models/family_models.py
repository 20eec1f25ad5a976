"""Tiny random checkpoints of every supported family, saved by transformers itself."""

from __future__ import annotations

import torch
import transformers

SHAPE = dict(vocab_size=320, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=512)
# Small windows and caps, so sliding windows and soft-capping change the logits of a 24-token test.
FAMILIES = {
    "llama": ("LlamaConfig", {}),
    "llama3_2": ("LlamaConfig", {"tie_word_embeddings": True, "rope_parameters": {
        "rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0, "low_freq_factor": 1.0,
        "high_freq_factor": 4.0, "original_max_position_embeddings": 64}}),
    "mistral": ("MistralConfig", {"sliding_window": 7}),
    "qwen2": ("Qwen2Config", {"use_sliding_window": True, "sliding_window": 7, "max_window_layers": 1}),
    "gemma": ("GemmaConfig", {"head_dim": 16}),
    "gemma2": ("Gemma2Config", {"head_dim": 16, "query_pre_attn_scalar": 24, "sliding_window": 7,
                                "attn_logit_softcapping": 1.5, "final_logit_softcapping": 2.0}),
    "phi3": ("Phi3Config", {"sliding_window": 7, "pad_token_id": 0, "eos_token_id": 1,
                            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                                "partial_rotary_factor": 0.5}}),
    "starcoder2": ("Starcoder2Config", {"sliding_window": 7, "bos_token_id": 0, "eos_token_id": 0}),
}


def hf_config(name: str) -> transformers.PretrainedConfig:
    config_class, extra = FAMILIES[name]
    return getattr(transformers, config_class)(**{**SHAPE, **extra})


def hf_model(name: str, seed: int = 0) -> transformers.PreTrainedModel:
    """A random model; every weight (norms and biases included) perturbed, so none sits at its init."""
    torch.manual_seed(seed)
    config = hf_config(name)
    config._attn_implementation = "eager"  # Gemma 2's soft-capping needs it; the reference for all
    model = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    with torch.no_grad():
        for param in model.parameters():
            param.add_(torch.randn_like(param) * 0.05)
    return model.eval()


def save_hf(name: str, folder, seed: int = 0) -> transformers.PreTrainedModel:
    model = hf_model(name, seed)
    model.save_pretrained(folder)
    return model

"""Model presets: one small function per shape, each accepting overrides (``vocab_size`` above all).

The other families' presets are their published config.json shapes read through
quarry.models.families, so a preset is exactly what loading that checkpoint would build.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from quarry.models.llama import ModelArgs, Transformer

LLAMA3_ROPE_THETA = 500000.0


def _llama3_scaling(factor: float) -> dict:
    return {"rope_type": "llama3", "factor": factor, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192}


def llama_tiny_args(**overrides) -> ModelArgs:
    """Two layers, 64 wide: for CPU tests and the embedded default pipeline."""
    base = dict(vocab_size=512, dim=64, n_layers=2, n_heads=4, n_kv_heads=2, intermediate_size=176,
                norm_eps=1e-5, rope_theta=10000.0, max_seq_len=512)
    return ModelArgs(**{**base, **overrides})


def llama_125m_args(**overrides) -> ModelArgs:
    """About 125M parameters with the default 49152-token vocabulary (tied embeddings)."""
    base = dict(vocab_size=49152, dim=768, n_layers=12, n_heads=12, n_kv_heads=4, intermediate_size=2560,
                norm_eps=1e-5, rope_theta=10000.0, max_seq_len=2048, tie_embeddings=True)
    return ModelArgs(**{**base, **overrides})


def llama3_2_1b_args(**overrides) -> ModelArgs:
    base = dict(vocab_size=128256, dim=2048, n_layers=16, n_heads=32, n_kv_heads=8, intermediate_size=8192,
                norm_eps=1e-5, rope_theta=LLAMA3_ROPE_THETA, rope_scaling=_llama3_scaling(32.0),
                max_seq_len=131072, tie_embeddings=True)
    return ModelArgs(**{**base, **overrides})


def llama3_2_3b_args(**overrides) -> ModelArgs:
    base = dict(vocab_size=128256, dim=3072, n_layers=28, n_heads=24, n_kv_heads=8, intermediate_size=8192,
                norm_eps=1e-5, rope_theta=LLAMA3_ROPE_THETA, rope_scaling=_llama3_scaling(32.0),
                max_seq_len=131072, tie_embeddings=True)
    return ModelArgs(**{**base, **overrides})


def llama3_1_8b_args(**overrides) -> ModelArgs:
    base = dict(vocab_size=128256, dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, intermediate_size=14336,
                norm_eps=1e-5, rope_theta=LLAMA3_ROPE_THETA, rope_scaling=_llama3_scaling(8.0),
                max_seq_len=131072, tie_embeddings=False)
    return ModelArgs(**{**base, **overrides})


# The smallest published shape of each other family, as its config.json spells it.
FAMILY_CONFIGS: dict[str, dict] = {
    "mistral_7b": {"model_type": "mistral", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336,
                   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                   "sliding_window": 4096, "rope_theta": 10000.0, "max_position_embeddings": 32768,
                   "rms_norm_eps": 1e-5},
    "qwen2_5_0_5b": {"model_type": "qwen2", "vocab_size": 151936, "hidden_size": 896, "intermediate_size": 4864,
                     "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
                     "rope_theta": 1000000.0, "tie_word_embeddings": True, "max_position_embeddings": 32768},
    "gemma_2b": {"model_type": "gemma", "vocab_size": 256000, "hidden_size": 2048, "intermediate_size": 16384,
                 "num_hidden_layers": 18, "num_attention_heads": 8, "num_key_value_heads": 1, "head_dim": 256,
                 "max_position_embeddings": 8192},
    "gemma2_2b": {"model_type": "gemma2", "vocab_size": 256000, "hidden_size": 2304, "intermediate_size": 9216,
                  "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                  "query_pre_attn_scalar": 256, "sliding_window": 4096, "attn_logit_softcapping": 50.0,
                  "final_logit_softcapping": 30.0, "max_position_embeddings": 8192},
    "phi3_mini": {"model_type": "phi3", "vocab_size": 32064, "hidden_size": 3072, "intermediate_size": 8192,
                  "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
                  "sliding_window": 2047, "max_position_embeddings": 4096, "rms_norm_eps": 1e-5},
    "starcoder2_3b": {"model_type": "starcoder2", "vocab_size": 49152, "hidden_size": 3072,
                      "intermediate_size": 12288, "num_hidden_layers": 30, "num_attention_heads": 24,
                      "num_key_value_heads": 2, "sliding_window": 4096, "rope_theta": 999999.4420358813,
                      "norm_epsilon": 1e-5, "max_position_embeddings": 16384},
}


def family_args(config: dict) -> Callable[..., ModelArgs]:
    """A preset from a config.json dict; ``n_layers`` is applied before reading it (Gemma 2's
    alternating layer types follow the depth)."""
    def preset(**overrides) -> ModelArgs:
        from quarry.models.families import args_from_hf

        depth = {"num_hidden_layers": overrides["n_layers"]} if "n_layers" in overrides else {}
        return dataclasses.replace(args_from_hf({**config, **depth}), **overrides)
    return preset


PRESETS: dict[str, Callable[..., ModelArgs]] = {
    "llama_tiny": llama_tiny_args,
    "llama_125m": llama_125m_args,
    "llama3_2_1b": llama3_2_1b_args,
    "llama3_2_3b": llama3_2_3b_args,
    "llama3_1_8b": llama3_1_8b_args,
    **{name: family_args(config) for name, config in FAMILY_CONFIGS.items()},
}


def model_args(name: str, **overrides) -> ModelArgs:
    if name not in PRESETS:
        raise ValueError(f"unknown model preset {name!r}; choose one of: {', '.join(PRESETS)}")
    return PRESETS[name](**overrides)


def build_model(name: str, **overrides) -> Transformer:
    """``build_model("llama3_2_1b", vocab_size=32000)``: a randomly initialised model of that shape."""
    return Transformer(model_args(name, **overrides))


def llama_tiny(**overrides) -> Transformer:
    return build_model("llama_tiny", **overrides)


def llama_125m(**overrides) -> Transformer:
    return build_model("llama_125m", **overrides)


def llama3_2_1b(**overrides) -> Transformer:
    return build_model("llama3_2_1b", **overrides)


def llama3_2_3b(**overrides) -> Transformer:
    return build_model("llama3_2_3b", **overrides)


def llama3_1_8b(**overrides) -> Transformer:
    return build_model("llama3_1_8b", **overrides)

"""Model presets: one small function per shape, each accepting overrides (``vocab_size`` above all)."""

from __future__ import annotations

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


PRESETS: dict[str, Callable[..., ModelArgs]] = {
    "llama_tiny": llama_tiny_args,
    "llama_125m": llama_125m_args,
    "llama3_2_1b": llama3_2_1b_args,
    "llama3_2_3b": llama3_2_3b_args,
    "llama3_1_8b": llama3_1_8b_args,
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

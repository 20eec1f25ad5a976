"""What every family's config.json shares: shape, RoPE, token ids; and the refusal of anything else.

A key is either read (it changes the model and Quarry implements it) or known to change nothing
Quarry computes (ids, dropout, bookkeeping); any other key, or a read key with a value Quarry does
not implement, is an error naming it, raised before a single weight is loaded.
"""

from __future__ import annotations

from typing import Any

from quarry.errors import QuarryError
from quarry.models.llama import ACTIVATIONS, FULL, SLIDING

# Keys that change nothing in the forward pass Quarry computes.
INERT = {
    "architectures", "model_type", "transformers_version", "_name_or_path", "torch_dtype", "dtype", "use_cache",
    "initializer_range", "attention_dropout", "bos_token_id", "eos_token_id", "pad_token_id",
    "max_position_embeddings", "output_attentions", "output_hidden_states", "return_dict", "id2label",
    "label2id", "problem_type", "tokenizer_class", "task_specific_params", "pretraining_tp",
    # Remote-code classes (Phi-3's hub configs name some): transformers uses its own class for a
    # model_type it knows unless trust_remote_code, and that class is the one Quarry matches.
    "auto_map",
}
# Keys every family reads.
SHAPE = {"vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
         "num_key_value_heads", "head_dim", "tie_word_embeddings", "rope_parameters", "rope_theta", "rope_scaling",
         "hidden_act"}
ROPE_TYPES = ("default", "llama3")


def fail(config: dict, message: str) -> QuarryError:
    return QuarryError(f"config.json (model_type {config.get('model_type')!r}): {message}")


def check_keys(config: dict, reads: set[str]) -> None:
    unknown = sorted(set(config) - INERT - SHAPE - reads)
    if unknown:
        raise fail(config, f"key {unknown[0]!r} is not implemented by Quarry (unknown keys: {', '.join(unknown)}); "
                           "refusing to load a model that might compute something else")


def require(config: dict, key: str, allowed: tuple) -> Any:
    value = config.get(key, allowed[0])
    if value not in allowed:
        raise fail(config, f"{key}={value!r} is not implemented by Quarry (supported: {', '.join(map(repr, allowed))})")
    return value


def rope(config: dict) -> tuple[float, dict | None, float]:
    """(theta, scaling or None, partial_rotary_factor) from either RoPE key style."""
    params = dict(config.get("rope_parameters") or config.get("rope_scaling") or {})
    theta = params.pop("rope_theta", None) or config.get("rope_theta") or 10000.0
    partial = float(params.pop("partial_rotary_factor", None) or config.get("partial_rotary_factor") or 1.0)
    kind = params.get("rope_type", params.get("type"))
    if kind in (None, "default"):
        params = {}
    elif kind not in ROPE_TYPES:
        raise fail(config, f"rope scaling type {kind!r} is not implemented by Quarry "
                           f"(supported: {', '.join(ROPE_TYPES)})")
    return float(theta), params or None, partial


def activation(config: dict, key: str = "hidden_act", default: str = "silu") -> str:
    name = config.get(key) or default
    if name not in ACTIVATIONS:
        raise fail(config, f"{key}={name!r} is not implemented by Quarry (supported: {', '.join(ACTIVATIONS)})")
    return name


def layer_types(config: dict, n_layers: int) -> list[str] | None:
    types = config.get("layer_types")
    if types is None:
        return None
    if len(types) != n_layers or set(types) - {FULL, SLIDING}:
        raise fail(config, f"layer_types {types!r}: Quarry implements {n_layers} of {FULL!r} / {SLIDING!r}")
    return list(types)


def shape(config: dict, *, norm_eps_key: str = "rms_norm_eps", norm_eps: float = 1e-6, tie: bool = False) -> dict:
    """The ModelArgs fields every family reads the same way."""
    theta, scaling, partial = rope(config)
    try:
        return dict(
            vocab_size=config["vocab_size"], dim=config["hidden_size"], n_layers=config["num_hidden_layers"],
            n_heads=config["num_attention_heads"], n_kv_heads=config.get("num_key_value_heads"),
            intermediate_size=config["intermediate_size"], head_dim=config.get("head_dim"),
            norm_eps=config.get(norm_eps_key, norm_eps), rope_theta=theta, rope_scaling=scaling,
            partial_rotary_factor=partial, max_seq_len=config.get("max_position_embeddings", 2048),
            tie_embeddings=bool(config.get("tie_word_embeddings", tie)))
    except KeyError as exc:
        raise QuarryError(f"config.json: missing key {exc.args[0]!r}") from None


def shape_to_hf(args, architecture: str, *, norm_eps_key: str = "rms_norm_eps") -> dict:
    """The config.json keys every family writes the same way (RoPE in the classic rope_theta /
    rope_scaling keys, which transformers 4.x reads as-is and 5.x converts to rope_parameters)."""
    return {
        "architectures": [architecture], "model_type": args.family, "vocab_size": args.vocab_size,
        "hidden_size": args.dim, "intermediate_size": args.intermediate_size, "num_hidden_layers": args.n_layers,
        "num_attention_heads": args.n_heads, "num_key_value_heads": args.n_kv_heads, "head_dim": args.head_dim,
        "hidden_act": args.activation, norm_eps_key: args.norm_eps, "rope_theta": args.rope_theta,
        "rope_scaling": dict(args.rope_scaling) if args.rope_scaling else None,
        "max_position_embeddings": args.max_seq_len, "tie_word_embeddings": args.tie_embeddings,
        "initializer_range": 0.02,
    }

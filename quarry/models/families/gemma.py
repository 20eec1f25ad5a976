"""Gemma and Gemma 2: RMSNorm scaling by (1 + weight), embeddings times sqrt(hidden size), a
GELU (tanh) gated MLP, tied embeddings. Gemma 2 adds norms after attention and the MLP, soft-caps
attention scores and logits, scales queries by ``query_pre_attn_scalar`` and alternates sliding-
window and full attention layers."""

from __future__ import annotations

from quarry.models.families.common import activation, check_keys, layer_types, require, shape, shape_to_hf
from quarry.models.llama import FULL, SLIDING, ModelArgs

ARCHITECTURES = {"gemma": "GemmaForCausalLM", "gemma2": "Gemma2ForCausalLM"}
TANH_GELU = "gelu_pytorch_tanh"


def _gelu(config: dict) -> str:
    key = "hidden_activation" if config["model_type"] == "gemma2" and "hidden_activation" in config else "hidden_act"
    name = config.get(key) or TANH_GELU
    # transformers reads the legacy "gelu" of the released Gemma configs as the tanh approximation.
    return activation({**config, key: TANH_GELU if name == "gelu" else name}, key)


def from_hf(config: dict) -> ModelArgs:
    kind = config["model_type"]
    common = {"rms_norm_eps", "attention_bias", "hidden_activation", "use_bidirectional_attention"}
    gemma2 = {"query_pre_attn_scalar", "sliding_window", "layer_types", "final_logit_softcapping",
              "attn_logit_softcapping", "cache_implementation"}
    check_keys(config, common | (gemma2 if kind == "gemma2" else set()))
    require(config, "use_bidirectional_attention", (None, False))
    if kind == "gemma":  # transformers 5 reads hidden_act; a different hidden_activation would be ambiguous
        require(config, "hidden_activation", (None, TANH_GELU))
    bias = bool(config.get("attention_bias"))
    args = dict(**shape(config, tie=True), family=kind, norm_offset=1.0, embed_scale=True, activation=_gelu(config),
                qkv_bias=bias, o_bias=bias)
    if kind == "gemma":
        return ModelArgs(**args)
    n = args["n_layers"]
    types = layer_types(config, n) or [SLIDING if (i + 1) % 2 else FULL for i in range(n)]
    return ModelArgs(**args, sandwich_norms=True, query_scale=config.get("query_pre_attn_scalar", 256),
                     attn_softcap=config.get("attn_logit_softcapping"),
                     final_softcap=config.get("final_logit_softcapping"),
                     sliding_window=config.get("sliding_window"), layer_types=types)


def to_hf(args: ModelArgs) -> dict:
    config = {**shape_to_hf(args, ARCHITECTURES[args.family]), "attention_bias": args.qkv_bias}
    if args.family == "gemma":
        return config
    config.pop("hidden_act")
    return {**config, "hidden_activation": args.activation, "query_pre_attn_scalar": args.query_scale,
            "attn_logit_softcapping": args.attn_softcap, "final_logit_softcapping": args.final_softcap,
            "sliding_window": args.sliding_window, "layer_types": args.layer_types}

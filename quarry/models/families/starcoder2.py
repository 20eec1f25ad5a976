"""StarCoder2: LayerNorm with bias, a plain (ungated) GELU MLP named ``c_fc`` / ``c_proj``, biases
on every projection when ``use_bias``, a sliding window, tied embeddings."""

from __future__ import annotations

from quarry.models.families.common import activation, check_keys, require, shape, shape_to_hf
from quarry.models.llama import ModelArgs

ARCHITECTURES = {"starcoder2": "Starcoder2ForCausalLM"}


def from_hf(config: dict) -> ModelArgs:
    check_keys(config, {"norm_epsilon", "use_bias", "sliding_window", "embedding_dropout", "residual_dropout",
                        "mlp_type", "norm_type"})
    require(config, "mlp_type", ("default",))  # the released configs carry these two, which transformers ignores
    require(config, "norm_type", ("layer_norm",))
    bias = bool(config.get("use_bias", True))
    return ModelArgs(**shape(config, norm_eps_key="norm_epsilon", norm_eps=1e-5, tie=True), family="starcoder2",
                     norm="layer", activation=activation(config, default="gelu_pytorch_tanh"), gated_mlp=False,
                     qkv_bias=bias, o_bias=bias, mlp_bias=bias, sliding_window=config.get("sliding_window"))


def to_hf(args: ModelArgs) -> dict:
    return {**shape_to_hf(args, ARCHITECTURES["starcoder2"], norm_eps_key="norm_epsilon"),
            "use_bias": args.mlp_bias, "sliding_window": args.sliding_window}

"""Qwen2 / Qwen2.5: the Llama block with biases on q, k and v; sliding windows on the layers from
``max_window_layers`` on when ``use_sliding_window``."""

from __future__ import annotations

from quarry.models.families.common import activation, check_keys, layer_types, require, shape, shape_to_hf
from quarry.models.llama import FULL, SLIDING, ModelArgs

ARCHITECTURES = {"qwen2": "Qwen2ForCausalLM"}


def from_hf(config: dict) -> ModelArgs:
    check_keys(config, {"rms_norm_eps", "use_sliding_window", "sliding_window", "max_window_layers", "layer_types",
                        "use_mrope"})
    require(config, "use_mrope", (False,))
    args = shape(config)
    window = config.get("sliding_window") if config.get("use_sliding_window") else None
    types = layer_types(config, args["n_layers"])
    if types is None and window is not None:  # as transformers derives them
        first = config.get("max_window_layers", 28)
        types = [SLIDING if i >= first else FULL for i in range(args["n_layers"])]
    return ModelArgs(**args, family="qwen2", activation=activation(config), qkv_bias=True,
                     sliding_window=window, layer_types=types)


def to_hf(args: ModelArgs) -> dict:
    types = args.layer_types or [SLIDING if args.sliding_window else FULL] * args.n_layers
    first = next((i for i, kind in enumerate(types) if kind == SLIDING), args.n_layers)
    return {**shape_to_hf(args, ARCHITECTURES["qwen2"]), "use_sliding_window": args.sliding_window is not None,
            "sliding_window": args.sliding_window, "max_window_layers": first, "layer_types": types}

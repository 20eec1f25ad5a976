"""Phi-3: the Llama block with q, k, v fused into ``qkv_proj`` and gate, up into ``gate_up_proj``.

The fused projections are kept as they are, under transformers' names: checkpoints load and
export with no split or merge, and LoRA adapts ``qkv_proj`` / ``gate_up_proj`` as PEFT does
(quarry.training.lora maps q/k/v_proj and gate/up_proj targets onto them). Phi-3's long-context
RoPE ("longrope", formerly "su") is not implemented and refused.
"""

from __future__ import annotations

from quarry.models.families.common import activation, check_keys, shape, shape_to_hf
from quarry.models.llama import ModelArgs

ARCHITECTURES = {"phi3": "Phi3ForCausalLM"}


def from_hf(config: dict) -> ModelArgs:
    check_keys(config, {"rms_norm_eps", "sliding_window", "partial_rotary_factor", "original_max_position_embeddings",
                        "embd_pdrop", "resid_pdrop"})
    return ModelArgs(**shape(config, norm_eps=1e-5), family="phi3", activation=activation(config),
                     fused_qkv=True, fused_gate_up=True, sliding_window=config.get("sliding_window"))


def to_hf(args: ModelArgs) -> dict:
    return {**shape_to_hf(args, ARCHITECTURES["phi3"]), "sliding_window": args.sliding_window,
            "partial_rotary_factor": args.partial_rotary_factor,
            "original_max_position_embeddings": args.max_seq_len}

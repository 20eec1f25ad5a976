"""The native Llama against transformers' LlamaForCausalLM, and the KV cache against recomputation."""

from __future__ import annotations

import pytest
import torch
from models_helpers import LLAMA3_SCALING
from transformers import LlamaConfig, LlamaForCausalLM

from quarry.models import PRESETS, ModelArgs, Transformer, build_model, llama_tiny
from quarry.models.checkpoint import config_to_hf


def hf_twin(model: Transformer) -> LlamaForCausalLM:
    """transformers' model with the same config and the very same weights (state_dict as-is)."""
    config = {k: v for k, v in config_to_hf(model.args).items() if k not in ("architectures", "model_type")}
    hf = LlamaForCausalLM(LlamaConfig(**config)).eval()
    missing, unexpected = hf.load_state_dict(model.state_dict(), strict=False)
    assert not unexpected and set(missing) <= {"lm_head.weight"}
    return hf


@pytest.mark.parametrize("overrides", [
    {},                                                   # GQA (4 query heads, 2 kv heads)
    {"n_kv_heads": 4, "tie_embeddings": True},            # multi-head, tied embeddings
    {"rope_scaling": LLAMA3_SCALING, "rope_theta": 500000.0},  # Llama-3 frequency scaling
    {"head_dim": 32, "n_kv_heads": 1},                    # head_dim decoupled from dim / n_heads
])
def test_logits_match_transformers(overrides):
    torch.manual_seed(1)
    model = llama_tiny(**overrides).eval()
    hf = hf_twin(model)
    tokens = torch.randint(0, model.args.vocab_size, (3, 80))  # longer than the original 32 context
    with torch.no_grad():
        diff = (model(tokens) - hf(tokens).logits).abs().max().item()
    assert diff < 1e-4


def test_state_dict_keys_are_hf_llama_keys(tiny_model):
    hf = hf_twin(tiny_model)
    assert set(tiny_model.state_dict()) == set(hf.state_dict())


def test_left_padding_mask_matches_transformers(tiny_model):
    hf = hf_twin(tiny_model)
    tokens = torch.randint(3, 512, (2, 12))
    mask = torch.ones(2, 12, dtype=torch.long)
    mask[1, :5] = 0
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    with torch.no_grad():
        ours = tiny_model(tokens, input_pos=positions, attention_mask=mask)
        theirs = hf(tokens, attention_mask=mask, position_ids=positions).logits
    real = mask.bool()
    assert (ours[real] - theirs[real]).abs().max().item() < 1e-4
    assert torch.isfinite(ours).all()  # padding queries never see an empty key set


def test_return_hidden_feeds_lm_head(tiny_model):
    tokens = torch.randint(0, 512, (2, 9))
    with torch.no_grad():
        hidden = tiny_model(tokens, return_hidden=True)
        assert hidden.shape == (2, 9, tiny_model.args.dim)
        assert torch.equal(tiny_model.lm_head(hidden), tiny_model(tokens))


def test_kv_cache_prefill_and_steps_equal_full_forward(tiny_model):
    tokens = torch.randint(0, 512, (2, 24))
    with torch.no_grad():
        full = tiny_model(tokens)
        tiny_model.setup_caches(batch_size=2, max_seq_len=32)
        assert tiny_model.caches_are_enabled()
        parts = [tiny_model(tokens[:, :10])] + [tiny_model(tokens[:, i:i + 1]) for i in range(10, 20)]
        parts.append(tiny_model(tokens[:, 20:]))
        assert (torch.cat(parts, dim=1) - full).abs().max().item() < 1e-5
        tiny_model.reset_caches()  # reuse without reallocating
        cache = tiny_model.layers[0].self_attn.kv_cache
        again = tiny_model(tokens)
        assert tiny_model.layers[0].self_attn.kv_cache is cache
        assert (again - full).abs().max().item() < 1e-5


def test_kv_cache_stores_only_key_value_heads(tiny_model):
    tiny_model.setup_caches(batch_size=3, max_seq_len=16, dtype=torch.bfloat16)
    cache = tiny_model.layers[1].self_attn.kv_cache
    args = tiny_model.args
    assert cache.k_cache.shape == (3, args.n_kv_heads, 16, args.head_dim)
    assert cache.k_cache.dtype == torch.bfloat16
    assert "k_cache" not in "".join(tiny_model.state_dict())  # caches never land in checkpoints
    with pytest.raises(ValueError, match="KV cache full"):
        tiny_model(torch.zeros(1, 17, dtype=torch.long))
    tiny_model.remove_caches()
    assert not tiny_model.caches_are_enabled()


def test_layers_are_the_decoder_blocks(tiny_model):
    assert len(list(tiny_model.layers)) == tiny_model.args.n_layers
    assert tiny_model.layers is tiny_model.model.layers


@pytest.mark.parametrize("name, billions", [
    ("llama3_2_1b", 1.236), ("llama3_2_3b", 3.213), ("llama3_1_8b", 8.030), ("mistral_7b", 7.242),
    ("qwen2_5_0_5b", 0.494), ("gemma_2b", 2.506), ("gemma2_2b", 2.614), ("phi3_mini", 3.821),
    ("starcoder2_3b", 3.030)])
def test_presets_have_the_published_parameter_counts(name, billions):
    with torch.device("meta"):
        model = build_model(name)
    assert abs(model.num_parameters() / 1e9 - billions) < 0.001


def test_presets_accept_vocab_overrides():
    with torch.device("meta"):
        for name in PRESETS:
            model = build_model(name, vocab_size=1000)
            assert model.lm_head.weight.shape[0] == 1000
    with torch.device("meta"):
        assert 120e6 < build_model("llama_125m").num_parameters() < 130e6
    with pytest.raises(ValueError, match="unknown model preset"):
        build_model("gpt2")
    with pytest.raises(ValueError, match="multiple of n_kv_heads"):
        ModelArgs(dim=64, n_heads=4, n_kv_heads=3)


def test_meta_init_then_materialise_keeps_tied_weights():
    with torch.device("meta"):
        model = llama_tiny(tie_embeddings=True)
    model.to_empty(device="cpu")
    model.init_weights()
    assert model.lm_head.weight is model.model.embed_tokens.weight
    assert torch.equal(model.layers[0].input_layernorm.weight, torch.ones(model.args.dim))
    assert 0.015 < model.layers[0].mlp.up_proj.weight.std().item() < 0.025
    assert torch.isfinite(model(torch.tensor([[1, 2, 3]]))).all()

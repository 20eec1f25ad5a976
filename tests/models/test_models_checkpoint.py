"""Checkpoints round-trip through transformers in both directions, sharded or not."""

from __future__ import annotations

import json

import pytest
import torch
from models_helpers import LLAMA3_SCALING
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from quarry.errors import QuarryError
from quarry.models import llama_tiny
from quarry.models.checkpoint import config_from_hf, config_to_hf, load_lineage, load_pretrained, save_pretrained


def logits_diff(ours, hf, tokens) -> float:
    with torch.no_grad():
        return (ours(tokens) - hf(tokens).logits).abs().max().item()


@pytest.mark.parametrize("overrides", [{}, {"tie_embeddings": True, "rope_scaling": LLAMA3_SCALING}])
def test_transformers_loads_what_quarry_saves(tmp_path, overrides, tokenizer):
    torch.manual_seed(2)
    model = llama_tiny(vocab_size=tokenizer.vocab_size, **overrides).eval()
    save_pretrained(model, tmp_path, tokenizer=tokenizer, lineage={"dataset_hash": "abc"})
    hf = LlamaForCausalLM.from_pretrained(tmp_path, dtype=torch.float32).eval()
    assert logits_diff(model, hf, torch.randint(0, tokenizer.vocab_size, (2, 60))) < 1e-4
    assert load_lineage(tmp_path) == {"dataset_hash": "abc"}
    hf_tokenizer = PreTrainedTokenizerFast.from_pretrained(tmp_path)
    assert hf_tokenizer.encode("def add(a, b):", add_special_tokens=False) == tokenizer.encode("def add(a, b):")
    assert json.loads((tmp_path / "config.json").read_text())["bos_token_id"] == tokenizer.bos_id


def test_quarry_loads_what_transformers_saves(tmp_path):
    torch.manual_seed(3)
    config = LlamaConfig(vocab_size=300, hidden_size=48, intermediate_size=96, num_hidden_layers=3,
                         num_attention_heads=6, num_key_value_heads=2, max_position_embeddings=16384,
                         rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0,
                                          "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                          "original_max_position_embeddings": 8192},
                         tie_word_embeddings=True, rms_norm_eps=1e-5)
    hf = LlamaForCausalLM(config).eval()
    hf.save_pretrained(tmp_path)
    model = load_pretrained(tmp_path)
    assert model.args.tie_embeddings and model.args.rope_scaling["factor"] == 32.0
    assert model.lm_head.weight is model.model.embed_tokens.weight
    assert logits_diff(model, hf, torch.randint(0, 300, (2, 50))) < 1e-4


def test_sharded_save_round_trips(tmp_path, tiny_model):
    save_pretrained(tiny_model, tmp_path, max_shard_size=40_000)
    index = json.loads((tmp_path / "model.safetensors.index.json").read_text())
    shards = sorted(set(index["weight_map"].values()))
    assert len(shards) > 2 and not (tmp_path / "model.safetensors").exists()
    assert set(index["weight_map"]) == set(tiny_model.state_dict())
    tokens = torch.randint(0, 512, (1, 20))
    with torch.no_grad():
        expected = tiny_model(tokens)
        assert torch.equal(load_pretrained(tmp_path)(tokens), expected)
    hf = LlamaForCausalLM.from_pretrained(tmp_path).eval()
    assert logits_diff(tiny_model, hf, tokens) < 1e-4
    save_pretrained(tiny_model, tmp_path)  # re-saving unsharded removes the old shards
    assert sorted(p.name for p in tmp_path.glob("model*")) == ["model.safetensors"]


def test_saves_are_byte_identical(tmp_path, tiny_model):
    save_pretrained(tiny_model, tmp_path / "a")
    save_pretrained(tiny_model, tmp_path / "b")
    for name in ("config.json", "model.safetensors", "lineage.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_load_casts_dtype(tmp_path, tiny_model):
    save_pretrained(tiny_model, tmp_path)
    model = load_pretrained(tmp_path, dtype=torch.bfloat16)
    assert model.lm_head.weight.dtype == torch.bfloat16
    assert model(torch.tensor([[1, 2, 3]])).dtype == torch.bfloat16


def test_config_round_trip():
    args = llama_tiny(rope_scaling=LLAMA3_SCALING, tie_embeddings=True).args
    assert config_from_hf(config_to_hf(args)) == args


def test_clear_errors(tmp_path, tiny_model):
    with pytest.raises(QuarryError, match="no config.json"):
        load_pretrained(tmp_path)
    save_pretrained(tiny_model, tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "num_hidden_layers": 3}))
    with pytest.raises(QuarryError, match="weights do not match"):
        load_pretrained(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(QuarryError, match="invalid JSON"):
        load_pretrained(tmp_path)

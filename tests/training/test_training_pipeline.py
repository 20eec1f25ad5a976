"""The recipes as the DAG runs them: a trained Quarry tokenizer, pretraining, then LoRA on top."""

from __future__ import annotations

import json

import pytest
from training_helpers import tiny_overrides

from quarry.recipes.registry import build_recipe


@pytest.mark.slow
def test_pretrain_then_lora_with_a_trained_tokenizer(dataset_dir, tmp_path):
    from quarry.config.training import TokenizerParams
    from quarry.stages.tokenizer import tokenizer_for
    from quarry.tokenizer import Tokenizer

    tokenizer = tokenizer_for(dataset_dir, tmp_path / "tokenizer", TokenizerParams(vocab_size=320, min_frequency=2))
    paths = {"tokenizer._component_": "quarry.tokenizer.Tokenizer.load", "tokenizer.path": tmp_path / "tokenizer",
             "model.vocab_size": 320}
    build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, tmp_path / "pretrain", max_steps=3,
                                                              **paths)).run()
    final = tmp_path / "pretrain" / "final"
    lineage = json.loads((final / "lineage.json").read_text())
    assert lineage["tokenizer"] == {"path": str(tmp_path / "tokenizer"), "hash": tokenizer.hash}
    assert Tokenizer.load(final).hash == tokenizer.hash  # the checkpoint carries its tokenizer

    build_recipe("lora_finetune", "tiny_lora", tiny_overrides(
        dataset_dir, tmp_path / "lora", max_steps=2, base_model=final, **paths)).run()
    lineage = json.loads((tmp_path / "lora" / "final" / "lineage.json").read_text())
    assert lineage["base_model"] == str(final) and lineage["recipe"] == "lora_finetune"
    assert (tmp_path / "lora" / "final" / "adapter" / "adapter_config.json").is_file()

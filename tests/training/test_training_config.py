"""Configs: overrides, component instantiation, and errors that name the bad key."""

from __future__ import annotations

import pytest
import torch

from quarry.errors import ConfigError
from quarry.recipes.registry import RECIPES, build_recipe, configs_for
from quarry.training.config import BUILTIN_DIR, apply_overrides, builtin_configs, config_path, instantiate, load_config


def test_overrides_parse_values_add_and_delete():
    cfg = {"optimizer": {"lr": 1.0, "betas": [0.9, 0.9]}, "seed": 1}
    out = apply_overrides(cfg, ["optimizer.lr=3e-4", "seed=7", "+extra.flag=true", "~optimizer.betas"])
    assert out == {"optimizer": {"lr": 3e-4}, "seed": 7, "extra": {"flag": True}}
    assert cfg["optimizer"]["lr"] == 1.0  # the input is not mutated


def test_unknown_override_names_key_and_lists_valid_ones():
    with pytest.raises(ConfigError, match=r"unknown key 'optimizer\.lrr'.*valid keys here: betas, lr"):
        apply_overrides({"optimizer": {"lr": 1, "betas": 2}}, ["optimizer.lrr=3"])


def test_instantiate_builds_component_with_runtime_arguments():
    params = [torch.nn.Parameter(torch.zeros(2))]
    opt = instantiate({"_component_": "torch.optim.SGD", "lr": 0.5}, params)
    assert isinstance(opt, torch.optim.SGD) and opt.param_groups[0]["lr"] == 0.5


def test_recipe_rejects_unknown_top_level_key(dataset_dir, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("recipe: pretrain\nbatch_sise: 4\n")
    with pytest.raises(ConfigError, match=r"unknown key 'batch_sise'.*batch_size"):
        build_recipe("pretrain", str(path))


def test_recipe_rejects_bad_component_argument(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("optimizer:\n  _component_: torch.optim.AdamW\n  learning_rate: 0.1\n")
    with pytest.raises(ConfigError, match=r"'optimizer\.learning_rate' for torch\.optim\.AdamW; valid keys: .*lr"):
        build_recipe("pretrain", str(path))


def test_recipe_rejects_unknown_nested_key_from_command_line():
    with pytest.raises(ConfigError, match=r"unknown key 'lora\.rnak'.*rank"):
        build_recipe("lora_finetune", "tiny_lora", ["lora.rnak=4"])


def test_config_for_another_recipe_is_refused():
    with pytest.raises(ConfigError, match="is for recipe 'lora_finetune'"):
        build_recipe("pretrain", "tiny_lora")


def test_every_builtin_config_validates_against_its_recipe():
    names = builtin_configs()
    assert names
    for recipe in RECIPES:
        for config in configs_for(recipe):
            build_recipe(recipe, config)  # raises on any unknown key
    assert {r for r in RECIPES if configs_for(r)} == set(RECIPES)


def test_unknown_builtin_config_lists_the_builtins():
    with pytest.raises(ConfigError, match="tiny_pretrain"):
        load_config("no_such_config")


def test_component_arguments_can_be_set_and_are_checked_by_signature():
    recipe = build_recipe("pretrain", "tiny_pretrain", [
        "tokenizer._component_=quarry.tokenizer.Tokenizer.load", "tokenizer.path=models/tokenizer",
        "model.vocab_size=8192"])
    assert recipe.cfg["tokenizer"] == {"_component_": "quarry.tokenizer.Tokenizer.load", "path": "models/tokenizer"}
    bad_argument = r"'tokenizer\.file' for quarry\.tokenizer\.Tokenizer\.load; valid keys: path"
    with pytest.raises(ConfigError, match=bad_argument):
        build_recipe("pretrain", "tiny_pretrain", ["tokenizer._component_=quarry.tokenizer.Tokenizer.load",
                                                   "tokenizer.file=x"])


def test_pipeline_overrides_apply_to_finetune_recipes():
    recipe = build_recipe("lora_finetune", "tiny_lora", ["model.vocab_size=8192", "base_model=models/pretrain/final"])
    assert recipe.cfg["base_model"] == "models/pretrain/final"


def test_built_in_configs_ship_inside_the_package_and_keep_their_old_names(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # outside a checkout, as from an installed wheel
    assert BUILTIN_DIR.parent.name == "quarry" and (BUILTIN_DIR / "dag_lora.yaml").is_file()
    assert config_path("dag_lora") == config_path("configs/dag_lora.yaml") == BUILTIN_DIR / "dag_lora.yaml"

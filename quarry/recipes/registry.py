"""Recipe names to recipe classes and the built-in configs made for each."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from quarry.errors import ConfigError
from quarry.records import JsonDict
from quarry.training.config import apply_overrides, builtin_configs, load_config, merge_defaults

RECIPES: dict[str, str] = {
    "pretrain": "quarry.recipes.pretrain:Pretrain",
    "full_finetune": "quarry.recipes.full_finetune:FullFinetune",
    "lora_finetune": "quarry.recipes.lora_finetune:LoRAFinetune",
    "qlora_finetune": "quarry.recipes.qlora_finetune:QLoRAFinetune",
    "dpo": "quarry.recipes.dpo:DPO",
}


def recipe_class(name: str):
    if name not in RECIPES:
        raise ConfigError(f"unknown recipe '{name}'; recipes: {', '.join(RECIPES)}")
    module, attr = RECIPES[name].split(":")
    return getattr(importlib.import_module(module), attr)


def configs_for(name: str) -> list[str]:
    """Built-in configs whose top-level ``recipe:`` key names this recipe."""
    import yaml

    found = []
    for stem, path in builtin_configs().items():
        head = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if head.get("recipe") == name:
            found.append(stem)
    return found


def build_recipe(name: str, config: str, overrides: Sequence[str] | Mapping[str, Any] = ()) -> Any:
    """Load and override a config for ``name``; returns the recipe (which validates it once), not
    yet set up. ``overrides``: ``key=value`` strings (the command line) or dotted keys to typed
    values (a flow's params)."""
    cls = recipe_class(name)
    cfg = load_config(config)
    declared = cfg.pop("recipe", name)
    if declared != name:
        raise ConfigError(f"config '{config}' is for recipe '{declared}', not '{name}'")
    return cls(apply_overrides(merge_defaults(cls.SCHEMA.defaults(), cfg), overrides))


def run_recipe(name: str, config: str, overrides: Sequence[str] | Mapping[str, Any] = ()) -> JsonDict:
    return build_recipe(name, config, overrides).run()

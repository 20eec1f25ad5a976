"""Training recipes: configs, pretrain / full / LoRA / QLoRA / DPO, FSDP2, exact resume."""

from quarry.training.config import apply_overrides, instantiate, load_config, validate
from quarry.training.registry import RECIPES, build_recipe, recipe_class, run_recipe

__all__ = ["RECIPES", "apply_overrides", "build_recipe", "instantiate", "load_config", "recipe_class",
           "run_recipe", "validate"]

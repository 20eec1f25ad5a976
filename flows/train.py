"""The training flows: a tokenizer from the dataset version (the tokenizer stage: its sample taken
by cached tasks over the shards), the dataset tokenised into token shards (the tokenize stage:
cached tasks over the shards), then the recipes params.yaml names (`train`: pretraining;
`finetune`: adapting the pretrained checkpoint), each a cached task whose key covers the
dataset's content, the tokenizer and the recipe settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow

from flows.paths import recipe_paths
from quarry.config import Params
from quarry.engine import run_stage
from quarry.config.training import RecipeRun
from quarry.errors import ConfigError
from quarry.config.values import load_params
from quarry.recipes.registry import run_recipe
from quarry.recipes.subsets import recipe_subset
from quarry.records import JsonDict
from quarry.stages.tokenize import TOKENIZE, TokenizeArgs
from quarry.stages.tokenizer import TOKENIZER
from tasks.caching import cached_task, run_verified
from tasks.executor import PrefectExecutor


@cached_task(outputs=("output_dir",), task_run_name="{recipe} -> {output_dir}", retries=0)
def recipe_task(recipe: str, config: str, overrides: dict[str, Any], output_dir: str, inputs: list[Path]) -> dict:
    """Run one recipe with ``overrides`` (dotted keys to typed values, set as they are); ``inputs``
    (dataset, tokenizer, base model) only key the cache."""
    result = run_recipe(recipe, config, {**overrides, "output_dir": output_dir})
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in result.items()}


@flow(name="tokenizer")
def tokenizer(dataset: str, out_dir: str, params_file: str | None = None,
              params: Params | None = None) -> JsonDict:
    """The tokenizer of the dataset version (the tokenizer stage: its train split sampled by cached
    tasks over the shards); returns its hash, vocabulary size and dataset hash."""
    return run_stage(TOKENIZER, Path(dataset), Path(out_dir), load_params(params_file, params), PrefectExecutor()).result


@flow(name="tokenize")
def tokenize(dataset: str, tokenizer_dir: str, out_dir: str, params_file: str | None = None,
             params: Params | None = None) -> JsonDict:
    """Token shards of the dataset version with the trained tokenizer; returns the manifest."""
    return run_stage(TOKENIZE, Path(dataset), Path(out_dir), load_params(params_file, params), PrefectExecutor(),
                     args=TokenizeArgs(Path(tokenizer_dir))).result


@flow(name="train")
def train(section: str = "train", params_file: str | None = None, params: Params | None = None) -> JsonDict:
    """Run the recipe of params.yaml ``section`` (train or finetune)."""
    return run_section(section, params_file, params)


@flow(name="finetune")
def finetune(params_file: str | None = None, params: Params | None = None) -> JsonDict:
    """Run the recipe of params.yaml ``finetune`` (the pretrained checkpoint adapted)."""
    return run_section("finetune", params_file, params)


def run_section(section: str, params_file: str | None = None, params: Params | None = None) -> JsonDict:
    settings = load_params(params_file, params)
    spec = getattr(settings, section, None)
    if not isinstance(spec, RecipeRun):
        raise ConfigError(f"params: '{section}' is not a recipe section (train, finetune)")
    # The pipeline's folders win over the section's own: they are the outs dvc.yaml tracks.
    overrides = {**spec.overrides, **recipe_paths(section, settings)}
    overrides.update(recipe_subset(section, spec, overrides))  # checked before anything trains
    output_dir = str(overrides.pop("output_dir"))
    inputs = [Path(str(overrides[key])) for key in ("dataset.path", "dataset.tokens", "tokenizer.path", "base_model")
              if key in overrides]
    (result,) = run_verified(recipe_task, [{
        "recipe": spec.recipe, "config": spec.config, "output_dir": output_dir, "inputs": inputs,
        "overrides": overrides}])
    return result

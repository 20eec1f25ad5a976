"""The folders the DAG reads and writes, from params.yaml `pipeline.paths` (dvc.yaml uses the
same keys through `${pipeline.paths.*}`, so both drivers build the same thing)."""

from __future__ import annotations

from typing import Any

DEFAULT_PATHS = {
    "snapshot": "data/snapshot",
    "curated": "data/curated",
    "dataset": "data/datasets/default",
    "audit": "reports/audit.json",
    "tokenizer": "models/tokenizer",
    "tokens": "data/tokens",
    "pretrain": "models/pretrain",
    "finetune": "models/lora",
    "reports": "reports/eval",
    "metrics": "reports/metrics.json",
}


def pipeline_paths(params: dict[str, Any]) -> dict[str, str]:
    return {**DEFAULT_PATHS, **((params.get("pipeline") or {}).get("paths") or {})}


def recipe_paths(section: str, params: dict[str, Any]) -> dict[str, Any]:
    """The overrides a params section's recipe gets from the pipeline layout: where its dataset,
    the trained tokenizer, its base model and its output live."""
    paths = pipeline_paths(params)
    common = {"dataset.path": paths["dataset"], "tokenizer.path": paths["tokenizer"]}
    if section == "train":
        common["dataset.tokens"] = paths["tokens"]  # the tokenize stage's shards of the same dataset
    if section == "train" and (vocab := (params.get("tokenizer") or {}).get("vocab_size")):
        common["model.vocab_size"] = vocab  # the model's embedding matches the tokenizer it is trained with
    if section == "finetune":
        return {**common, "base_model": f"{paths['pretrain']}/final", "output_dir": paths["finetune"]}
    return {**common, "output_dir": paths["pretrain"]}

"""params.yaml sections of the training stages: tokenizer, tokenize, train, finetune, evaluate."""

from __future__ import annotations

from typing import Any

from pydantic import Field, PositiveInt, model_validator

from quarry.config.base import Section
from quarry.config.compute import Device, Dtype


class SpecialTokens(Section):
    """Control tokens; a mapping that names no ``pad`` pads with its ``eos`` (as Llama does)."""

    bos: str = "<|begin_of_text|>"
    eos: str = "<|end_of_text|>"
    pad: str = "<|pad|>"

    @model_validator(mode="before")
    @classmethod
    def _pad_is_eos(cls, value: Any) -> Any:
        if isinstance(value, dict) and value and "pad" not in value:
            return {**value, "pad": value.get("eos", cls.model_fields["eos"].default)}
        return value


class TokenizerParams(Section):
    key = "tokenizer"

    vocab_size: int = Field(default=8192, ge=260)   # byte-level BPE: 256 bytes + specials at least
    min_frequency: PositiveInt = 2
    special_tokens: SpecialTokens = SpecialTokens()
    # MB of train-split text it learns from, chosen by a hash of each document's id and stratified
    # by subset (quarry.datasets.sample); null: the whole split
    sample_mb: float | None = Field(default=256.0, gt=0)
    # a tokenizer.json, a folder holding one (a model's own) or a hub id, used instead of training one
    path: str | None = None


class TokenizeParams(Section):
    key = "tokenize"

    splits: tuple[str, ...] = ("train", "validation")
    subset: str | None = None           # only this pile_set_name; null: every subset
    batch_size: PositiveInt = 512       # documents per encode call (changes no output byte)
    shard_mb: float = Field(default=64.0, gt=0)  # text per token shard: a larger record shard is cut
                                        # into runs of its records (one token stream all the same)


class RecipeRun(Section):
    """A recipe of quarry.training run by the DAG: ``quarry run <recipe> --config <config> k=v ...``."""

    recipe: str
    config: str
    overrides: dict[str, Any] = {}      # dotted config keys; folders come from pipeline.paths


class TrainParams(RecipeRun):
    key = "train"

    recipe: str = "pretrain"
    config: str = "dag_pretrain"


class FinetuneParams(RecipeRun):
    key = "finetune"

    recipe: str = "lora_finetune"
    config: str = "dag_lora"
    # A checkpoint folder or hub id to adapt instead of the DAG's pretrained model; its own
    # tokenizer.json then tokenizes the dataset (any family of quarry.models.families).
    base_model: str | None = None


class EvaluateParams(Section):
    key = "evaluate"

    split: str = "test"
    subsets: list[str] | None = None    # only these pile_set_names; null: every subset
    max_docs: PositiveInt | None = None
    context_len: PositiveInt | None = None    # null: the model's max_seq_len
    stride: PositiveInt | None = None         # null: half the context
    batch_size: PositiveInt = 8
    device: Device = "auto"             # auto | cpu | cuda[:N] | mps
    dtype: Dtype = "float32"            # float32 | bfloat16 | float16 (or fp32, bf16, fp16)
    mlflow: bool = True
    experiment: str = "quarry"
    register_model: str | None = None

"""Training recipe configs as pydantic models: the schema a config is checked against (by every
recipe and by `quarry validate`) and the only place its defaults live.

The YAML stays torchtune's: a ``_component_`` node names a callable and its sibling keys are its
keyword arguments (checked against the callable's signature, quarry.training.config), ``key=value``
overrides, ``${output_dir}`` interpolation. The schema checks the types of every other key; a
null value is accepted anywhere (it leaves the key to the recipe). A run merges its config onto
``defaults()`` as plain values, so what it records and hashes is what the file says.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from quarry.config.compute import Device, Dtype

Component = dict[str, Any] | None   # {_component_: dotted.path, **kwargs}; None: not used


class Node(BaseModel):
    # strict: 1 is no bool and "3" no int, as a config means them; a number is accepted for a float
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _null_is_unset(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: v for k, v in value.items() if not (v is None and k in cls.model_fields)}
        return value


class DatasetConfig(Node):
    path: str | None = None
    # a token-shard folder (`quarry flow tokenize`) of dataset.path; null: tokenised on the first
    # run into the project cache (.quarry/tokens)
    tokens: str | None = None
    split: str = "train"
    subset: str | None = None
    seq_len: int = 128
    shuffle: bool = True
    shuffle_block: int = 1024           # windows per shuffle block
    document_mask: bool = False
    max_docs: int | None = None
    name: str | None = None


class LossConfig(Node):
    chunk_tokens: int = 4096


class FsdpConfig(Node):
    reshard_after_forward: bool = True
    param_dtype: Dtype | None = None
    reduce_dtype: Dtype = "fp32"


class ValidationConfig(Node):
    every_n_steps: int = 0
    split: str = "validation"
    max_docs: int = 64
    batch_size: int = 8


class MlflowConfig(Node):
    enabled: bool = False
    experiment: str = "quarry-train"
    run_name: str | None = None


class RecipeConfig(Node):
    """The keys every recipe reads (quarry.recipes.base.Recipe)."""

    output_dir: str = "models/run"
    seed: int = 0
    device: Device = "auto"
    dtype: Dtype = "fp32"
    model: Component = {"_component_": "quarry.models.llama_tiny"}
    tokenizer: Component = {"_component_": "quarry.training.data.ByteTokenizer"}
    dataset: DatasetConfig = DatasetConfig()
    optimizer: Component = {"_component_": "torch.optim.AdamW", "lr": 3e-4, "weight_decay": 0.0}
    lr_scheduler: Component = {"_component_": "quarry.training.schedules.cosine_with_warmup", "warmup_steps": 0}
    loss: LossConfig = LossConfig()
    batch_size: int = 8
    gradient_accumulation_steps: int = 1
    epochs: int = 1
    max_steps: int | None = None
    clip_grad_norm: float = 1.0
    compile: bool = False
    activation_checkpointing: bool = False
    fsdp: FsdpConfig = FsdpConfig()
    save_every_n_steps: int = 0
    keep_last_n_checkpoints: int = 2
    resume: bool = False
    validation: ValidationConfig = ValidationConfig()
    log_every_n_steps: int = 10
    mlflow: MlflowConfig = MlflowConfig()
    progress: bool = True

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """The defaults as the plain mapping a run's config is merged onto."""
        return cls().model_dump()


class FinetuneConfig(RecipeConfig):
    model: Any = None                   # unused: the architecture comes from base_model's config.json
    base_model: str | None = None       # a folder save_pretrained wrote (Quarry's or transformers'), or a hub id


class LoraConfig(Node):
    rank: int = 8
    alpha: float = 16.0
    dropout: float = 0.0
    target_modules: list[str] | str = ["q_proj", "v_proj"]   # module names, or "all-linear"
    merge_on_export: bool = True
    dtype: Dtype | None = None


class LoraFinetuneConfig(FinetuneConfig):
    lora: LoraConfig = LoraConfig()


class QuantizeConfig(Node):
    """nf4: double_quant, blocksize, compute_dtype apply; int8: threshold (LLM.int8 outlier magnitude)."""

    mode: str = "nf4"
    double_quant: bool = True
    blocksize: int = 64
    compute_dtype: Dtype = "bf16"
    threshold: float = 6.0
    target_modules: list[str] = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


class QLoraFinetuneConfig(LoraFinetuneConfig):
    dtype: Dtype = "bf16"
    quantize: QuantizeConfig = QuantizeConfig()


class DpoSettings(Node):
    beta: float = 0.1
    label_smoothing: float = 0.0
    reference: str = "model"


class DpoConfig(FinetuneConfig):
    dpo: DpoSettings = DpoSettings()

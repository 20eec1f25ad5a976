"""Training building blocks the recipes (quarry.recipes) share: configs, data, losses, LoRA,
quantisation, FSDP2, checkpointing, metrics."""

from quarry.training.config import apply_overrides, instantiate, load_config, validate

__all__ = ["apply_overrides", "instantiate", "load_config", "validate"]

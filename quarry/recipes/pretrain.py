"""Pretraining from scratch on a dataset version: packed sequences, document-aware loss."""

from __future__ import annotations

from quarry.recipes.base import Recipe


class Pretrain(Recipe):
    """A randomly initialised model (``model._component_``) trained on ``dataset.path``."""

    name = "pretrain"

"""Learning-rate schedules with linear warm-up, as LambdaLR factories (state_dict-able for resume)."""

from __future__ import annotations

import math

import torch
from torch.optim.lr_scheduler import LambdaLR


def cosine_with_warmup(optimizer: torch.optim.Optimizer, num_training_steps: int, warmup_steps: int = 0,
                       min_lr_ratio: float = 0.1) -> LambdaLR:
    """Linear warm-up to the base lr, then a half cosine down to ``min_lr_ratio`` of it."""
    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / max(1, warmup_steps)
        progress = (step - warmup_steps) / max(1, num_training_steps - warmup_steps)
        return min_lr_ratio + (1 - min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
    return LambdaLR(optimizer, factor)


def linear_with_warmup(optimizer: torch.optim.Optimizer, num_training_steps: int, warmup_steps: int = 0,
                       min_lr_ratio: float = 0.0) -> LambdaLR:
    """Linear warm-up, then linear decay to ``min_lr_ratio`` of the base lr."""
    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / max(1, warmup_steps)
        progress = (step - warmup_steps) / max(1, num_training_steps - warmup_steps)
        return min_lr_ratio + (1 - min_lr_ratio) * max(0.0, 1 - progress)
    return LambdaLR(optimizer, factor)


def constant_with_warmup(optimizer: torch.optim.Optimizer, num_training_steps: int, warmup_steps: int = 0) -> LambdaLR:
    return LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / max(1, warmup_steps)))

"""What a run reports while it trains: a rich progress bar and MLflow metrics every N steps."""

from __future__ import annotations

import contextlib
import resource
import sys
import time
from typing import Any

import torch


def peak_memory_gib(device: torch.device) -> float:
    """Peak accelerator memory allocated, or the process's peak resident set on CPU."""
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**30
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**30 if sys.platform == "darwin" else rss / 2**20


class Throughput:
    """Tokens per second since the last ``take()``."""

    def __init__(self) -> None:
        self.tokens = 0
        self.start = time.perf_counter()

    def add(self, tokens: int) -> None:
        self.tokens += tokens

    def take(self) -> float:
        now = time.perf_counter()
        rate = self.tokens / max(now - self.start, 1e-9)
        self.tokens, self.start = 0, now
        return rate


class Reporter:
    """Progress bar (main rank, when enabled) and MLflow logging (when a run is open)."""

    def __init__(self, total_steps: int, start_step: int, *, enabled: bool, mlflow: Any = None,
                 description: str = "train"):
        self.mlflow = mlflow
        self._stack = contextlib.ExitStack()
        self.progress = None
        if enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TextColumn("{task.fields[status]}"), TimeRemainingColumn(), transient=False)
            self._stack.enter_context(self.progress)
            self.task = self.progress.add_task(description, total=total_steps, completed=start_step, status="")

    def step(self, step: int, metrics: dict[str, float], *, log: bool) -> None:
        if self.progress is not None:
            status = (f"loss {metrics.get('loss', float('nan')):.4f}  "
                      f"{metrics.get('tokens_per_s', 0):,.0f} tok/s  {metrics.get('peak_mem_gib', 0):.2f} GiB")
            self.progress.update(self.task, completed=step, status=status)
        if log and self.mlflow is not None:
            self.mlflow.log_metrics({k: float(v) for k, v in metrics.items()}, step=step)

    def log(self, step: int, metrics: dict[str, float]) -> None:
        if self.mlflow is not None:
            self.mlflow.log_metrics({k: float(v) for k, v in metrics.items()}, step=step)

    def close(self) -> None:
        self._stack.close()

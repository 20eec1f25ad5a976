"""Helpers shared by the training tests."""

from __future__ import annotations

import random
from pathlib import Path

WORDS = ("def return import class self value items for while if else print yield lambda none true "
         "false with open read write data model train loss step").split()


def make_docs(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    records = []
    for i in range(n):
        lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8))) for _ in range(rng.randint(2, 6))]
        split = "validation" if i % 16 == 0 else "train"
        records.append({"text": "\n".join(lines), "meta": {"id": f"doc-{i}", "pile_set_name": "code", "split": split,
                                                          "origin": f"https://example.org/repo-{i % 3}"}})
    return records


def tiny_overrides(dataset: Path, out: Path, **extra) -> list[str]:
    """Small and fast: 2-layer model, 32-token windows, no MLflow, no progress bar."""
    base = {"dataset.path": dataset, "output_dir": out, "dataset.seq_len": 32, "batch_size": 4,
            "mlflow.enabled": "false", "progress": "false", "save_every_n_steps": 0,
            "validation.every_n_steps": 0}
    base.update(extra)
    return [k if k.startswith("~") else f"{k}={v}" for k, v in base.items()]


def weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


class WideByteTokenizer:
    """UTF-8 bytes with control tokens past 65 535: a vocabulary that needs uint32 token shards."""

    vocab_size = 70_003
    bos_id, eos_id, pad_id = 70_000, 70_001, 70_002
    hash = "wide-bytes-test"

    def encode(self, text: str, bos: bool = True, eos: bool = True) -> list[int]:
        return [self.bos_id] * bos + list(text.encode("utf-8")) + [self.eos_id] * eos


class Killed(Exception):
    """Raised from a recipe's on_step hook: the run dies there, as if killed."""


def kill_at(step: int):
    def hook(done: int) -> None:
        if done == step:
            raise Killed
    return hook

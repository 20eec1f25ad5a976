"""Fixtures for the training tests: a small real dataset folder and a tiny pretrained checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest
from training_helpers import make_docs, tiny_overrides


@pytest.fixture(scope="session")
def dataset_dir(tmp_path_factory) -> Path:
    from quarry.records import write_records

    folder = tmp_path_factory.mktemp("dataset")
    docs = make_docs(240)
    write_records(folder / "part-00000.jsonl.zst", docs[:120])
    write_records(folder / "part-00001.jsonl.zst", docs[120:])
    return folder


@pytest.fixture(scope="session")
def base_checkpoint(dataset_dir, tmp_path_factory) -> Path:
    """A tiny model pretrained for a few steps and exported with save_pretrained."""
    from quarry.training.registry import build_recipe

    out = tmp_path_factory.mktemp("pretrained")
    recipe = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, out, max_steps=8))
    recipe.run()
    return out / "final"

"""Fixtures for the training tests: a small real dataset folder and a tiny pretrained checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest
from training_helpers import make_docs, tiny_overrides


@pytest.fixture(scope="session")
def dataset_dir(tmp_path_factory) -> Path:
    """A real dataset version: curated shards assembled into train / validation splits + manifest."""
    from quarry.stages.assemble import assemble
    from quarry.records import write_records

    raw = tmp_path_factory.mktemp("curated")
    docs = make_docs(240)
    write_records(raw / "part-00000.jsonl.zst", docs[:120])
    write_records(raw / "part-00001.jsonl.zst", docs[120:])
    version = tmp_path_factory.mktemp("datasets") / "code-v1"
    assemble(raw, version, {"assemble": {"splits": {"train": 0.9, "validation": 0.1}}}, register=False)
    return version


@pytest.fixture(scope="session")
def base_checkpoint(dataset_dir, tmp_path_factory) -> Path:
    """A tiny model pretrained for a few steps and exported with save_pretrained."""
    from quarry.recipes.registry import build_recipe

    out = tmp_path_factory.mktemp("pretrained")
    recipe = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, out, max_steps=8))
    recipe.run()
    return out / "final"

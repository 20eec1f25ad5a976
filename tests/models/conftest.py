"""Tiny models and tokenizers built on the spot (nothing is downloaded)."""

from __future__ import annotations

import pytest
import torch
from models_helpers import CORPUS

from quarry.models import llama_tiny
from quarry.tokenizer import train_tokenizer


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny matmuls run fastest on one thread; more only contend on a shared machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def tiny_model():
    torch.manual_seed(0)
    return llama_tiny().eval()


@pytest.fixture(scope="session")
def tokenizer():
    return train_tokenizer(CORPUS, vocab_size=400)

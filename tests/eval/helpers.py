"""Tiny real components for the evaluation tests: a byte tokenizer and small causal models."""

from __future__ import annotations

import torch


class ByteTokenizer:
    """One token per UTF-8 byte; BOS is id 256."""

    bos_id = 256
    eos_id = 257
    vocab_size = 258

    def encode(self, text: str, bos: bool = False, eos: bool = False) -> list[int]:
        return [self.bos_id] * bos + list(text.encode("utf-8")) + [self.eos_id] * eos


class UniformByteModel(torch.nn.Module):
    """Equal logits over the 256 byte values, whatever the input."""

    def forward(self, tokens: torch.Tensor, attention_mask=None) -> torch.Tensor:
        return torch.zeros(*tokens.shape, 256)


class BigramModel(torch.nn.Module):
    """Logits depend on the current token only: any window with one token of context scores alike."""

    def __init__(self, vocab: int = 258, seed: int = 0):
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        self.table = torch.nn.Parameter(torch.randn(vocab, vocab, generator=generator) * 2)

    def forward(self, tokens: torch.Tensor, attention_mask=None) -> torch.Tensor:
        return self.table[tokens]


def tiny_llama(vocab: int = 258, seed: int = 0, context: int = 64):
    """A randomly initialised transformers Llama small enough for CPU tests."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=context,
                         bos_token_id=256, eos_token_id=257, pad_token_id=257)
    model = LlamaForCausalLM(config).eval()
    return model


DOCS = [
    ("python", "def add(a, b):\n    return a + b\n" * 3),
    ("python", "import os\nprint(os.getcwd())\n"),
    ("prose", "The quick brown fox jumps over the lazy dog. Ünïcödé bytes count too — ✓."),
    ("prose", "x"),
    ("prose", ""),
]

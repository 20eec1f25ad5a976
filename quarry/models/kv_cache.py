"""A preallocated key/value cache for one attention layer.

It stores only the key/value heads (grouped-query attention shares them across query heads), in
slots filled left to right; ``update`` appends the new keys and values and returns every slot so
far. One cache serves many generate calls: ``reset`` rewinds it without reallocating.
"""

from __future__ import annotations

import torch
from torch import nn


class KVCache(nn.Module):
    def __init__(self, batch_size: int, max_seq_len: int, n_kv_heads: int, head_dim: int,
                 dtype: torch.dtype, device: torch.device | str | None = None):
        super().__init__()
        shape = (batch_size, n_kv_heads, max_seq_len, head_dim)
        self.register_buffer("k_cache", torch.zeros(shape, dtype=dtype, device=device), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape, dtype=dtype, device=device), persistent=False)
        self.size = 0  # slots filled

    @property
    def batch_size(self) -> int:
        return self.k_cache.shape[0]

    @property
    def max_seq_len(self) -> int:
        return self.k_cache.shape[2]

    def reset(self) -> None:
        self.size = 0

    def update(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append k, v (B, n_kv_heads, T, head_dim); return keys and values of all filled slots."""
        b, _, t, _ = k.shape
        end = self.size + t
        if end > self.max_seq_len:
            raise ValueError(f"KV cache full: {end} tokens > max_seq_len {self.max_seq_len}")
        if b > self.batch_size:
            raise ValueError(f"batch of {b} exceeds the cache's batch size {self.batch_size}")
        self.k_cache[:b, :, self.size:end] = k
        self.v_cache[:b, :, self.size:end] = v
        self.size = end
        return self.k_cache[:b, :, :end], self.v_cache[:b, :, :end]

    def reorder(self, rows: torch.Tensor) -> None:
        """Replace row i by row rows[i] (beam search)."""
        n = rows.numel()
        self.k_cache[:n] = self.k_cache.index_select(0, rows)
        self.v_cache[:n] = self.v_cache.index_select(0, rows)

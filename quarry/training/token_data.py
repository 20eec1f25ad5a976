"""Training windows read from token shards by memory map (written by quarry.training.tokens).

The shards of a split form one virtual token stream cut into ``seq_len`` windows, exactly as
``PackedSequences`` packs documents in memory: same tokens, same labels, same document ids. Only
the window being read is touched, so memory does not grow with the dataset; the document
boundaries (the ``.idx`` offsets) give the label mask and the per-document attention mask.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import torch

from quarry.errors import ConfigError
from quarry.training.data import window_batch
from quarry.training.tokens import read_manifest


class TokenShards:
    """Windows over one split of a token-shard folder. Items: tokens, labels, doc_ids, input_pos."""

    def __init__(self, folder: str | os.PathLike, split: str, seq_len: int, *, max_docs: int | None = None,
                 pad_id: int | None = None):
        self.folder, self.split, self.seq_len = Path(folder), split, seq_len
        self.manifest = read_manifest(folder)
        if split not in self.manifest["splits"]:
            raise ConfigError(f"{folder}: no split '{split}' in the token shards; "
                              f"splits: {', '.join(self.manifest['splits'])}")
        info = self.manifest["tokenizer"]
        dtype = np.dtype(info["dtype"])
        self.pad_id = pad_id if pad_id is not None else next(
            i for i in (info.get("pad_id"), info.get("eos_id"), 0) if i is not None and i >= 0)
        self.tokens: list[np.ndarray] = []
        self.offsets: list[np.ndarray] = []
        starts, doc_bases, docs_left = [0], [0], max_docs
        for shard in self.manifest["splits"][split]["shards"]:
            if docs_left is not None and docs_left <= 0:
                break
            base = self.folder / split / shard["name"]
            offsets = _memmap(f"{base}.idx", np.dtype("<i8"))
            if docs_left is not None and shard["documents"] > docs_left:
                offsets = offsets[: docs_left + 1]
            n_docs = len(offsets) - 1
            if n_docs == 0:
                continue
            self.tokens.append(_memmap(f"{base}.bin", dtype)[: int(offsets[-1])])
            self.offsets.append(offsets)
            starts.append(starts[-1] + int(offsets[-1]))
            doc_bases.append(doc_bases[-1] + n_docs)
            if docs_left is not None:
                docs_left -= n_docs
        self.starts = np.asarray(starts, dtype=np.int64)      # token start of every shard, then the end
        self.doc_bases = np.asarray(doc_bases, dtype=np.int64)
        self.total = int(self.starts[-1])
        if self.total == 0:
            raise ConfigError(f"{folder}: split '{split}' has no documents to train on")

    def __len__(self) -> int:
        return max(1, math.ceil((self.total - 1) / self.seq_len))

    @property
    def documents(self) -> int:
        return int(self.doc_bases[-1])

    def read(self, starts: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
        """Tokens and document ids of stream positions [start, start + width) for every start, as
        [len(starts), width] arrays; pad and -1 past the end. One gather per shard the windows touch."""
        pos = np.asarray(starts, dtype=np.int64)[:, None] + np.arange(width, dtype=np.int64)
        tokens = np.full(pos.shape, self.pad_id, dtype=np.int64)
        docs = np.full(pos.shape, -1, dtype=np.int64)
        inside = pos < self.total
        shard = np.searchsorted(self.starts[1:-1], pos, side="right")  # the shard of every position
        shard[~inside] = -1
        for s in np.flatnonzero(np.bincount(shard[inside], minlength=len(self.tokens))):
            here = shard == s
            local = pos[here] - self.starts[s]
            tokens[here] = self.tokens[s][local]
            docs[here] = np.searchsorted(self.offsets[s], local, side="right") - 1 + self.doc_bases[s]
        return tokens, docs

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return {k: v[0] for k, v in self.batch([index]).items()}

    def batch(self, indices: list[int] | np.ndarray) -> dict[str, torch.Tensor]:
        """The samples ``indices`` as one batch [B, seq_len]."""
        tokens, docs = self.read(np.asarray(indices, dtype=np.int64) * self.seq_len, self.seq_len + 1)
        return window_batch(torch.from_numpy(tokens), torch.from_numpy(docs), self.seq_len)


def _memmap(path: str, dtype: np.dtype) -> np.ndarray:
    size = os.path.getsize(path) // dtype.itemsize
    if size == 0:
        return np.zeros(0, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", shape=(size,))


def check_tokens(manifest: dict, tokenizer_hash: str, dataset_version: str | None, folder: str | os.PathLike) -> None:
    """Refuse token shards made with another tokenizer or from another dataset version."""
    made_with = manifest["tokenizer"]["hash"]
    if made_with != tokenizer_hash:
        raise ConfigError(f"{folder}: token shards were made with tokenizer {made_with[:12]}, "
                          f"the recipe's tokenizer is {tokenizer_hash[:12]}")
    made_from = manifest["dataset"]["version"]
    if dataset_version and made_from != dataset_version:
        raise ConfigError(f"{folder}: token shards were made from dataset {str(made_from)[:12]}, "
                          f"dataset.path is {dataset_version[:12]}")


"""Training data: packed sequences from a dataset version, and preference pairs for DPO.

Packing concatenates documents (each as BOS + tokens + EOS) into one stream cut into fixed
windows. A label whose token belongs to another document than its input position is ignored,
so the loss never asks a document to predict the start of the next; ``doc_ids`` let the model
also restrict attention to the current document (``document_mask`` in the config).
Sample order is a permutation seeded by (seed, epoch), so a data position (epoch, step) names
exactly which samples come next: that is what exact resume restores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np
import orjson
import torch

from quarry import datasets
from quarry.errors import ConfigError
from quarry.records import JsonDict
from quarry.training.losses import IGNORE_INDEX


class ByteTokenizer:
    """UTF-8 bytes as tokens (ids 0-255) plus BOS/EOS/PAD: a tokenizer needing no training."""

    vocab_size = 259
    bos_id, eos_id, pad_id = 256, 257, 258

    def encode(self, text: str, bos: bool = True, eos: bool = True) -> list[int]:
        ids = list(text.encode("utf-8"))
        return ([self.bos_id] if bos else []) + ids + ([self.eos_id] if eos else [])

    def decode(self, ids: Iterable[int]) -> str:
        return bytes(i for i in ids if i < 256).decode("utf-8", errors="replace")

    @property
    def hash(self) -> str:
        return "bytes-utf8-v1"


def open_records(source: str | Path, split: str | None = None, subset: str | None = None) -> Iterator[JsonDict]:
    """Records of a dataset version (or any folder of shards), optionally one split and one subset."""
    yield from datasets.open(str(source), split=split, subset=subset)


@dataclass
class PackedSequences:
    """Fixed-length windows over a packed token stream. Items: tokens, labels, doc_ids, input_pos."""

    tokens: torch.Tensor     # [N * L + 1] int64 stream
    doc_ids: torch.Tensor    # [N * L + 1] document index of every token (-1 = padding)
    seq_len: int
    text_bytes: int = 0      # UTF-8 bytes of the packed documents (for bits per byte)

    @classmethod
    def from_texts(cls, texts: Iterable[str], tokenizer: Any, seq_len: int) -> PackedSequences:
        ids: list[int] = []
        docs: list[int] = []
        n_bytes = 0
        for i, text in enumerate(texts):
            encoded = tokenizer.encode(text, bos=True, eos=True)
            ids.extend(encoded)
            docs.extend([i] * len(encoded))
            n_bytes += len(text.encode("utf-8"))
        if not ids:
            raise ConfigError("dataset: no documents to train on")
        n = max(1, math.ceil((len(ids) - 1) / seq_len))
        pad = n * seq_len + 1 - len(ids)
        pad_id = getattr(tokenizer, "pad_id", None)
        pad_id = tokenizer.eos_id if pad_id is None or pad_id < 0 else pad_id
        tokens = torch.tensor(ids + [pad_id] * pad, dtype=torch.long)
        doc_ids = torch.tensor(docs + [-1] * pad, dtype=torch.long)
        return cls(tokens, doc_ids, seq_len, n_bytes)

    def __len__(self) -> int:
        return (self.tokens.numel() - 1) // self.seq_len

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        start = index * self.seq_len
        window = slice(start, start + self.seq_len + 1)
        return window_item(self.tokens[window], self.doc_ids[window], self.seq_len)

    def batch(self, indices: list[int]) -> dict[str, torch.Tensor]:
        return collate([self[i] for i in indices])


def window_item(tokens: torch.Tensor, doc_ids: torch.Tensor, seq_len: int) -> dict[str, torch.Tensor]:
    """One training sample from ``seq_len + 1`` stream positions (see ``window_batch``)."""
    return {k: v[0] for k, v in window_batch(tokens[None], doc_ids[None], seq_len).items()}


def window_batch(tokens: torch.Tensor, doc_ids: torch.Tensor, seq_len: int) -> dict[str, torch.Tensor]:
    """Samples from [B, seq_len + 1] stream positions: a label whose token belongs to another
    document than its input position (or to padding) is ignored."""
    doc = doc_ids[:, :seq_len].contiguous()
    labels = tokens[:, 1:seq_len + 1].clone()
    labels[(doc_ids[:, 1:seq_len + 1] != doc) | (doc < 0)] = IGNORE_INDEX
    return {"tokens": tokens[:, :seq_len].contiguous(), "labels": labels, "doc_ids": doc,
            "input_pos": _positions_within_documents(doc)}


def _positions_within_documents(doc: torch.Tensor) -> torch.Tensor:
    """0, 1, 2... restarting at every document start inside the window (along the last dim)."""
    idx = torch.arange(doc.shape[-1]).expand_as(doc)
    starts = torch.ones_like(doc, dtype=torch.bool)
    starts[..., 1:] = doc[..., 1:] != doc[..., :-1]
    last_start = torch.cummax(torch.where(starts, idx, torch.zeros_like(idx)), -1).values
    return idx - last_start


def collate(items: list[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    return {key: torch.stack([item[key] for item in items]) for key in items[0]}


def document_mask(doc_ids: torch.Tensor) -> torch.Tensor:
    """[B, S, S] boolean mask: within one document (True = may attend); the model adds causality."""
    return doc_ids.unsqueeze(-1) == doc_ids.unsqueeze(-2)


class EpochSampler:
    """Which sample indices make up micro-batch ``micro`` of step ``step`` for one rank.

    A step consumes ``batch_size * grad_accum * world_size`` positions of the epoch's order; rank
    r takes its own contiguous slice of each micro-batch, so ranks read disjoint samples and their
    union is exactly what a single process with ``batch_size * world_size`` would see.

    The order shuffles by blocks: positions fall into blocks of ``block_size``, the full blocks
    are permuted, each block is permuted inside, and the result is rotated by an epoch-seeded
    shift (so the short last block is not always the same samples). Everything is seeded by
    (seed, epoch[, block]): a position (epoch, step) names the next samples without reading any,
    memory is one entry per block, and consecutive samples stay close in the token stream.
    """

    def __init__(self, n_samples: int, batch_size: int, grad_accum: int = 1, *, world_size: int = 1,
                 rank: int = 0, seed: int = 0, shuffle: bool = True, block_size: int = 1024):
        self.n, self.batch_size, self.grad_accum = n_samples, batch_size, grad_accum
        self.world_size, self.rank, self.seed, self.shuffle = world_size, rank, seed, shuffle
        self.block_size = max(1, int(block_size))
        per_step = batch_size * grad_accum * world_size
        if n_samples < per_step:
            raise ConfigError(f"dataset has {n_samples} packed sequences, fewer than one step needs "
                              f"({per_step} = batch_size x gradient_accumulation_steps x ranks)")
        self.steps_per_epoch = n_samples // per_step
        self._blocks: tuple[int, np.ndarray, int] | None = None
        self._inner: tuple[tuple[int, int], np.ndarray] | None = None

    def _block_order(self, epoch: int) -> tuple[np.ndarray, int]:
        if self._blocks is None or self._blocks[0] != epoch:
            rng = np.random.default_rng([self.seed, epoch])
            full = self.n // self.block_size
            self._blocks = (epoch, rng.permutation(full), int(rng.integers(self.n)))
        return self._blocks[1], self._blocks[2]

    def _inner_order(self, epoch: int, block: int, size: int) -> np.ndarray:
        if self._inner is None or self._inner[0] != (epoch, block):
            self._inner = ((epoch, block), np.random.default_rng([self.seed, epoch, block + 1]).permutation(size))
        return self._inner[1]

    def sample(self, epoch: int, position: int) -> int:
        """The sample index at ``position`` of epoch ``epoch`` (a bijection on range(n))."""
        return int(self.samples(epoch, np.asarray([position]))[0])

    def samples(self, epoch: int, positions: np.ndarray) -> np.ndarray:
        """The sample indices at ``positions`` of epoch ``epoch``: array arithmetic, one inner
        permutation per block the positions fall in (one or two for a micro-batch)."""
        positions = np.asarray(positions, dtype=np.int64)
        if not self.shuffle:
            return positions
        blocks, shift = self._block_order(epoch)
        slot, within = np.divmod(positions, self.block_size)
        block = slot.copy()  # the short last block keeps its slot
        permuted = slot < len(blocks)
        block[permuted] = blocks[slot[permuted]]
        out = np.empty_like(positions)
        for b in np.unique(block).tolist():
            here = block == b
            size = min(self.block_size, self.n - b * self.block_size)
            out[here] = b * self.block_size + self._inner_order(epoch, b, size)[within[here]]
        return (out + shift) % self.n

    def indices(self, epoch: int, step_in_epoch: int, micro: int) -> list[int]:
        per_micro = self.batch_size * self.world_size
        start = (step_in_epoch * self.grad_accum + micro) * per_micro + self.rank * self.batch_size
        return self.samples(epoch, np.arange(start, start + self.batch_size)).tolist()


@dataclass
class PreferencePairs:
    """{prompt, chosen, rejected} rows tokenised as prompt+answer with the prompt masked out."""

    rows: list[JsonDict]
    max_len: int
    tokenizer: Any

    @classmethod
    def from_jsonl(cls, path: str | Path, tokenizer: Any, max_len: int) -> PreferencePairs:
        rows = []
        for n, line in enumerate(Path(path).read_bytes().splitlines(), 1):
            if not line.strip():
                continue
            row = orjson.loads(line)
            missing = {"prompt", "chosen", "rejected"} - set(row)
            if missing:
                raise ConfigError(f"{path}:{n}: preference row lacks {', '.join(sorted(missing))}")
            rows.append(row)
        if not rows:
            raise ConfigError(f"{path}: no preference pairs")
        return cls(rows, max_len, tokenizer)

    def __len__(self) -> int:
        return len(self.rows)

    def _encode(self, prompt: str, answer: str) -> tuple[list[int], list[int]]:
        p = self.tokenizer.encode(prompt, bos=True, eos=False)
        a = self.tokenizer.encode(answer, bos=False, eos=True)
        ids = (p + a)[: self.max_len + 1]
        labels = ([IGNORE_INDEX] * len(p) + a)[: self.max_len + 1]
        return ids[:-1], labels[1:]

    def __getitem__(self, index: int) -> JsonDict:
        row = self.rows[index]
        item = {"chosen": self._encode(row["prompt"], row["chosen"]),
                "rejected": self._encode(row["prompt"], row["rejected"])}
        if "ref_chosen_logp" in row and "ref_rejected_logp" in row:
            item["ref"] = (float(row["ref_chosen_logp"]), float(row["ref_rejected_logp"]))
        return item

    def collate(self, items: list[JsonDict]) -> dict[str, torch.Tensor]:
        """Chosen then rejected sequences in one right-padded batch [2B, S]."""
        seqs = [it["chosen"] for it in items] + [it["rejected"] for it in items]
        width = max(len(ids) for ids, _ in seqs)
        pad = getattr(self.tokenizer, "pad_id", None)
        pad = self.tokenizer.eos_id if pad is None or pad < 0 else pad
        tokens = torch.full((len(seqs), width), pad, dtype=torch.long)
        labels = torch.full((len(seqs), width), IGNORE_INDEX, dtype=torch.long)
        for i, (ids, labs) in enumerate(seqs):
            tokens[i, : len(ids)] = torch.tensor(ids)
            labels[i, : len(labs)] = torch.tensor(labs)
        batch = {"tokens": tokens, "labels": labels}
        if all("ref" in it for it in items):
            batch["ref_chosen"] = torch.tensor([it["ref"][0] for it in items])
            batch["ref_rejected"] = torch.tensor([it["ref"][1] for it in items])
        return batch

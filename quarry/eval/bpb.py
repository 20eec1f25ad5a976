"""Bits per byte of a causal language model over documents, scored by rolling windows.

BPB = total negative log-likelihood, in bits, of every token of every document / total UTF-8
bytes of those documents. The first token of a document is conditioned on BOS alone; a document
longer than the context is scored by windows that advance ``stride`` tokens at a time, each window
scoring only the tokens no earlier window scored, so every token is predicted exactly once with
at least ``context_len - stride + 1`` tokens of context (all of it with ``stride=1``).

Windows of many documents are batched together, right-padded: the model is causal, so padding
after the last real token never changes the logits of the real ones and no mask is needed. The
log-softmax is taken in float64 and summed per window on the CPU in a fixed order, so the result
does not depend on the device's reduction order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from quarry.records import JsonDict, Record

LN2 = math.log(2.0)
DEFAULT_SUBSET = "default"
# float64 log-softmax is done this many logits at a time, so a large vocabulary never needs a
# [batch, length, vocab] float64 copy.
LOGITS_PER_CHUNK = 1 << 24


@dataclass(frozen=True)
class Window:
    """Positions [start, end) of a document's input sequence ``[BOS, t1, ..., t(n-1)]`` go in;
    the targets ``t(i+1)`` of positions [score_from, end) are scored."""

    start: int
    end: int
    score_from: int


def rolling_windows(n_tokens: int, context_len: int, stride: int | None = None) -> list[Window]:
    """The windows that score each of ``n_tokens`` tokens once, with as much context as fits."""
    if context_len < 1:
        raise ValueError(f"context_len must be at least 1, got {context_len}")
    stride = context_len if stride is None else stride
    if not 1 <= stride <= context_len:
        raise ValueError(f"stride must be between 1 and context_len ({context_len}), got {stride}")
    windows: list[Window] = []
    scored = 0
    while scored < n_tokens:
        end = min(n_tokens, context_len if not windows else scored + stride)
        windows.append(Window(start=max(0, end - context_len), end=end, score_from=scored))
        scored = end
    return windows


@dataclass
class SubsetScore:
    """Totals of one subset: documents, UTF-8 bytes, scored tokens and their NLL in nats."""

    docs: int = 0
    bytes: int = 0
    tokens: int = 0
    nll_nats: float = 0.0

    @property
    def bits(self) -> float:
        return self.nll_nats / LN2

    @property
    def bpb(self) -> float:
        return self.bits / self.bytes if self.bytes else float("nan")

    def add(self, other: SubsetScore) -> None:
        self.docs += other.docs
        self.bytes += other.bytes
        self.tokens += other.tokens
        self.nll_nats += other.nll_nats

    def to_dict(self) -> JsonDict:
        return {"docs": self.docs, "bytes": self.bytes, "tokens": self.tokens, "bits": self.bits,
                "bpb": self.bpb, "bits_per_token": self.bits / self.tokens if self.tokens else float("nan")}


@dataclass
class BpbResult:
    """Per-subset scores and their byte-weighted aggregate (total bits / total bytes)."""

    subsets: dict[str, SubsetScore] = field(default_factory=dict)
    context_len: int = 0
    stride: int = 0

    @property
    def aggregate(self) -> SubsetScore:
        total = SubsetScore()
        for name in sorted(self.subsets):
            total.add(self.subsets[name])
        return total

    def merge(self, other: BpbResult) -> None:
        for name, score in other.subsets.items():
            self.subsets.setdefault(name, SubsetScore()).add(score)

    def to_dict(self) -> JsonDict:
        return {"context_len": self.context_len, "stride": self.stride,
                "subsets": {name: self.subsets[name].to_dict() for name in sorted(self.subsets)},
                "aggregate": self.aggregate.to_dict()}

    @classmethod
    def from_dict(cls, data: JsonDict) -> BpbResult:
        subsets = {name: SubsetScore(docs=s["docs"], bytes=s["bytes"], tokens=s["tokens"],
                                     nll_nats=s["bits"] * LN2)
                   for name, s in data.get("subsets", {}).items()}
        return cls(subsets=subsets, context_len=data.get("context_len", 0), stride=data.get("stride", 0))


# ---------------------------------------------------------------------------------------------
# Model and tokenizer adapters: any callable returning logits (or an object with .logits), any
# tokenizer with encode(text) and bos_id (Quarry's, or a Hugging Face one).


def encode(tokenizer: Any, text: str) -> list[int]:
    """Token ids of ``text`` without BOS/EOS, whichever tokenizer interface is offered."""
    try:
        ids = tokenizer.encode(text, bos=False, eos=False)
    except TypeError:
        try:
            ids = tokenizer.encode(text, add_special_tokens=False)
        except TypeError:
            ids = tokenizer.encode(text)
    return list(getattr(ids, "ids", ids))


def bos_id(tokenizer: Any) -> int:
    for name in ("bos_id", "bos_token_id"):
        value = getattr(tokenizer, name, None)
        if value is not None:
            return int(value)
    raise ValueError(f"{type(tokenizer).__name__} has no BOS token id (bos_id / bos_token_id)")


def logits_of(model: Callable, tokens: torch.Tensor) -> torch.Tensor:
    out = model(tokens)
    return getattr(out, "logits", out)


def model_device(model: Any) -> torch.device:
    try:
        return next(model.parameters()).device
    except (AttributeError, StopIteration):
        return torch.device("cpu")


# ---------------------------------------------------------------------------------------------
# Scoring


@dataclass
class _Pending:
    subset: str
    windows_left: int
    nll_nats: float = 0.0


class _Batcher:
    """Collects windows of many documents and scores them ``batch_size`` at a time."""

    def __init__(self, model: Callable, pad_id: int, batch_size: int, device: torch.device):
        self.model, self.pad_id, self.batch_size, self.device = model, pad_id, batch_size, device
        self.items: list[tuple[int, list[int], list[int], int]] = []  # doc, inputs, targets, skip

    def add(self, doc: int, inputs: list[int], targets: list[int], skip: int) -> list[tuple[int, float]] | None:
        self.items.append((doc, inputs, targets, skip))
        return self.flush() if len(self.items) >= self.batch_size else None

    def flush(self) -> list[tuple[int, float]]:
        """(document, NLL in nats of the window's scored tokens) for every queued window."""
        if not self.items:
            return []
        items, self.items = self.items, []
        width = max(len(inputs) for _, inputs, _, _ in items)
        inputs = torch.full((len(items), width), self.pad_id, dtype=torch.long)
        targets = torch.zeros((len(items), width), dtype=torch.long)
        scored = torch.zeros((len(items), width), dtype=torch.bool)
        for row, (_, ids, tgt, skip) in enumerate(items):
            inputs[row, :len(ids)] = torch.tensor(ids)
            targets[row, :len(tgt)] = torch.tensor(tgt)
            scored[row, skip:len(tgt)] = True
        with torch.inference_mode():
            logits = logits_of(self.model, inputs.to(self.device))
            nll = _scored_nll(logits, targets.to(self.device), scored.to(self.device))
        counts = scored.sum(dim=1).tolist()
        return [(doc, float(part.sum())) for (doc, *_), part in zip(items, torch.split(nll, counts))]


def _scored_nll(logits: torch.Tensor, targets: torch.Tensor, scored: torch.Tensor) -> torch.Tensor:
    """float64 NLL (nats) of the scored positions, row-major, on the CPU."""
    flat = logits[scored]
    wanted = targets[scored]
    rows = max(1, LOGITS_PER_CHUNK // max(1, flat.shape[-1]))
    parts = []
    for begin in range(0, flat.shape[0], rows):
        block = flat[begin:begin + rows].to(torch.float64)
        picked = block.gather(1, wanted[begin:begin + rows, None]).squeeze(1)
        parts.append((torch.logsumexp(block, dim=-1) - picked).cpu())
    return torch.cat(parts) if parts else torch.zeros(0, dtype=torch.float64)


def score_documents(model: Callable, tokenizer: Any, documents: Iterable[tuple[str, str]], *,
                    context_len: int, stride: int | None = None, batch_size: int = 8,
                    device: str | torch.device | None = None, progress: bool = False,
                    total: int | None = None) -> BpbResult:
    """BPB of ``(subset, text)`` documents under ``model`` (see the module docstring)."""
    stride = context_len if stride is None else stride
    rolling_windows(0, context_len, stride)  # validates the pair
    device = torch.device(device) if device is not None else model_device(model)
    start = bos_id(tokenizer)
    result = BpbResult(context_len=context_len, stride=stride)
    batcher = _Batcher(model, start, batch_size, device)
    pending: dict[int, _Pending] = {}

    def settle(done: list[tuple[int, float]] | None) -> None:
        for doc, nats in done or ():
            state = pending[doc]
            state.nll_nats += nats
            state.windows_left -= 1
            if state.windows_left == 0:
                result.subsets[state.subset].nll_nats += pending.pop(doc).nll_nats

    with _progress(progress, total) as advance:
        for doc, (subset, text) in enumerate(documents):
            ids = encode(tokenizer, text)
            score = result.subsets.setdefault(subset, SubsetScore())
            score.docs += 1
            score.bytes += len(text.encode("utf-8"))
            score.tokens += len(ids)
            windows = rolling_windows(len(ids), context_len, stride)
            if windows:
                pending[doc] = _Pending(subset, len(windows))
            sequence = [start, *ids]
            for w in windows:
                settle(batcher.add(doc, sequence[w.start:w.end], ids[w.start:w.end], w.score_from - w.start))
            advance(len(ids))
        settle(batcher.flush())
    return result


def records_as_documents(records: Iterable[Record]) -> Iterator[tuple[str, str]]:
    """(pile_set_name, text) of each record; records without a subset go to 'default'."""
    for record in records:
        meta = record.get("meta") or {}
        yield meta.get("pile_set_name") or DEFAULT_SUBSET, record["text"]


def score_records(model: Callable, tokenizer: Any, records: Iterable[Record], **options: Any) -> BpbResult:
    """BPB per ``meta.pile_set_name`` of Quarry records (see ``score_documents`` for options)."""
    return score_documents(model, tokenizer, records_as_documents(records), **options)


class _progress:
    """A rich progress bar counting documents and tokens, or nothing."""

    def __init__(self, enabled: bool, total: int | None):
        self.enabled, self.total = enabled, total

    def __enter__(self) -> Callable[[int], None]:
        if not self.enabled:
            return lambda tokens: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("[bold]bpb"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[tokens]:,} tokens"), TimeElapsedColumn(), transient=True)
        self.bar.__enter__()
        task = self.bar.add_task("bpb", total=self.total, tokens=0)
        counted = [0]

        def advance(tokens: int) -> None:
            counted[0] += tokens
            self.bar.update(task, advance=1, tokens=counted[0])

        return advance

    def __exit__(self, *exc: Any) -> None:
        if self.enabled:
            self.bar.__exit__(*exc)

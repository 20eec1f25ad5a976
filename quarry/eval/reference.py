"""A slow, plain float64 computation of bits per byte, to check the batched scorer against.

Shares no code with bpb.py: one document and one window at a time, the model copied to float64,
each token's window found by a closed formula instead of by walking the windows, and the sums
taken with math.fsum.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable
from typing import Any

import torch


def _float64_model(model: Callable) -> Callable:
    if isinstance(model, torch.nn.Module):
        return copy.deepcopy(model).to(device="cpu", dtype=torch.float64).eval()
    return model


def _window_of(position: int, n_tokens: int, context_len: int, stride: int) -> tuple[int, int]:
    """[start, end) of the window that scores the token at input ``position``."""
    k = 0 if position < context_len else 1 + (position - context_len) // stride
    end = min(n_tokens, context_len + k * stride)
    return max(0, end - context_len), end


def _ids(tokenizer: Any, text: str) -> list[int]:
    try:
        ids = tokenizer.encode(text, bos=False, eos=False)
    except TypeError:
        ids = tokenizer.encode(text, add_special_tokens=False)
    return list(getattr(ids, "ids", ids))


def reference_bpb(model: Callable, tokenizer: Any, documents: Iterable[tuple[str, str]], *,
                  context_len: int, stride: int | None = None) -> dict[str, dict[str, float]]:
    """{subset: {"bits", "bytes", "docs", "tokens", "bpb"}} plus "__all__", in float64."""
    stride = stride or context_len
    model = _float64_model(model)
    bos = getattr(tokenizer, "bos_id", None)
    bos = tokenizer.bos_token_id if bos is None else bos
    bits: dict[str, list[float]] = {}
    counts: dict[str, list[int]] = {}
    for subset, text in documents:
        ids = _ids(tokenizer, text)
        inputs = [bos] + ids[:-1]
        logprob_cache: dict[tuple[int, int], torch.Tensor] = {}
        doc_bits = []
        for position, target in enumerate(ids):
            window = _window_of(position, len(ids), context_len, stride)
            if window not in logprob_cache:
                start, end = window
                tokens = torch.tensor([inputs[start:end]], dtype=torch.long)
                with torch.no_grad():
                    out = model(tokens)
                logits = getattr(out, "logits", out)[0].to(torch.float64)
                logprob_cache = {window: torch.log_softmax(logits, dim=-1)}
            start = window[0]
            doc_bits.append(-float(logprob_cache[window][position - start, target]) / math.log(2))
        bits.setdefault(subset, []).append(math.fsum(doc_bits))
        tally = counts.setdefault(subset, [0, 0, 0])
        tally[0] += 1
        tally[1] += len(text.encode("utf-8"))
        tally[2] += len(ids)
    table = {}
    for subset in sorted(bits):
        total = math.fsum(bits[subset])
        docs, nbytes, tokens = counts[subset]
        table[subset] = {"bits": total, "bytes": nbytes, "docs": docs, "tokens": tokens,
                         "bpb": total / nbytes if nbytes else math.nan}
    all_bits = math.fsum(row["bits"] for row in table.values())
    all_bytes = sum(row["bytes"] for row in table.values())
    table["__all__"] = {"bits": all_bits, "bytes": all_bytes,
                        "docs": sum(row["docs"] for row in table.values()),
                        "tokens": sum(row["tokens"] for row in table.values()),
                        "bpb": all_bits / all_bytes if all_bytes else math.nan}
    return table

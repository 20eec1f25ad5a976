"""Losses that never hold the full float32 logits: chunked cross-entropy and DPO.

The output projection is applied to a chunk of tokens at a time, so at any moment only one
chunk's logits exist; each chunk is upcast to float32 for a stable log-softmax. For training,
the gradients are formed in the same pass (no recomputation in backward). Losses are sums, so
gradient accumulation and data-parallel ranks can normalise by the global number of target
tokens, which makes 4 x batch 2 equal to batch 8 exactly.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

IGNORE_INDEX = -100


def _logits(hidden: torch.Tensor, weight: torch.Tensor, cap: float | None) -> torch.Tensor:
    logits = F.linear(hidden, weight).float()
    return logits if cap is None else torch.tanh(logits / cap) * cap  # Gemma 2's final soft-capping


def _chunk_nll(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor,
               cap: float | None = None) -> torch.Tensor:
    return F.cross_entropy(_logits(hidden, weight, cap), labels, ignore_index=IGNORE_INDEX, reduction="sum")


def _chunk_token_logps(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor,
                       cap: float | None = None) -> torch.Tensor:
    logits = _logits(hidden, weight, cap)
    safe = labels.clamp_min(0)
    logps = torch.gather(logits.log_softmax(-1), -1, safe.unsqueeze(-1)).squeeze(-1)
    return logps * (labels != IGNORE_INDEX)


class _LinearCrossEntropy(torch.autograd.Function):
    """Output projection + cross-entropy, chunk by chunk, with the gradients made in forward.

    Each chunk's logits exist once: the loss and d(loss)/d(logits) = softmax - onehot are taken
    from them at once, turned into the gradients of the hidden states and of the weight, and
    freed, so backward only scales the stored gradients (no second projection, no logits kept).
    """

    @staticmethod
    def forward(ctx, hidden, weight, labels, chunk_tokens):
        need_h, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        n_chunks = max(1, -(-labels.numel() // chunk_tokens))
        grad_h = torch.empty_like(hidden) if need_h else None
        # One chunk needs no accumulation; several accumulate the weight gradient in float32.
        grad_w = (torch.zeros_like(weight, dtype=torch.float32 if n_chunks > 1 else weight.dtype)
                  if need_w else None)
        total = torch.zeros((), dtype=torch.float32, device=hidden.device)
        for start in range(0, labels.numel(), chunk_tokens):
            h, y = hidden[start:start + chunk_tokens], labels[start:start + chunk_tokens]
            logits = (h @ weight.t()).float()
            valid = y != IGNORE_INDEX
            safe = y.clamp_min(0)
            lse = torch.logsumexp(logits, dim=-1)
            picked = logits.gather(-1, safe.unsqueeze(-1)).squeeze(-1)
            total += ((lse - picked) * valid).sum()
            if need_h or need_w:
                grad = torch.exp(logits.sub_(lse.unsqueeze(-1)))  # softmax, in place of the logits
                grad[torch.arange(y.numel(), device=y.device), safe] -= 1.0
                grad = grad.mul_(valid.unsqueeze(-1)).to(h.dtype)
                if need_h:
                    grad_h[start:start + chunk_tokens] = grad @ weight
                if need_w:
                    if n_chunks > 1:
                        grad_w += (grad.t() @ h).float()
                    else:
                        grad_w = grad.t() @ h
            del logits
        ctx.save_for_backward(*(t for t in (grad_h, grad_w) if t is not None))
        ctx.has = (need_h, need_w)
        ctx.weight_dtype, ctx.hidden_dtype = weight.dtype, hidden.dtype
        return total

    @staticmethod
    def backward(ctx, grad_out):
        saved = list(ctx.saved_tensors)
        need_h, need_w = ctx.has
        grad_h = (saved.pop(0) * grad_out).to(ctx.hidden_dtype) if need_h else None
        grad_w = (saved.pop(0) * grad_out).to(ctx.weight_dtype) if need_w else None
        return grad_h, grad_w, None, None


def chunked_cross_entropy(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor,
                          chunk_tokens: int = 4096, softcap: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Summed next-token NLL over non-ignored labels, and their count.

    ``hidden``: [B, S, D] final hidden states; ``weight``: [V, D] output projection;
    ``labels``: [B, S] already aligned (label[t] is the token to predict from position t).
    ``softcap``: logits -> softcap * tanh(logits / softcap) first (Gemma 2); the fused gradient
    assumes plain logits, so capped chunks go through autograd, each recomputed in backward.
    """
    flat_h = hidden.reshape(-1, hidden.shape[-1])
    flat_y = labels.reshape(-1)
    grad = torch.is_grad_enabled() and (flat_h.requires_grad or weight.requires_grad)
    if grad and softcap is None:
        total = _LinearCrossEntropy.apply(flat_h, weight, flat_y, chunk_tokens)
    else:
        total = flat_h.new_zeros((), dtype=torch.float32)
        for start in range(0, flat_y.numel(), chunk_tokens):
            h, y = flat_h[start:start + chunk_tokens], flat_y[start:start + chunk_tokens]
            total = total + (checkpoint(_chunk_nll, h, weight, y, softcap, use_reentrant=False) if grad
                             else _chunk_nll(h, weight, y, softcap))
    return total, (flat_y != IGNORE_INDEX).sum()


def sequence_logprobs(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor,
                      chunk_tokens: int = 4096, softcap: float | None = None) -> torch.Tensor:
    """Per-sequence sum of log p(label) over non-ignored positions: [B]."""
    batch, seq = labels.shape
    flat_h = hidden.reshape(-1, hidden.shape[-1])
    flat_y = labels.reshape(-1)
    parts = []
    for start in range(0, flat_y.numel(), chunk_tokens):
        h, y = flat_h[start:start + chunk_tokens], flat_y[start:start + chunk_tokens]
        if torch.is_grad_enabled() and (h.requires_grad or weight.requires_grad):
            parts.append(checkpoint(_chunk_token_logps, h, weight, y, softcap, use_reentrant=False))
        else:
            parts.append(_chunk_token_logps(h, weight, y, softcap))
    return torch.cat(parts).view(batch, seq).sum(-1)


def dpo_loss(policy_chosen: torch.Tensor, policy_rejected: torch.Tensor,
             ref_chosen: torch.Tensor, ref_rejected: torch.Tensor, beta: float = 0.1,
             label_smoothing: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-pair sigmoid DPO loss (Rafailov et al. 2023) and the reward margin beta*(dchosen - drejected)."""
    margin = beta * ((policy_chosen - ref_chosen) - (policy_rejected - ref_rejected))
    loss = -F.logsigmoid(margin) * (1 - label_smoothing) - F.logsigmoid(-margin) * label_smoothing
    return loss, margin.detach()


class CausalLMHead(nn.Module):
    """Runs the model and its loss in one forward, the unit FSDP2 shards as its root.

    FSDP2 gathers the root's weights (embeddings, final norm, output head) only during the
    root's forward; the chunked loss reads the output head's weight directly, so it has to run
    inside that forward. ``kind``: "nll" (summed NLL), "logps" (per-sequence log-probs) or "logits".
    """

    def __init__(self, model: nn.Module, chunk_tokens: int = 4096):
        super().__init__()
        self.model = model
        self.chunk_tokens = chunk_tokens

    def forward(self, tokens: torch.Tensor, labels: torch.Tensor | None = None, kind: str = "nll",
                **model_kwargs) -> torch.Tensor:
        if kind == "logits":
            return self.model(tokens, **model_kwargs)
        hidden = self.model(tokens, return_hidden=True, **model_kwargs)
        weight = self.model.lm_head.weight
        cap = getattr(getattr(self.model, "args", None), "final_softcap", None)
        if kind == "nll":
            return chunked_cross_entropy(hidden, weight, labels, self.chunk_tokens, cap)[0]
        if kind == "logps":
            return sequence_logprobs(hidden, weight, labels, self.chunk_tokens, cap)
        raise ValueError(f"kind must be nll, logps or logits, not {kind!r}")

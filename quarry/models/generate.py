"""Text generation: greedy, temperature / top-k / top-p sampling, beam search, stop tokens.

Prompts of different lengths are batched with left padding: the padding mask hides pad keys and
each row's RoPE positions start at 0 at its first real token, so a row generates exactly what it
would alone. With the KV cache each step feeds only the newest token; ``use_cache=False``
recomputes the whole sequence each step (the reference the cache is checked against).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import contextmanager

import torch
import torch.nn.functional as F

StreamFn = Callable[[int, int], None]  # (row, token id), called as each token is produced


def sample_next(logits: torch.Tensor, *, temperature: float = 0.0, top_k: int | None = None,
                top_p: float | None = None, generator: torch.Generator | None = None) -> torch.Tensor:
    """Next token per row from logits (B, V): argmax when temperature is 0, else a filtered sample."""
    if temperature <= 0:
        return logits.argmax(dim=-1)
    logits = logits.float() / temperature
    if top_k is not None and top_k < logits.shape[-1]:
        kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None and top_p < 1.0:
        ordered, order = torch.sort(logits, dim=-1, descending=True)
        cumulative = ordered.softmax(dim=-1).cumsum(dim=-1)
        # drop a token once the ones before it already reach top_p (the most likely always stays)
        drop = (cumulative - ordered.softmax(dim=-1)) >= top_p
        logits = logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))
    probs = logits.softmax(dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)


@contextmanager
def kv_caches(model, batch_size: int, length: int, enabled: bool = True):
    """Caches sized for this call (reusing the model's own when they fit), restored afterwards."""
    layers = list(model.layers)
    saved = [layer.self_attn.kv_cache for layer in layers]
    own = saved[0]
    if not enabled:
        model.remove_caches()
    elif own is not None and own.batch_size >= batch_size and own.max_seq_len >= length:
        model.reset_caches()
    else:
        model.setup_caches(batch_size, length, dtype=model.lm_head.weight.dtype)
    try:
        yield
    finally:
        for layer, cache in zip(layers, saved):
            layer.self_attn.kv_cache = cache
        if own is not None:
            model.reset_caches()


def left_pad(prompts: Sequence[Sequence[int]], pad_id: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    """(tokens, mask) of shape (B, longest prompt), prompts aligned to the right."""
    if not prompts or any(len(p) == 0 for p in prompts):
        raise ValueError("every prompt needs at least one token (start it with the bos token)")
    longest = max(len(p) for p in prompts)
    tokens = torch.full((len(prompts), longest), pad_id, dtype=torch.long, device=device)
    mask = torch.zeros((len(prompts), longest), dtype=torch.bool, device=device)
    for row, prompt in enumerate(prompts):
        tokens[row, longest - len(prompt):] = torch.as_tensor(list(prompt), dtype=torch.long, device=device)
        mask[row, longest - len(prompt):] = True
    return tokens, mask


def _device(model) -> torch.device:
    return model.lm_head.weight.device


@torch.inference_mode()
def generate(model, prompts: Sequence[Sequence[int]], *, max_new_tokens: int, temperature: float = 0.0,
             top_k: int | None = None, top_p: float | None = None, num_beams: int = 1,
             stop_tokens: Sequence[int] = (), pad_id: int = 0, seed: int | None = None,
             stream: StreamFn | None = None, use_cache: bool = True, length_penalty: float = 1.0) -> list[list[int]]:
    """The new tokens of every prompt (the stop token that ended a row is not included)."""
    if num_beams > 1:
        results = []
        for row, prompt in enumerate(prompts):
            best = beam_search(model, prompt, num_beams=num_beams, max_new_tokens=max_new_tokens,
                               stop_tokens=stop_tokens, length_penalty=length_penalty, use_cache=use_cache)
            for token in best if stream else ():
                stream(row, token)
            results.append(best)
        return results

    device = _device(model)
    tokens, mask = left_pad(prompts, pad_id, device)
    positions = (mask.long().cumsum(-1) - 1).clamp(min=0)
    padded = not bool(mask.all())
    generator = torch.Generator(device=device).manual_seed(seed) if seed is not None else None
    stops = torch.as_tensor(list(stop_tokens), dtype=torch.long, device=device)
    done = torch.zeros(len(prompts), dtype=torch.bool, device=device)
    out: list[list[int]] = [[] for _ in prompts]

    with kv_caches(model, len(prompts), tokens.shape[1] + max_new_tokens, enabled=use_cache):
        logits = model(tokens, input_pos=positions, attention_mask=mask if padded else None)[:, -1]
        for step in range(max_new_tokens):
            nxt = sample_next(logits, temperature=temperature, top_k=top_k, top_p=top_p, generator=generator)
            done |= torch.isin(nxt, stops)
            finished = done.tolist()  # with nxt.tolist(): the step's only host syncs
            for row, token in enumerate(nxt.tolist()):
                if not finished[row]:
                    out[row].append(token)
                    if stream:
                        stream(row, token)
            if all(finished) or step == max_new_tokens - 1:
                break
            nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)[:, None]
            new_pos = positions[:, -1:] + 1
            mask = torch.cat([mask, torch.ones_like(nxt, dtype=torch.bool)], dim=1)
            positions = torch.cat([positions, new_pos], dim=1)
            if use_cache:
                logits = model(nxt, input_pos=new_pos, attention_mask=mask if padded else None)[:, -1]
            else:
                tokens = torch.cat([tokens, nxt], dim=1)
                logits = model(tokens, input_pos=positions, attention_mask=mask if padded else None)[:, -1]
    return out


@torch.inference_mode()
def beam_search(model, prompt: Sequence[int], *, num_beams: int, max_new_tokens: int,
                stop_tokens: Sequence[int] = (), length_penalty: float = 1.0, use_cache: bool = True) -> list[int]:
    """The best of ``num_beams`` hypotheses by log-probability / length**length_penalty."""
    device, k = _device(model), num_beams
    stops = set(stop_tokens)
    seqs = torch.as_tensor([list(prompt)] * k, dtype=torch.long, device=device)
    scores = torch.full((k,), float("-inf"), device=device)
    scores[0] = 0.0  # all beams start identical: expand only the first
    finished: list[tuple[float, list[int]]] = []
    start = seqs.shape[1]

    def norm(score: float, length: int) -> float:
        return score / (length ** length_penalty)

    with kv_caches(model, k, start + max_new_tokens, enabled=use_cache):
        logits = model(seqs)[:, -1]
        for step in range(max_new_tokens):
            logp = F.log_softmax(logits.float(), dim=-1)
            vocab = logp.shape[-1]
            width = min(k * (1 + len(stops)), k * vocab)  # enough candidates to refill k beams
            cand_scores, cand = (scores[:, None] + logp).view(-1).topk(width)
            rows, picks, kept = [], [], []
            for rank, (score, index) in enumerate(zip(cand_scores.tolist(), cand.tolist())):
                beam, token = divmod(index, vocab)
                if token in stops:
                    if rank < k:
                        finished.append((norm(score, step + 1), seqs[beam, start:].tolist()))
                    continue
                rows.append(beam), picks.append(token), kept.append(score)
                if len(rows) == k:
                    break
            rows_t = torch.as_tensor(rows, device=device)
            picks_t = torch.as_tensor(picks, device=device)[:, None]
            scores = torch.as_tensor(kept, device=device)
            seqs = torch.cat([seqs[rows_t], picks_t], dim=1)
            if len(finished) >= k and norm(kept[0], step + 1) <= min(s for s, _ in finished):
                break  # no running beam can beat the finished ones any more
            if step == max_new_tokens - 1:
                break
            if use_cache:
                model.reorder_caches(rows_t)
                logits = model(picks_t)[:, -1]
            else:
                logits = model(seqs)[:, -1]
    length = seqs.shape[1] - start
    finished += [(norm(s, length), seqs[i, start:].tolist()) for i, s in enumerate(scores.tolist())]
    return max(finished, key=lambda item: item[0])[1]

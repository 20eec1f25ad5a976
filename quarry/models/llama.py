"""A Llama-style decoder in native PyTorch.

Module names mirror Hugging Face's LlamaForCausalLM exactly, so a state_dict converts to and from
transformers with no renaming: ``model.embed_tokens``, ``model.layers[i].self_attn.{q,k,v,o}_proj``,
``model.layers[i].mlp.{gate,up,down}_proj``, the two layer norms, ``model.norm`` and ``lm_head``.
RoPE uses HF's rotate_half layout (the q/k weights are not permuted), with Llama-3 frequency scaling.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from quarry.models.kv_cache import KVCache


@dataclass
class ModelArgs:
    vocab_size: int = 32000
    dim: int = 4096
    n_layers: int = 32
    n_heads: int = 32
    n_kv_heads: int | None = None
    intermediate_size: int = 11008
    head_dim: int | None = None
    norm_eps: float = 1e-5
    rope_theta: float = 10000.0
    rope_scaling: dict | None = field(default=None)  # Llama-3: factor, low/high_freq_factor, original_max_...
    max_seq_len: int = 2048
    tie_embeddings: bool = False

    def __post_init__(self):
        self.n_kv_heads = self.n_kv_heads or self.n_heads
        self.head_dim = self.head_dim or self.dim // self.n_heads
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_heads ({self.n_heads}) must be a multiple of n_kv_heads ({self.n_kv_heads})")

    @property
    def hidden_size(self) -> int:
        return self.dim

    def to_dict(self) -> dict:
        return asdict(self)


def rope_frequencies(args: ModelArgs, device=None) -> torch.Tensor:
    """Inverse frequencies (head_dim / 2,) in float32, with Llama-3 scaling when configured."""
    dim = args.head_dim
    inv_freq = 1.0 / (args.rope_theta ** (torch.arange(0, dim, 2, dtype=torch.int64, device=device).float() / dim))
    scaling = args.rope_scaling or {}
    kind = scaling.get("rope_type", scaling.get("type", "llama3" if scaling else "default"))
    if kind == "default":
        return inv_freq
    if kind != "llama3":
        raise ValueError(f"unsupported rope scaling type {kind!r} (supported: default, llama3)")
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old_len = scaling["original_max_position_embeddings"]
    wavelen = 2 * math.pi / inv_freq
    # Long wavelengths are stretched by `factor`, short ones kept, the band between interpolated.
    scaled = torch.where(wavelen > old_len / low, inv_freq / factor, inv_freq)
    smooth = (old_len / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < old_len / high) & ~(wavelen > old_len / low)
    return torch.where(medium, smoothed, scaled)


def rope_cos_sin(inv_freq: torch.Tensor, positions: torch.Tensor, dtype: torch.dtype):
    """cos/sin of shape (B, T, head_dim) for integer positions (B, T), computed in float32."""
    freqs = positions[..., None].float() * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x: (B, H, T, D); cos/sin: (B, T, D)."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return x * cos + rotate_half(x) * sin


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


class Attention(nn.Module):
    """Grouped-query attention through scaled_dot_product_attention, with an optional KV cache."""

    def __init__(self, args: ModelArgs):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = args.n_heads, args.n_kv_heads, args.head_dim
        self.q_proj = nn.Linear(args.dim, args.n_heads * args.head_dim, bias=False)
        self.k_proj = nn.Linear(args.dim, args.n_kv_heads * args.head_dim, bias=False)
        self.v_proj = nn.Linear(args.dim, args.n_kv_heads * args.head_dim, bias=False)
        self.o_proj = nn.Linear(args.n_heads * args.head_dim, args.dim, bias=False)
        self.kv_cache: KVCache | None = None

    def forward(self, x, cos, sin, mask: torch.Tensor | None) -> torch.Tensor:
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if self.kv_cache is not None:
            k, v = self.kv_cache.update(k, v)
        if mask is not None and self.n_kv_heads != self.n_heads:
            # The kernel that takes a mask (memory-efficient) has no grouped-query support: share heads.
            k = k.repeat_interleave(self.n_heads // self.n_kv_heads, dim=1)
            v = v.repeat_interleave(self.n_heads // self.n_kv_heads, dim=1)
        # mask None means plain causal over these t tokens: the flash kernel, GQA included.
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=mask is None and t > 1,
                                             enable_gqa=k.shape[1] != q.shape[1])
        return self.o_proj(out.transpose(1, 2).reshape(b, t, -1))


class MLP(nn.Module):
    """SwiGLU: down(silu(gate(x)) * up(x))."""

    def __init__(self, args: ModelArgs):
        super().__init__()
        self.gate_proj = nn.Linear(args.dim, args.intermediate_size, bias=False)
        self.up_proj = nn.Linear(args.dim, args.intermediate_size, bias=False)
        self.down_proj = nn.Linear(args.intermediate_size, args.dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.self_attn = Attention(args)
        self.mlp = MLP(args)
        self.input_layernorm = RMSNorm(args.dim, args.norm_eps)
        self.post_attention_layernorm = RMSNorm(args.dim, args.norm_eps)

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaModel(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.embed_tokens = nn.Embedding(args.vocab_size, args.dim)
        self.layers = nn.ModuleList(DecoderLayer(args) for _ in range(args.n_layers))
        self.norm = RMSNorm(args.dim, args.norm_eps)


class Transformer(nn.Module):
    """Decoder-only language model: ``model(tokens) -> logits``; HF LlamaForCausalLM's layout."""

    def __init__(self, args: ModelArgs):
        super().__init__()
        self.args = args
        self.model = LlamaModel(args)
        self.lm_head = nn.Linear(args.dim, args.vocab_size, bias=False)
        self._rope_cache: dict[torch.device, torch.Tensor] = {}
        self.init_weights()

    def tie_weights(self) -> None:
        """lm_head shares the embedding matrix when tie_embeddings (to_empty unties them: call again)."""
        if self.args.tie_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight

    @torch.no_grad()
    def init_weights(self, std: float = 0.02) -> None:
        """Fresh random weights, as HF initialises Llama (also after meta-device init + to_empty)."""
        self.tie_weights()
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=std)
            elif isinstance(module, RMSNorm):
                nn.init.ones_(module.weight)

    @property
    def layers(self) -> nn.ModuleList:
        """The decoder blocks: the unit for activation checkpointing and FSDP2 ``fully_shard``."""
        return self.model.layers

    def forward(self, tokens: torch.Tensor, *, input_pos: torch.Tensor | None = None,
                attention_mask: torch.Tensor | None = None, return_hidden: bool = False) -> torch.Tensor:
        """tokens (B, T) -> logits (B, T, V), or final hidden states (B, T, dim) when return_hidden.

        input_pos: RoPE positions, (T,) or (B, T); default: cache offset + arange(T).
        attention_mask: which keys are real tokens, (B, S) over everything seen so far (cached
        + new, S = offset + T), or a full boolean (B, T, S) mask. Causality is always applied.
        """
        b, t = tokens.shape
        offset = self._cache_offset()
        if input_pos is None:
            input_pos = torch.arange(offset, offset + t, device=tokens.device)
        input_pos = input_pos.expand(b, t) if input_pos.dim() == 1 else input_pos
        mask = self._attention_mask(attention_mask, b, t, offset, tokens.device)
        x = self.model.embed_tokens(tokens)
        cos, sin = rope_cos_sin(self._inv_freq(tokens.device), input_pos, x.dtype)
        for layer in self.model.layers:
            x = layer(x, cos, sin, mask)
        x = self.model.norm(x)
        return x if return_hidden else self.lm_head(x)

    def _inv_freq(self, device) -> torch.Tensor:
        # Kept out of the state_dict and module buffers, so meta-device init and .to() never touch it.
        if device not in self._rope_cache:
            self._rope_cache[device] = rope_frequencies(self.args, device)
        return self._rope_cache[device]

    def _attention_mask(self, attention_mask, b: int, t: int, offset: int, device) -> torch.Tensor | None:
        """Boolean (B, 1, T, S) mask, or None when plain causal attention is exact."""
        if attention_mask is None and (offset == 0 or t == 1):
            return None  # no cache: is_causal; one new token after a cache: it sees every key
        s = offset + t
        slots = torch.arange(s, device=device)
        mask = (slots[None, :] <= slots[offset:, None]).expand(b, t, s)  # causal over cache slots
        if attention_mask is not None:
            keys = attention_mask.bool()
            mask = mask & (keys[:, None, :] if keys.dim() == 2 else keys)
        # A padding query would otherwise see no key at all (NaN); let it see itself.
        mask = mask | (slots[None, :] == slots[offset:, None])
        return mask[:, None]

    # --- KV cache -------------------------------------------------------------------------------
    def setup_caches(self, batch_size: int, max_seq_len: int, dtype: torch.dtype | None = None) -> None:
        """Preallocate a (batch_size, n_kv_heads, max_seq_len, head_dim) cache in every attention."""
        ref = self.lm_head.weight
        for layer in self.model.layers:
            layer.self_attn.kv_cache = KVCache(batch_size, max_seq_len, self.args.n_kv_heads,
                                               self.args.head_dim, dtype or ref.dtype, ref.device)

    def reset_caches(self) -> None:
        for layer in self.model.layers:
            if layer.self_attn.kv_cache is not None:
                layer.self_attn.kv_cache.reset()

    def remove_caches(self) -> None:
        for layer in self.model.layers:
            layer.self_attn.kv_cache = None

    def caches_are_enabled(self) -> bool:
        return self.model.layers[0].self_attn.kv_cache is not None

    def reorder_caches(self, rows: torch.Tensor) -> None:
        """Gather cache rows (beam search keeps the surviving beams' histories)."""
        for layer in self.model.layers:
            layer.self_attn.kv_cache.reorder(rows)

    def _cache_offset(self) -> int:
        cache = self.model.layers[0].self_attn.kv_cache
        return 0 if cache is None else cache.size

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

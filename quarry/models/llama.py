"""The decoder every supported family shares: Llama, Mistral, Qwen2, Gemma, Gemma 2, Phi-3, StarCoder2.

One block, parameterised by the family fields of ``ModelArgs`` (norm kind and offset, embedding
scale, activation, biases, fused projections, Gemma 2's sandwich norms and soft-capping, sliding
windows). Module names mirror each family's Hugging Face class exactly, so a state_dict converts
to and from transformers with no renaming: ``model.embed_tokens``, ``model.layers[i].self_attn``
(``{q,k,v,o}_proj``, or Phi-3's fused ``qkv_proj``), ``model.layers[i].mlp`` (``{gate,up,down}_proj``,
Phi-3's ``gate_up_proj``, StarCoder2's ``c_fc`` / ``c_proj``), the layer norms, ``model.norm`` and
``lm_head``. RoPE uses HF's rotate_half layout (q/k weights are not permuted), with Llama-3 scaling.
quarry.models.families maps each family's config.json to these fields and back.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from quarry.models.kv_cache import KVCache

ACTIVATIONS = {"silu": F.silu, "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"), "gelu": F.gelu}
FULL, SLIDING = "full_attention", "sliding_attention"


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
    # --- what the families change; the defaults are Llama ------------------------------------
    family: str = "llama"                 # the Hugging Face model_type written on export
    norm: str = "rms"                     # "rms" or "layer" (LayerNorm with bias: StarCoder2)
    norm_offset: float = 0.0              # Gemma: RMSNorm scales by (1 + weight)
    embed_scale: bool = False             # Gemma: embeddings times sqrt(dim)
    activation: str = "silu"              # a key of ACTIVATIONS
    gated_mlp: bool = True                # down(act(gate(x)) * up(x)); else c_proj(act(c_fc(x)))
    qkv_bias: bool = False                # Qwen2, StarCoder2
    o_bias: bool = False                  # StarCoder2
    mlp_bias: bool = False                # StarCoder2
    fused_qkv: bool = False               # Phi-3: one qkv_proj
    fused_gate_up: bool = False           # Phi-3: one gate_up_proj (gate first)
    sandwich_norms: bool = False          # Gemma 2: norms after attention and MLP as well as before
    query_scale: float | None = None      # Gemma 2: scores scaled by query_scale**-0.5, not head_dim**-0.5
    attn_softcap: float | None = None     # Gemma 2: scores -> cap * tanh(scores / cap)
    final_softcap: float | None = None    # Gemma 2: logits -> cap * tanh(logits / cap)
    sliding_window: int | None = None     # a key sees the last `sliding_window` positions only
    layer_types: list[str] | None = None  # per layer FULL or SLIDING; None: all SLIDING when a window is set
    partial_rotary_factor: float = 1.0    # RoPE on the first head_dim * factor channels

    def __post_init__(self):
        self.n_kv_heads = self.n_kv_heads or self.n_heads
        self.head_dim = self.head_dim or self.dim // self.n_heads
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_heads ({self.n_heads}) must be a multiple of n_kv_heads ({self.n_kv_heads})")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation {self.activation!r} is not implemented (have: {', '.join(ACTIVATIONS)})")
        if self.norm not in ("rms", "layer"):
            raise ValueError(f"norm {self.norm!r}: must be 'rms' or 'layer'")
        if self.layer_types is not None:
            self.layer_types = list(self.layer_types)
            if len(self.layer_types) != self.n_layers or set(self.layer_types) - {FULL, SLIDING}:
                raise ValueError(f"layer_types must be {self.n_layers} of {FULL!r} / {SLIDING!r}")

    @property
    def hidden_size(self) -> int:
        return self.dim

    @property
    def rotary_dim(self) -> int:
        return int(self.head_dim * self.partial_rotary_factor)

    def window(self, layer: int) -> int | None:
        """The sliding window of one layer, None when it attends to everything before it."""
        if self.sliding_window is None:
            return None
        kind = self.layer_types[layer] if self.layer_types else SLIDING
        return self.sliding_window if kind == SLIDING else None

    def to_dict(self) -> dict:
        return asdict(self)


def rope_frequencies(args: ModelArgs, device=None) -> torch.Tensor:
    """Inverse frequencies (rotary_dim / 2,) in float32, with Llama-3 scaling when configured."""
    dim = args.rotary_dim
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
    """cos/sin of shape (B, T, rotary_dim) for integer positions (B, T), computed in float32."""
    freqs = positions[..., None].float() * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x: (B, H, T, D); cos/sin: (B, T, R) rotate the first R channels (Phi-3's partial rotary)."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    r = cos.shape[-1]
    if r == x.shape[-1]:
        return x * cos + rotate_half(x) * sin
    rot, rest = x[..., :r], x[..., r:]
    return torch.cat((rot * cos + rotate_half(rot) * sin, rest), dim=-1)


def softcap(x: torch.Tensor, cap: float | None) -> torch.Tensor:
    return x if cap is None else torch.tanh(x / cap) * cap


class RMSNorm(nn.Module):
    """x / rms(x) * (offset + weight): offset 0 for Llama, 1 for Gemma (whose weights start at 0)."""

    def __init__(self, dim: int, eps: float = 1e-5, offset: float = 0.0):
        super().__init__()
        self.eps, self.offset = eps, offset
        self.weight = nn.Parameter(torch.ones(dim) if offset == 0 else torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        normed = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
        if self.offset:  # Gemma scales in float32, then casts (Llama casts, then scales)
            return (normed * (self.offset + self.weight.float())).to(dtype)
        return self.weight * normed.to(dtype)


def make_norm(args: ModelArgs) -> nn.Module:
    if args.norm == "layer":
        return nn.LayerNorm(args.dim, eps=args.norm_eps)
    return RMSNorm(args.dim, args.norm_eps, args.norm_offset)


class Attention(nn.Module):
    """Grouped-query attention through scaled_dot_product_attention, with an optional KV cache;
    written out in full only where Gemma 2 soft-caps the scores (SDPA cannot)."""

    def __init__(self, args: ModelArgs, layer: int = 0):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = args.n_heads, args.n_kv_heads, args.head_dim
        self.window = args.window(layer)
        self.scale = (args.query_scale or args.head_dim) ** -0.5
        self.softcap = args.attn_softcap
        q_out, kv_out = args.n_heads * args.head_dim, args.n_kv_heads * args.head_dim
        if args.fused_qkv:
            self.qkv_proj = nn.Linear(args.dim, q_out + 2 * kv_out, bias=args.qkv_bias)
        else:
            self.q_proj = nn.Linear(args.dim, q_out, bias=args.qkv_bias)
            self.k_proj = nn.Linear(args.dim, kv_out, bias=args.qkv_bias)
            self.v_proj = nn.Linear(args.dim, kv_out, bias=args.qkv_bias)
        self.o_proj = nn.Linear(q_out, args.dim, bias=args.o_bias)
        self.kv_cache: KVCache | None = None

    def project(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        if hasattr(self, "qkv_proj"):
            q_out, kv_out = self.n_heads * self.head_dim, self.n_kv_heads * self.head_dim
            return self.qkv_proj(x).split([q_out, kv_out, kv_out], dim=-1)
        return self.q_proj(x), self.k_proj(x), self.v_proj(x)

    def forward(self, x, cos, sin, masks: dict) -> torch.Tensor:
        b, t, _ = x.shape
        q, k, v = self.project(x)
        q = q.view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = k.view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = v.view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if self.kv_cache is not None:
            k, v = self.kv_cache.update(k, v)
        mask = masks[self.window]
        if (mask is not None or self.softcap is not None) and self.n_kv_heads != self.n_heads:
            # The kernel that takes a mask (memory-efficient) has no grouped-query support: share heads.
            k = k.repeat_interleave(self.n_heads // self.n_kv_heads, dim=1)
            v = v.repeat_interleave(self.n_heads // self.n_kv_heads, dim=1)
        if self.softcap is not None:
            out = self._softcapped(q, k, v, mask)
        else:
            # mask None means plain causal over these t tokens: the flash kernel, GQA included.
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=mask is None and t > 1,
                                                 enable_gqa=k.shape[1] != q.shape[1], scale=self.scale)
        return self.o_proj(out.transpose(1, 2).reshape(b, t, -1))

    def _softcapped(self, q, k, v, mask) -> torch.Tensor:
        scores = softcap((q @ k.transpose(-1, -2)) * self.scale, self.softcap)
        if mask is None and q.shape[2] > 1:  # plain causal, no cache
            mask = torch.ones(q.shape[2], k.shape[2], dtype=torch.bool, device=q.device).tril()
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        return scores.softmax(-1, dtype=torch.float32).to(q.dtype) @ v


class MLP(nn.Module):
    """Gated: down(act(gate(x)) * up(x)), gate and up fused in Phi-3; plain (StarCoder2): c_proj(act(c_fc(x)))."""

    def __init__(self, args: ModelArgs):
        super().__init__()
        self.act = ACTIVATIONS[args.activation]
        self.gated, self.fused = args.gated_mlp, args.fused_gate_up
        d, h, bias = args.dim, args.intermediate_size, args.mlp_bias
        if not args.gated_mlp:
            self.c_fc, self.c_proj = nn.Linear(d, h, bias=bias), nn.Linear(h, d, bias=bias)
        elif args.fused_gate_up:
            self.gate_up_proj, self.down_proj = nn.Linear(d, 2 * h, bias=bias), nn.Linear(h, d, bias=bias)
        else:
            self.gate_proj, self.up_proj = nn.Linear(d, h, bias=bias), nn.Linear(d, h, bias=bias)
            self.down_proj = nn.Linear(h, d, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.gated:
            return self.c_proj(self.act(self.c_fc(x)))
        if self.fused:
            gate, up = self.gate_up_proj(x).chunk(2, dim=-1)
        else:
            gate, up = self.gate_proj(x), self.up_proj(x)
        return self.down_proj(self.act(gate) * up)


class DecoderLayer(nn.Module):
    def __init__(self, args: ModelArgs, layer: int = 0):
        super().__init__()
        self.self_attn = Attention(args, layer)
        self.mlp = MLP(args)
        self.input_layernorm = make_norm(args)
        # Before the MLP in Llama; after attention in Gemma 2, which adds norms around the MLP.
        self.post_attention_layernorm = make_norm(args)
        self.sandwich = args.sandwich_norms
        if self.sandwich:
            self.pre_feedforward_layernorm = make_norm(args)
            self.post_feedforward_layernorm = make_norm(args)

    def forward(self, x, cos, sin, masks):
        h = self.self_attn(self.input_layernorm(x), cos, sin, masks)
        if not self.sandwich:
            x = x + h
            return x + self.mlp(self.post_attention_layernorm(x))
        x = x + self.post_attention_layernorm(h)
        return x + self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(x)))


class LlamaModel(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.embed_tokens = nn.Embedding(args.vocab_size, args.dim)
        self.layers = nn.ModuleList(DecoderLayer(args, i) for i in range(args.n_layers))
        self.norm = make_norm(args)


class Transformer(nn.Module):
    """Decoder-only language model: ``model(tokens) -> logits``; the layout of the family's HF class."""

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
        """Fresh random weights, as HF initialises these models (also after meta-device init + to_empty)."""
        self.tie_weights()
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=std)
                if getattr(module, "bias", None) is not None:
                    nn.init.zeros_(module.bias)
            elif isinstance(module, RMSNorm):
                nn.init.constant_(module.weight, 1.0 - module.offset)
            elif isinstance(module, nn.LayerNorm):
                module.reset_parameters()

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
        masks = self._attention_masks(attention_mask, b, t, offset, tokens.device)
        x = self.model.embed_tokens(tokens)
        if self.args.embed_scale:  # Gemma: the scale rounded to the activations' dtype, as HF does
            x = x * torch.tensor(self.args.dim ** 0.5, dtype=x.dtype)
        cos, sin = rope_cos_sin(self._inv_freq(tokens.device), input_pos, x.dtype)
        for layer in self.model.layers:
            x = layer(x, cos, sin, masks)
        x = self.model.norm(x)
        return x if return_hidden else softcap(self.lm_head(x), self.args.final_softcap)

    def _inv_freq(self, device) -> torch.Tensor:
        # Kept out of the state_dict and module buffers, so meta-device init and .to() never touch it.
        if device not in self._rope_cache:
            self._rope_cache[device] = rope_frequencies(self.args, device)
        return self._rope_cache[device]

    def _attention_masks(self, attention_mask, b: int, t: int, offset: int, device) -> dict:
        """{window: boolean (B, 1, T, S) mask, or None when plain causal attention is exact}, for
        every sliding window the layers use (None: no window)."""
        windows = {layer.self_attn.window for layer in self.model.layers}
        s = offset + t
        masks = {}
        for window in windows:
            if window is not None and window < s:
                masks[window] = self._mask(attention_mask, b, t, offset, device, window)
        full = None if attention_mask is None and (offset == 0 or t == 1) else \
            self._mask(attention_mask, b, t, offset, device, None)
        return {None: full, **{w: masks.get(w, full) for w in windows}}

    @staticmethod
    def _mask(attention_mask, b: int, t: int, offset: int, device, window: int | None) -> torch.Tensor:
        s = offset + t
        slots = torch.arange(s, device=device)
        distance = slots[offset:, None] - slots[None, :]
        mask = distance >= 0  # causal over cache slots
        if window is not None:
            mask = mask & (distance < window)
        mask = mask.expand(b, t, s)
        if attention_mask is not None:
            keys = attention_mask.bool()
            mask = mask & (keys[:, None, :] if keys.dim() == 2 else keys)
        # A padding query would otherwise see no key at all (NaN); let it see itself.
        mask = mask | (distance == 0)
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

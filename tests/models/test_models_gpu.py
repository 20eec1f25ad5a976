"""On a CUDA device: transformers parity in bf16, the fast attention kernels, cached generation."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from transformers import LlamaForCausalLM

from quarry.models.generate import generate
from quarry.models import llama_tiny
from quarry.models.checkpoint import load_pretrained, save_pretrained

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")]
CUDA = torch.device("cuda")


@pytest.fixture
def pair(tmp_path):
    torch.manual_seed(0)
    model = llama_tiny(dim=256, n_heads=8, n_kv_heads=2, intermediate_size=512, n_layers=4).eval()
    save_pretrained(model, tmp_path)
    return tmp_path


@pytest.mark.parametrize("dtype, tolerance", [(torch.float32, 1e-4), (torch.bfloat16, 0.1)])
def test_logits_match_transformers_on_cuda(pair, dtype, tolerance):
    ours = load_pretrained(pair, device=CUDA, dtype=dtype)
    hf = LlamaForCausalLM.from_pretrained(pair, dtype=dtype).to(CUDA).eval()
    tokens = torch.randint(0, 512, (4, 256), device=CUDA)
    with torch.no_grad():
        diff = (ours(tokens).float() - hf(tokens).logits.float()).abs().max().item()
    assert diff < tolerance


@pytest.mark.parametrize("backend, masked", [(SDPBackend.FLASH_ATTENTION, False), (SDPBackend.EFFICIENT_ATTENTION, True)])
def test_fast_attention_kernels_run_the_model(pair, backend, masked):
    model = load_pretrained(pair, device=CUDA, dtype=torch.bfloat16)
    tokens = torch.randint(0, 512, (2, 128), device=CUDA)
    mask = torch.ones(2, 128, dtype=torch.bool, device=CUDA)
    mask[1, :7] = False
    with torch.no_grad():
        expected = model(tokens, attention_mask=mask if masked else None)
        with sdpa_kernel([backend]), warnings.catch_warnings():
            warnings.simplefilter("error")  # a kernel that cannot take our inputs says why in a warning
            fast = model(tokens, attention_mask=mask if masked else None)
    assert (fast.float() - expected.float()).abs().max().item() < 0.1


def test_cached_generation_equals_recomputation_on_cuda(pair):
    model = load_pretrained(pair, device=CUDA)
    prompts = [[5, 17, 33, 2, 99, 4, 8], [40, 41], [300, 200, 100, 7], [11]]
    cached = generate(model, prompts, max_new_tokens=40)
    assert cached == generate(model, prompts, max_new_tokens=40, use_cache=False)
    assert cached == [generate(model, [p], max_new_tokens=40)[0] for p in prompts]
    sampled = generate(model, prompts, max_new_tokens=20, temperature=0.9, top_p=0.9, seed=3)
    assert sampled == generate(model, prompts, max_new_tokens=20, temperature=0.9, top_p=0.9, seed=3)


@pytest.mark.parametrize("name", ["mistral", "qwen2", "gemma", "gemma2", "phi3", "starcoder2"])
@pytest.mark.parametrize("dtype, tolerance", [(torch.float32, 1e-4), (torch.bfloat16, 0.1)])
def test_every_family_matches_transformers_on_cuda(tmp_path, name, dtype, tolerance):
    from family_models import save_hf

    hf = save_hf(name, tmp_path).to(CUDA, dtype)
    ours = load_pretrained(tmp_path, device=CUDA, dtype=dtype)
    tokens = torch.randint(0, 256, (4, 64), device=CUDA)
    with torch.no_grad():
        assert (ours(tokens).float() - hf(tokens).logits.float()).abs().max().item() < tolerance
    if dtype == torch.float32:  # bf16 rounds cached and recomputed attention differently
        prompts = [[5, 17, 33, 2, 99, 4, 8], [40, 41]]
        assert generate(ours, prompts, max_new_tokens=20) == generate(ours, prompts, max_new_tokens=20,
                                                                      use_cache=False)

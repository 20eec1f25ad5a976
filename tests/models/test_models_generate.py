"""Generation: the KV cache changes nothing, padding changes nothing, beams agree with transformers."""

from __future__ import annotations

import pytest
import torch
from transformers import LlamaForCausalLM

from quarry.models.generate import beam_search, generate, sample_next
from quarry.models.checkpoint import save_pretrained

PROMPTS = [[5, 17, 33, 2, 99, 4, 8], [40, 41], [300, 200, 100, 7], [11]]


@pytest.fixture
def hf_model(tmp_path, tiny_model):
    save_pretrained(tiny_model, tmp_path)
    return LlamaForCausalLM.from_pretrained(tmp_path).eval()


def test_kv_cache_generation_equals_recomputation(tiny_model):
    cached = generate(tiny_model, PROMPTS, max_new_tokens=30)
    recomputed = generate(tiny_model, PROMPTS, max_new_tokens=30, use_cache=False)
    assert cached == recomputed
    assert all(len(row) == 30 for row in cached)


def test_batched_with_left_padding_equals_one_by_one(tiny_model):
    batched = generate(tiny_model, PROMPTS, max_new_tokens=25)
    alone = [generate(tiny_model, [prompt], max_new_tokens=25)[0] for prompt in PROMPTS]
    assert batched == alone


def test_greedy_equals_transformers_generate(tiny_model, hf_model):
    for prompt in PROMPTS:
        ids = torch.tensor([prompt])
        theirs = hf_model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=20, do_sample=False,
                                   pad_token_id=0, eos_token_id=None)
        assert generate(tiny_model, [prompt], max_new_tokens=20)[0] == theirs[0, len(prompt):].tolist()


def test_beam_one_equals_greedy(tiny_model):
    for prompt in PROMPTS:
        greedy = generate(tiny_model, [prompt], max_new_tokens=20)[0]
        assert beam_search(tiny_model, prompt, num_beams=1, max_new_tokens=20) == greedy


@pytest.mark.parametrize("num_beams", [2, 4])
def test_beam_search_equals_transformers(tiny_model, hf_model, num_beams):
    for prompt in PROMPTS[:3]:
        ids = torch.tensor([prompt])
        theirs = hf_model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=12, do_sample=False,
                                   num_beams=num_beams, pad_token_id=0, eos_token_id=None)
        ours = generate(tiny_model, [prompt], max_new_tokens=12, num_beams=num_beams)[0]
        assert ours == theirs[0, len(prompt):].tolist()
        assert beam_search(tiny_model, prompt, num_beams=num_beams, max_new_tokens=12, use_cache=False) == ours


def test_stop_tokens_end_each_row_alone(tiny_model):
    free = generate(tiny_model, PROMPTS, max_new_tokens=15)
    stop = free[0][5]  # the sixth token the first prompt produces
    stopped = generate(tiny_model, PROMPTS, max_new_tokens=15, stop_tokens=[stop])
    for row, tokens in zip(free, stopped):
        expected = row[: row.index(stop)] if stop in row else row
        assert tokens == expected
    assert len(stopped[0]) == 5


def test_sampling_is_seeded_and_filters_apply(tiny_model):
    kwargs = dict(max_new_tokens=20, temperature=1.0, top_k=50, top_p=0.9)
    first = generate(tiny_model, PROMPTS, seed=7, **kwargs)
    assert first == generate(tiny_model, PROMPTS, seed=7, **kwargs)
    assert first != generate(tiny_model, PROMPTS, seed=8, **kwargs)
    greedy = generate(tiny_model, PROMPTS, max_new_tokens=20)
    assert generate(tiny_model, PROMPTS, max_new_tokens=20, temperature=0.8, top_k=1, seed=1) == greedy


def test_top_p_keeps_the_nucleus_only():
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.15, 0.05]]))
    generator = torch.Generator().manual_seed(0)
    drawn = {int(sample_next(logits, temperature=1.0, top_p=0.7, generator=generator)) for _ in range(300)}
    assert drawn == {0, 1}
    drawn = {int(sample_next(logits, temperature=1.0, top_k=3, generator=generator)) for _ in range(300)}
    assert drawn == {0, 1, 2}


def test_stream_reports_every_token_in_order(tiny_model):
    seen: list[tuple[int, int]] = []
    result = generate(tiny_model, PROMPTS[:2], max_new_tokens=6, stream=lambda row, token: seen.append((row, token)))
    for row in range(2):
        assert [token for r, token in seen if r == row] == result[row]


def test_user_caches_are_reused_and_kept(tiny_model):
    tiny_model.setup_caches(batch_size=8, max_seq_len=128)
    cache = tiny_model.layers[0].self_attn.kv_cache
    with_user_cache = generate(tiny_model, PROMPTS, max_new_tokens=10)
    assert tiny_model.layers[0].self_attn.kv_cache is cache
    tiny_model.remove_caches()
    assert with_user_cache == generate(tiny_model, PROMPTS, max_new_tokens=10)
    assert not tiny_model.caches_are_enabled()  # generate cleans up caches it created


def test_empty_prompt_is_refused(tiny_model):
    with pytest.raises(ValueError, match="at least one token"):
        generate(tiny_model, [[1, 2], []], max_new_tokens=3)

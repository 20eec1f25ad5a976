"""Chunked cross-entropy and DPO loss against their plain PyTorch definitions."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from quarry.training.data import ByteTokenizer, PackedSequences
from quarry.training.losses import IGNORE_INDEX, chunked_cross_entropy, dpo_loss, sequence_logprobs


@pytest.mark.parametrize("chunk", [5, 7, 64])
def test_chunked_cross_entropy_matches_full_logits_in_value_and_gradient(chunk):
    torch.manual_seed(0)
    hidden = torch.randn(2, 11, 16, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(40, 16, dtype=torch.float64, requires_grad=True)
    labels = torch.randint(0, 40, (2, 11))
    labels[0, :3] = IGNORE_INDEX
    total, count = chunked_cross_entropy(hidden, weight, labels, chunk_tokens=chunk)
    (total * 0.5).backward()
    got = (hidden.grad.clone(), weight.grad.clone())
    hidden.grad = weight.grad = None
    expected = F.cross_entropy((hidden @ weight.t()).view(-1, 40), labels.view(-1), ignore_index=IGNORE_INDEX,
                               reduction="sum")
    (expected * 0.5).backward()
    assert count == 19 and torch.allclose(total.double(), expected, rtol=1e-6)
    # Logits are taken in float32 whatever the input dtype.
    assert torch.allclose(got[0], hidden.grad, atol=1e-5) and torch.allclose(got[1], weight.grad, atol=1e-5)


def test_chunked_cross_entropy_with_frozen_weight_and_no_grad():
    hidden = torch.randn(1, 6, 8, requires_grad=True)
    weight = torch.randn(20, 8)
    labels = torch.randint(0, 20, (1, 6))
    total, _ = chunked_cross_entropy(hidden, weight, labels, chunk_tokens=4)
    total.backward()
    assert hidden.grad is not None and weight.grad is None
    with torch.no_grad():
        again, _ = chunked_cross_entropy(hidden, weight, labels, chunk_tokens=4)
    assert torch.allclose(again, total.detach())


def test_sequence_logprobs_sum_over_labelled_positions():
    hidden = torch.randn(2, 5, 8)
    weight = torch.randn(12, 8)
    labels = torch.tensor([[1, 2, IGNORE_INDEX, 3, 4], [IGNORE_INDEX] * 4 + [5]])
    logps = (hidden @ weight.t()).log_softmax(-1)
    expected = torch.stack([logps[0, [0, 1, 3, 4], [1, 2, 3, 4]].sum(), logps[1, 4, 5]])
    assert torch.allclose(sequence_logprobs(hidden, weight, labels, chunk_tokens=3), expected, atol=1e-5)


def test_dpo_loss_is_log2_at_equal_policy_and_falls_with_margin():
    zero = torch.zeros(3)
    loss, margin = dpo_loss(zero, zero, zero, zero, beta=0.1)
    assert torch.allclose(loss, torch.full((3,), 0.6931), atol=1e-4) and torch.equal(margin, zero)
    better, margin = dpo_loss(torch.full((3,), 2.0), zero, zero, zero, beta=0.5)
    assert (better < loss).all() and torch.allclose(margin, torch.ones(3))


def test_packing_never_asks_a_document_to_predict_the_next_one():
    tok = ByteTokenizer()
    packed = PackedSequences.from_texts(["ab", "cde", "f"], tok, seq_len=4)
    stream = packed.tokens.tolist()
    assert stream[:9] == [256, 97, 98, 257, 256, 99, 100, 101, 257]
    first, second = packed[0], packed[1]
    # Window 0 = [BOS a b EOS]: its last label would be the next document's BOS, so it is ignored.
    assert first["labels"].tolist() == [97, 98, 257, IGNORE_INDEX]
    assert second["tokens"].tolist() == [256, 99, 100, 101] and second["input_pos"].tolist() == [0, 1, 2, 3]
    assert second["labels"].tolist() == [99, 100, 101, 257]
    assert packed.text_bytes == 6

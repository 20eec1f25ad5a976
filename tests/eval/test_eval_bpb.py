"""The rolling-window BPB scorer: exact on known models, equal to the float64 reference."""

from __future__ import annotations

import math

import pytest
import torch

from quarry.eval.bpb import rolling_windows, score_documents, score_records
from quarry.eval.reference import reference_bpb
from eval_helpers import DOCS, BigramModel, ByteTokenizer, UniformByteModel, tiny_llama


def test_uniform_byte_model_scores_exactly_eight_bits_per_byte():
    result = score_documents(UniformByteModel(), ByteTokenizer(), DOCS, context_len=16, stride=5, batch_size=3)
    total = result.aggregate
    assert total.bytes == sum(len(text.encode()) for _, text in DOCS)
    assert total.tokens == total.bytes
    assert total.bpb == pytest.approx(8.0, abs=1e-12)
    for name, score in result.subsets.items():
        assert score.bpb == pytest.approx(8.0, abs=1e-12), name
    assert result.subsets["prose"].docs == 3 and result.subsets["python"].docs == 2


@pytest.mark.parametrize("n_tokens,context,stride", [(0, 4, 2), (1, 4, 2), (4, 4, 4), (5, 4, 4), (17, 4, 1),
                                                      (17, 8, 3), (100, 10, 10), (9, 16, 7)])
def test_rolling_windows_score_each_token_once_with_the_most_context_that_fits(n_tokens, context, stride):
    windows = rolling_windows(n_tokens, context, stride)
    scored = [i for w in windows for i in range(w.score_from, w.end)]
    assert scored == list(range(n_tokens))
    for w in windows:
        assert w.end - w.start <= context
        assert w.start <= w.score_from < w.end
        # a window is as long as the document allows: it only starts late to stay within context
        assert w.start == max(0, w.end - context)
        # every scored token sees at least context - stride earlier tokens (or the whole prefix)
        assert w.score_from - w.start >= min(w.score_from, context - stride)


def test_rolling_windows_reject_a_stride_longer_than_the_context():
    with pytest.raises(ValueError, match="stride"):
        rolling_windows(10, 4, 5)


def test_windows_change_nothing_for_a_model_that_looks_one_token_back():
    model = BigramModel()
    long_docs = [("code", "abcdefghij" * 7), ("code", "0123456789" * 5)]
    whole = score_documents(model, ByteTokenizer(), long_docs, context_len=1024, batch_size=2)
    for context, stride in [(8, 8), (8, 3), (2, 1), (5, 5)]:
        rolled = score_documents(model, ByteTokenizer(), long_docs, context_len=context, stride=stride,
                                 batch_size=3)
        assert rolled.aggregate.tokens == whole.aggregate.tokens
        assert rolled.aggregate.bits == pytest.approx(whole.aggregate.bits, rel=1e-6)


@pytest.mark.parametrize("context,stride,batch", [(64, 64, 4), (16, 5, 3), (8, 8, 1)])
def test_transformer_bpb_matches_the_float64_reference(context, stride, batch):
    model = tiny_llama(context=64)
    tok = ByteTokenizer()
    fast = score_documents(model, tok, DOCS, context_len=context, stride=stride, batch_size=batch)
    slow = reference_bpb(model, tok, DOCS, context_len=context, stride=stride)
    for name, score in fast.subsets.items():
        assert score.bytes == slow[name]["bytes"] and score.tokens == slow[name]["tokens"]
        assert score.bpb == pytest.approx(slow[name]["bpb"], abs=1e-4)
    assert fast.aggregate.bpb == pytest.approx(slow["__all__"]["bpb"], abs=1e-4)
    # byte-weighted aggregate of the subsets
    weighted = sum(s.bpb * s.bytes for s in fast.subsets.values()) / fast.aggregate.bytes
    assert fast.aggregate.bpb == pytest.approx(weighted, rel=1e-12)


def test_more_context_helps_a_model_with_memory_and_batching_does_not_matter():
    model = tiny_llama(context=64)
    tok = ByteTokenizer()
    a = score_documents(model, tok, DOCS, context_len=32, stride=7, batch_size=1)
    b = score_documents(model, tok, DOCS, context_len=32, stride=7, batch_size=16)
    assert a.aggregate.bits == pytest.approx(b.aggregate.bits, rel=1e-6)
    assert a.to_dict()["subsets"].keys() == b.to_dict()["subsets"].keys()


def test_first_token_is_conditioned_on_bos():
    seen = []

    class Recorder(UniformByteModel):
        def forward(self, tokens, attention_mask=None):
            seen.extend(row[0] for row in tokens.tolist())
            return super().forward(tokens)

    score_documents(Recorder(), ByteTokenizer(), [("a", "hello")], context_len=8)
    assert seen == [ByteTokenizer.bos_id]


def test_records_are_grouped_by_pile_set_name():
    records = [{"text": t, "meta": {"pile_set_name": s}} for s, t in DOCS] + [{"text": "no meta"}]
    result = score_records(UniformByteModel(), ByteTokenizer(), records, context_len=8)
    assert sorted(result.subsets) == ["default", "prose", "python"]
    assert not math.isnan(result.aggregate.bpb)


def test_bpb_is_the_same_on_repeated_runs():
    model = tiny_llama()
    runs = [score_documents(model, ByteTokenizer(), DOCS, context_len=16, stride=4).to_dict() for _ in range(2)]
    assert runs[0] == runs[1]
    assert torch.get_default_dtype() == torch.float32

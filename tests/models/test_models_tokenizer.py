"""The byte-level BPE tokenizer: lossless, deterministic, Hugging Face compatible, dataset-stamped."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from models_helpers import CORPUS
from transformers import AutoTokenizer

from quarry.config.training import TokenizerParams
from quarry.errors import QuarryError
from quarry.records import write_records
from quarry.stages.tokenizer import tokenizer_for
from quarry.tokenizer import Tokenizer, train_tokenizer


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_round_trips_any_unicode(tokenizer, text):
    assert tokenizer.decode(tokenizer.encode(text)) == text


@pytest.mark.parametrize("text", ["<|begin_of_text|>", "a<|pad|>b<|end_of_text|>", "\x00\r\n\t \u200b\U0010ffff"])
def test_special_token_strings_in_text_stay_text(tokenizer, text):
    ids = tokenizer.encode(text)
    assert tokenizer.bos_id not in ids and tokenizer.eos_id not in ids and tokenizer.pad_id not in ids
    assert tokenizer.decode(ids) == text


def test_bos_eos_and_special_ids(tokenizer):
    assert (tokenizer.bos_id, tokenizer.eos_id, tokenizer.pad_id) == (0, 1, 2)
    ids = tokenizer.encode("def add", bos=True, eos=True)
    assert ids[0] == 0 and ids[-1] == 1
    assert tokenizer.decode(ids) == "def add"
    assert tokenizer.encode_batch(["def add", "fox"], bos=True) == [tokenizer.encode(t, bos=True) for t in ["def add", "fox"]]
    assert tokenizer.vocab_size == 400
    assert len(tokenizer.encode("def add(a, b):")) < len("def add(a, b):")  # merges were learned


def test_training_is_deterministic():
    first = train_tokenizer(CORPUS, vocab_size=350, dataset_hash="d1")
    second = train_tokenizer(CORPUS, vocab_size=350, dataset_hash="d1")
    assert first.hash == second.hash
    assert first.hash != train_tokenizer(CORPUS, vocab_size=360).hash


def test_save_load_keeps_hash_and_roles(tmp_path, tokenizer):
    tokenizer.save(tmp_path)
    loaded = Tokenizer.load(tmp_path)
    assert loaded.hash == tokenizer.hash
    assert (loaded.bos_id, loaded.eos_id, loaded.pad_id) == (0, 1, 2)
    assert Tokenizer.load(tmp_path / "tokenizer.json").hash == tokenizer.hash
    hf = AutoTokenizer.from_pretrained(tmp_path)
    text = "Grüße 日本語 🎉 for i in range(10):"
    assert hf.encode(text, add_special_tokens=False) == tokenizer.encode(text)
    assert hf.decode(tokenizer.encode(text)) == text
    assert (hf.bos_token_id, hf.eos_token_id, hf.pad_token_id) == (0, 1, 2)


def test_loads_a_transformers_saved_folder(tmp_path, tokenizer):
    tokenizer.save(tmp_path / "ours")
    AutoTokenizer.from_pretrained(tmp_path / "ours").save_pretrained(tmp_path / "hf")
    loaded = Tokenizer.load(tmp_path / "hf")
    assert (loaded.bos_id, loaded.eos_id, loaded.pad_id) == (0, 1, 2)
    assert loaded.encode("def add(a, b):") == tokenizer.encode("def add(a, b):")


def test_trains_from_a_dataset_version_and_records_its_hash(tmp_path):
    dataset = tmp_path / "dataset"
    records = [{"text": text, "meta": {"id": f"doc{i}"}} for i, text in enumerate(CORPUS)]
    write_records(dataset / "train" / "part-00000.jsonl.zst", records[:100])
    write_records(dataset / "train" / "part-00001.jsonl.zst", records[100:])
    write_records(dataset / "validation" / "part-00000.jsonl.zst", [{"text": "held out " * 50, "meta": {}}])
    (dataset / "manifest.json").write_text(json.dumps({"version": "v" * 64}))
    params = TokenizerParams(vocab_size=380, special_tokens={"bos": "<s>", "eos": "</s>"})
    trained = tokenizer_for(dataset, tmp_path / "tok", params)
    assert trained.dataset_hash == "v" * 64
    assert trained.vocab_size == 380 and trained.bos_id == 0 and trained.pad_id == trained.eos_id == 1
    assert "held" not in json.loads(trained.to_json())["model"]["vocab"]  # only the train split is read
    assert Tokenizer.load(tmp_path / "tok").dataset_hash == "v" * 64
    (dataset / "manifest.json").unlink()  # no manifest: the content hash of the folder
    assert len(tokenizer_for(dataset, tmp_path / "tok-2", params).dataset_hash) == 64


def test_clear_errors(tmp_path):
    with pytest.raises(QuarryError, match="no tokenizer.json"):
        Tokenizer.load(tmp_path)
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(QuarryError, match="not a valid tokenizer.json"):
        Tokenizer.load(tmp_path)
    with pytest.raises(QuarryError, match="unknown roles"):
        train_tokenizer(["x"], vocab_size=300, special_tokens={"cls": "<cls>"})

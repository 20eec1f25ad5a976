"""Hub snapshots resolved from a local cache in offline mode; local folders pass straight through."""

from __future__ import annotations

import pytest
import torch

from quarry.errors import QuarryError
from quarry.models.checkpoint import load_pretrained, save_pretrained
from quarry.models.hub import download, resolve

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def hub_cache(cache_dir, repo_id: str, model) -> None:
    """The Hugging Face cache layout: refs/main names a commit whose snapshot holds the files."""
    repo = cache_dir / f"models--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(COMMIT)
    save_pretrained(model, repo / "snapshots" / COMMIT)


def test_offline_download_uses_the_local_cache(tmp_path, monkeypatch, tiny_model):
    hub_cache(tmp_path, "acme/tiny-llama", tiny_model)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    folder = download("acme/tiny-llama", cache_dir=tmp_path)
    assert folder == tmp_path / "models--acme--tiny-llama" / "snapshots" / COMMIT
    tokens = torch.tensor([[1, 2, 3]])
    with torch.no_grad():
        assert torch.equal(load_pretrained(folder)(tokens), tiny_model(tokens))


def test_offline_miss_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(QuarryError, match="not in the local Hugging Face cache and HF_HUB_OFFLINE is set"):
        download("acme/absent", cache_dir=tmp_path)
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "true")
    with pytest.raises(QuarryError, match="HF_HUB_OFFLINE"):
        download("acme/absent", cache_dir=tmp_path)


def test_local_folders_are_accepted_wherever_an_id_is(tmp_path, tiny_model):
    save_pretrained(tiny_model, tmp_path / "ckpt")
    assert download(str(tmp_path / "ckpt")) == tmp_path / "ckpt"
    assert resolve(tmp_path / "ckpt") == tmp_path / "ckpt"
    assert load_pretrained(str(tmp_path / "ckpt")).args == tiny_model.args
    with pytest.raises(QuarryError, match="no such model folder"):
        resolve(tmp_path / "missing")


def test_tokenizer_loads_from_a_cached_hub_id(tmp_path, monkeypatch, tiny_model, tokenizer):
    from quarry.tokenizer import Tokenizer

    hub_cache(tmp_path, "acme/tok", tiny_model)
    tokenizer.save(tmp_path / "models--acme--tok" / "snapshots" / COMMIT)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path))
    assert Tokenizer.load("acme/tok").hash == tokenizer.hash

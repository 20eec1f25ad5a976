"""`quarry generate`, `quarry download` and `quarry tokenizer` end to end through the CLI."""

from __future__ import annotations

import json

import torch
from models_helpers import CORPUS

from quarry.cli import main
from quarry.models.generate import generate
from quarry.models import llama_tiny
from quarry.models.checkpoint import save_pretrained
from quarry.records import write_records
from quarry.tokenizer import Tokenizer


def checkpoint(tmp_path, tokenizer):
    torch.manual_seed(4)
    model = llama_tiny(vocab_size=tokenizer.vocab_size).eval()
    return model, save_pretrained(model, tmp_path / "ckpt", tokenizer=tokenizer)


def test_generate_streams_the_greedy_completion(tmp_path, tokenizer, capsys):
    model, folder = checkpoint(tmp_path, tokenizer)
    assert main(["generate", str(folder), "--prompt", "def add", "--max-new-tokens", "12"]) == 0
    printed = capsys.readouterr().out
    ids = generate(model, [tokenizer.encode("def add", bos=True)], max_new_tokens=12,
                   stop_tokens=[tokenizer.eos_id], pad_id=tokenizer.pad_id)[0]
    assert printed == "def add" + tokenizer.decode(ids) + "\n"


def test_generate_from_a_prompts_file(tmp_path, tokenizer, capsys):
    model, folder = checkpoint(tmp_path, tokenizer)
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("\n".join(json.dumps({"prompt": p}) for p in ["import os", "The quick", "日本語"]) + "\n")
    out = tmp_path / "out.jsonl"
    args = ["generate", str(folder), "--prompts-file", str(prompts), "--output", str(out), "--max-new-tokens", "6",
            "--batch-size", "2"]
    assert main(args) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["prompt"] for r in rows] == ["import os", "The quick", "日本語"]
    alone = generate(model, [tokenizer.encode("日本語", bos=True)], max_new_tokens=6,
                     stop_tokens=[tokenizer.eos_id], pad_id=tokenizer.pad_id)[0]
    assert rows[2]["completion"] == tokenizer.decode(alone)


def test_generate_errors_are_one_line(tmp_path, tokenizer, capsys):
    _, folder = checkpoint(tmp_path, tokenizer)
    assert main(["generate", str(folder)]) == 1
    assert "exactly one of --prompt or --prompts-file" in capsys.readouterr().err
    assert main(["generate", str(tmp_path / "nope"), "-p", "x"]) == 1
    assert "no such model folder" in capsys.readouterr().err


def test_tokenizer_train_encode_decode(tmp_path, capsys):
    dataset = tmp_path / "dataset"
    write_records(dataset / "train" / "part-00000.jsonl.zst", [{"text": t, "meta": {}} for t in CORPUS])
    params = tmp_path / "params.yaml"
    params.write_text("tokenizer:\n  vocab_size: 330\n  min_frequency: 2\n")
    assert main(["tokenizer", "train", str(dataset), str(tmp_path / "tok"), "--params", str(params)]) == 0
    report = json.loads(capsys.readouterr().out)
    loaded = Tokenizer.load(tmp_path / "tok")
    assert report["vocab_size"] == loaded.vocab_size == 330
    assert report["tokenizer_hash"] == loaded.hash and len(report["dataset_hash"]) == 64
    assert main(["tokenizer", "encode", str(tmp_path / "tok"), "héllo wörld", "--bos"]) == 0
    ids = json.loads(capsys.readouterr().out)
    assert ids == loaded.encode("héllo wörld", bos=True)
    assert main(["tokenizer", "decode", str(tmp_path / "tok"), json.dumps(ids)]) == 0
    assert capsys.readouterr().out == "héllo wörld\n"


def test_download_prints_the_cached_snapshot(tmp_path, tiny_model, monkeypatch, capsys):
    commit = "f" * 40
    repo = tmp_path / "models--acme--tiny"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    save_pretrained(tiny_model, repo / "snapshots" / commit)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["download", "acme/tiny", "--cache-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(repo / "snapshots" / commit)
    assert main(["download", "acme/other", "--cache-dir", str(tmp_path)]) == 1
    assert "HF_HUB_OFFLINE is set" in capsys.readouterr().err

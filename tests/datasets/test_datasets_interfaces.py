"""Readers and documents around a version: Hugging Face datasets, datacard, citation, CLI,
and the Prefect tasks of the stage."""

from __future__ import annotations

import json
import shutil

import matplotlib.image
import pytest
import yaml

import quarry.datasets as qd
from quarry.stages.assemble import assemble
from conftest import changes_by_kind
from quarry.cli import main
from quarry.records import read_json


@pytest.fixture
def built(curated, params, tmp_path, monkeypatch):
    monkeypatch.setenv("QUARRY_HOME", str(tmp_path))  # the default registry: tmp_path/data/releases
    out = tmp_path / "data" / "datasets" / "test-code"
    section = {**params["assemble"], "citation": {"author": "Quarry Team", "url": "https://example.org/ds"}}
    manifest = assemble(curated, out, {"assemble": section}, ledgers=[curated])
    return out, manifest


def test_hugging_face_datasets_loads_the_shards_unchanged(built, tmp_path):
    from datasets import load_dataset

    out, manifest = built
    files = {split: [str(out / f["path"]) for f in info["files"]] for split, info in manifest["splits"].items()}
    loaded = load_dataset("json", data_files=files, cache_dir=str(tmp_path / "hf-cache"))
    for split in files:
        assert loaded[split].to_list() == list(qd.open(out, split=split))


def test_datacard_front_matter_tables_and_plot(built):
    out, manifest = built
    card = (out / "datacard.md").read_text()
    assert card.startswith("---\n")
    front = yaml.safe_load(card.split("---\n")[1])
    assert front["pretty_name"] == "test-code" and front["task_categories"] == ["text-generation"]
    assert front["configs"][0]["data_files"][0] == {"split": "train", "path": "train/*.jsonl.zst"}
    splits = {s["name"]: s["num_examples"] for s in front["dataset_info"]["splits"]}
    assert splits == {k: v["documents"] for k, v in manifest["composition"]["by_split"].items()}
    assert manifest["version"] in card and "| github-python |" in card
    python = manifest["composition"]["by_subset"]["github-python"]
    assert f"| github-python | {python['documents']:,} | {python['bytes']:,} |" in card
    assert "| filters | 300 | 288 | too short: 12 |" in card
    image = matplotlib.image.imread(out / "composition.png")
    assert image.shape[0] > 100 and image.shape[1] > 300


def test_cite_plain_and_bibtex(built, tmp_path, capsys):
    _, manifest = built
    release = tmp_path / "data" / "releases" / "test-code" / manifest["version"]
    assert read_json(release / "release.json")["path"] == "data/datasets/test-code"  # a clone finds it too
    assert main(["cite", manifest["version"][:10], "--format", "both"]) == 0
    text = capsys.readouterr().out
    assert "Quarry Team. test-code (" in text and "version 0.1.0" in text
    assert f"sha256:{manifest['version']}" in text and "@misc{test_code_0_1_0_" in text
    assert "version = {0.1.0}" in text and "\\url{https://example.org/ds}" in text
    assert main(["cite", "test-code", "--format", "bibtex"]) == 0
    assert capsys.readouterr().out.startswith("@misc{")


def test_cli_assemble_list_show_diff(built, curated, tmp_path, capsys):
    out, first = built
    params_file = tmp_path / "params.yaml"
    params_file.write_text(yaml.safe_dump({"assemble": {"name": "test-code", "shard_bytes": 16384,
                                                        "zstd_level": 3, "splits": {"train": 0.5, "test": 0.5}}}))
    assert main(["assemble", str(curated), str(out), "--params", str(params_file), "--parent", "latest",
                 "--workers", "2"]) == 0
    second = read_json(out / "manifest.json")
    assert second["parent"] == first["version"] and second["label"] == "0.2.0"
    assert set(second["splits"]) == {"train", "test"}
    capsys.readouterr()
    assert main(["dataset", "list"]) == 0
    listing = capsys.readouterr().out
    assert first["version"][:12] in listing and second["version"][:12] in listing
    assert main(["dataset", "show", "0.2.0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["version"] == second["version"]
    assert main(["dataset", "show", str(out)]) == 0
    assert "by license_category" in capsys.readouterr().out
    assert main(["dataset", "diff", "0.1.0", "0.2.0", "--json"]) == 0
    log, *rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert log["counts"]["removed"] == 0 and log["counts"]["changed"] == 0
    # new split fractions move documents, and the changelog says so
    moved = [row for row in rows if row["change"] == "split_changed"]
    assert moved and len(moved) == log["counts"]["split_changed"] and len(rows) == sum(
        log["counts"][kind] for kind in ("added", "removed", "changed", "split_changed"))
    assert all(row["from"] != row["to"] and row["to"] in second["splits"] for row in moved)
    assert main(["dataset", "show", "nope-nope"]) == 1
    assert "no dataset version matches 'nope-nope'" in capsys.readouterr().err


@pytest.mark.slow  # starts a temporary Prefect server
def test_prefect_assemble_reruns_only_the_shard_whose_work_was_deleted(curated, params, tmp_path, monkeypatch):
    """Run again, the flow's maps are answered by their resume records; a shard whose scattered
    copies are gone is scattered again, alone, and the version is the same."""
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")  # a busy machine starts slowly
    from prefect import flow

    from quarry.engine import run_stage
    from quarry.stages.assemble import ASSEMBLE, AssembleArgs
    from tasks.executor import PrefectExecutor

    out = tmp_path / "ds"

    @flow
    def build():
        return run_stage(ASSEMBLE, curated, out, params, PrefectExecutor(), args=AssembleArgs(ledgers=(curated,))).result

    def recorded():
        return {path.relative_to(tmp_path).as_posix(): path.stat().st_mtime_ns
                for path in (tmp_path / ".ds.work").rglob("*.done")}

    direct = assemble(curated, tmp_path / "direct", params, ledgers=[curated], register=False)
    first = build()
    assert first["version"] == direct["version"]
    assert list(qd.open(out)) == list(qd.open(tmp_path / "direct"))
    records = recorded()
    scattered = sorted(name for name in records if name.startswith(".ds.work/scatter/"))
    assert len(scattered) == len(list(curated.glob("*.jsonl.zst"))) > 1  # one per shard (rejects/ aside)
    assert build()["version"] == first["version"]
    assert recorded() == records  # every job answered by its record, none run again
    shutil.rmtree(tmp_path / scattered[0].removesuffix(".done"))
    assert build()["version"] == first["version"]
    again = recorded()
    assert {name for name in records if again[name] != records[name]} == {scattered[0]}


def test_cli_derive_in_place_removes_opted_out_origins(built, tmp_path, capsys):
    out, first = built
    records = list(qd.open(out))
    origin = records[0]["meta"]["origin"]
    (tmp_path / "optout.txt").write_text(origin + "\n")
    assert main(["dataset", "derive", str(out), str(out), "--drop-origins", str(tmp_path / "optout.txt"),
                 "--reason", "opt-out", "--optout-hash", "abc123"]) == 0
    derived = qd.load_manifest(out)
    assert derived["parent"] == first["version"] and derived["label"] == "0.1.1"
    assert [r for r in records if r["meta"]["origin"] != origin] == list(qd.open(out))
    removed = sorted(r["meta"]["id"] for r in records if r["meta"]["origin"] == origin)
    capsys.readouterr()
    assert main(["dataset", "diff", first["version"], derived["version"], "--json"]) == 0
    log, *rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert log["removed_by_reason"] == {"derive: opt-out": len(removed)}
    assert changes_by_kind(rows)["removed"] == {"derive: opt-out": removed}
    assert main(["dataset", "diff", "0.1.0", "0.1.1"]) == 0
    assert "## Removed (derive: opt-out)" in capsys.readouterr().out
    assert "dvc pull data/datasets/test-code" in (out / "datacard.md").read_text()


def test_cli_token_counts_with_a_trained_tokenizer(built, curated, tmp_path, capsys):
    from quarry.tokenizer import Tokenizer, train_tokenizer

    out, _ = built
    texts = [r["text"] for r in qd.open(out, split="train")]
    train_tokenizer(texts, vocab_size=400).save(tmp_path / "tok")
    tokenizer = Tokenizer.load(tmp_path / "tok")
    params_file = tmp_path / "params.yaml"
    params_file.write_text(yaml.safe_dump({"assemble": {"name": "test-code", "shard_bytes": 16384, "zstd_level": 3}}))
    assert main(["assemble", str(curated), str(out), "--params", str(params_file), "--tokenizer",
                 str(tmp_path / "tok"), "--parent", "latest"]) == 0
    manifest = qd.load_manifest(out)
    assert manifest["tokenizer"] == f"sha256:{tokenizer.hash}"
    for split, counts in manifest["composition"]["by_split"].items():
        assert counts["tokens"] == sum(len(tokenizer.encode(r["text"])) for r in qd.open(out, split=split))
    assert "| split | documents | bytes | tokens | share of bytes |" in (out / "datacard.md").read_text()
    (tmp_path / "ids.txt").write_text(next(qd.open(out, split="test"))["meta"]["id"] + "\n")
    derive = ["dataset", "derive", str(out), str(tmp_path / "v3"), "--drop-ids", str(tmp_path / "ids.txt"),
              "--reason", "opt-out"]
    assert main(derive) == 1
    assert "pass a tokenizer" in capsys.readouterr().err
    assert main([*derive, "--tokenizer", str(tmp_path / "tok")]) == 0
    derived = qd.load_manifest(tmp_path / "v3")
    assert derived["composition"]["total"]["documents"] == manifest["composition"]["total"]["documents"] - 1
    assert derived["composition"]["total"]["tokens"] == sum(len(tokenizer.encode(r["text"]))
                                                           for r in qd.open(tmp_path / "v3"))


def test_cli_verify_finds_a_changed_shard(built, capsys):
    out, manifest = built
    assert main(["dataset", "verify", str(out)]) == 0
    assert "every file matches" in capsys.readouterr().out
    shard = out / manifest["splits"]["test"]["files"][0]["path"]
    shard.write_bytes(shard.read_bytes()[:-1])
    assert main(["dataset", "verify", str(out)]) == 1
    assert "1 file(s) differ from SHA256SUMS: test/part-00000.jsonl.zst" in capsys.readouterr().err.replace("\n", "")

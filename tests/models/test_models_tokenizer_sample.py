"""The tokenizer's training sample (quarry.datasets.sample), the tokenizer stage that takes it shard by
shard (quarry.stages.tokenizer) and a given tokenizer instead of a trained one, on real files of this
machine: the standard library's code and the system's licence texts."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import pytest

from quarry.config.training import TokenizerParams
from quarry.datasets.sample import SampleCount, plan_sample, sample_shard, sampled_texts, split_shards
from quarry.records import read_records, write_records
from quarry.stages.tokenizer import tokenizer_for
from quarry.tokenizer import Tokenizer, train_tokenizer

STDLIB = Path(sysconfig.get_paths()["stdlib"])
LICENSES = Path("/usr/share/common-licenses")


def _records() -> list[dict]:
    code = sorted(STDLIB.glob("*.py"))[:120]
    prose = sorted(p for p in LICENSES.iterdir() if p.is_file())[:12] if LICENSES.is_dir() else []
    records = [{"text": p.read_text(encoding="utf-8", errors="replace"),
                "meta": {"id": f"code/{p.name}", "pile_set_name": "code"}} for p in code]
    records += [{"text": p.read_text(encoding="utf-8", errors="replace"),
                 "meta": {"id": f"prose/{p.name}", "pile_set_name": "prose"}} for p in prose]
    return [r for r in records if r["text"].strip()]


def _dataset(folder: Path, records: list[dict], shards: int) -> Path:
    for i in range(shards):
        write_records(folder / "train" / f"part-{i:05d}.jsonl.zst", records[i::shards])
    return folder


@pytest.fixture(scope="module")
def records():
    found = _records()
    if len({r["meta"]["pile_set_name"] for r in found}) < 2:
        pytest.skip("needs /usr/share/common-licenses for a second subset")
    return found


def _taken(folder: Path, budget_mb: float | None) -> tuple[list[str], SampleCount]:
    """The texts the sample takes (sorted) and its counts, shard by shard as the stage takes them."""
    plan, shards = plan_sample(folder, "train", budget_mb), split_shards(folder, "train")
    files = [folder.with_name(f"{folder.name}-sampled") / f"{i}.jsonl.zst" for i in range(len(shards))]
    counts = [sample_shard(shard, plan, out) for shard, out in zip(shards, files)]
    return sorted(sampled_texts(files)), SampleCount.summed(counts)


def test_the_sample_depends_on_the_documents_not_on_their_sharding(tmp_path, records):
    one = _dataset(tmp_path / "one", records, 1)
    three = _dataset(tmp_path / "three", list(reversed(records)), 3)
    total_mb = sum(len(r["text"].encode()) for r in records) / 1e6
    budget = total_mb / 4
    texts_one, count = _taken(one, budget)
    texts_three, _ = _taken(three, budget)
    assert texts_one == texts_three
    assert 0 < len(texts_one) == sum(count.documents.values()) < len(records)
    taken_mb = sum(count.bytes.values()) / 1e6
    assert budget * 0.4 < taken_mb < budget * 1.8   # by hash of id: near the budget, not exact


def test_each_subset_keeps_its_share_and_a_small_one_is_not_lost(tmp_path, records):
    folder = _dataset(tmp_path / "d", records, 2)
    sizes = {s: sum(len(r["text"].encode()) for r in records if r["meta"]["pile_set_name"] == s)
             for s in ("code", "prose")}
    plan = plan_sample(folder, "train", sum(sizes.values()) / 5e6)
    assert set(plan.rates) == {"code", "prose"}
    share = {s: plan.rates[s] * sizes[s] for s in sizes}
    total = sum(share.values())
    for subset, size in sizes.items():   # proportional, or at least the floor
        assert share[subset] / total >= min(size / sum(sizes.values()), 0.009)


def test_a_budget_above_the_split_takes_everything_and_trains_as_the_whole_split(tmp_path, records):
    folder = _dataset(tmp_path / "d", records, 2)
    texts, _ = _taken(folder, 10_000)
    assert texts == sorted(r["text"] for r in records)
    sampled = tokenizer_for(folder, tmp_path / "sampled", TokenizerParams(vocab_size=400, sample_mb=10_000))
    whole = tokenizer_for(folder, tmp_path / "whole", TokenizerParams(vocab_size=400, sample_mb=None))
    assert sampled.hash == whole.hash


def test_the_sample_is_recorded_in_the_tokenizers_lineage(tmp_path, records):
    folder = _dataset(tmp_path / "d", records, 2)
    budget = sum(len(r["text"].encode()) for r in records) / 3e6
    tokenizer = tokenizer_for(folder, tmp_path / "tok", TokenizerParams(vocab_size=400, sample_mb=budget))
    lineage = json.loads((tmp_path / "tok" / "tokenizer_lineage.json").read_text())
    sample = lineage["sample"]
    assert sample["split"] == "train" and sample["budget_mb"] == pytest.approx(budget)
    assert sample["documents"] == sum(s["documents"] for s in sample["by_subset"].values()) < len(records)
    assert set(sample["rates"]) == {"code", "prose"}
    assert Tokenizer.load(tmp_path / "tok").origin["sample"] == sample
    # the same params give the same tokenizer
    again = tokenizer_for(folder, tmp_path / "again", TokenizerParams(vocab_size=400, sample_mb=budget))
    assert again.hash == tokenizer.hash


def test_one_and_two_workers_train_the_same_bytes_and_keep_the_sample_out_of_the_output(tmp_path, records):
    folder = _dataset(tmp_path / "d", records, 5)
    budget = sum(len(r["text"].encode()) for r in records) / 2e6
    params = TokenizerParams(vocab_size=400, sample_mb=budget)
    made = {workers: tokenizer_for(folder, tmp_path / f"tok-{workers}", params, workers=workers) for workers in (1, 2)}
    files = {workers: {p.name: p.read_bytes() for p in (tmp_path / f"tok-{workers}").iterdir()} for workers in made}
    assert set(files[1]) == {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                             "tokenizer_lineage.json", "provenance.json"}
    for name in files[1].keys() - {"provenance.json"}:  # the provenance names the output's own folder
        assert files[1][name] == files[2][name], name
    assert made[1].origin["sample"]["documents"] < len(records)
    # the whole split's texts in shard order, taken by one reader, train the same tokenizer
    texts, _ = _taken(folder, budget)
    plan = plan_sample(folder, "train", budget)
    ordered = [r["text"] for shard in split_shards(folder, "train") for r in read_records(shard) if plan.takes(r)]
    assert sorted(ordered) == texts
    alone = train_tokenizer(ordered, vocab_size=400, special_tokens=params.special_tokens.model_dump())
    assert alone.to_json().encode() == files[1]["tokenizer.json"]


def test_a_given_tokenizer_is_used_instead_of_training_one(tmp_path, records):
    folder = _dataset(tmp_path / "d", records, 1)
    own = tokenizer_for(folder, tmp_path / "model", TokenizerParams(vocab_size=300, sample_mb=None))  # a model's own
    used = tokenizer_for(folder, tmp_path / "tok", TokenizerParams(vocab_size=8192, path=str(tmp_path / "model")))
    assert used.hash == own.hash and used.vocab_size == own.vocab_size
    lineage = json.loads((tmp_path / "tok" / "tokenizer_lineage.json").read_text())
    assert lineage["source"] == {"path": str(tmp_path / "model"), "tokenizer_hash": own.hash}
    assert "sample" not in lineage

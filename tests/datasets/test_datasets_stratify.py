"""Splits stratified by subset: every subset large enough has documents in each held-out split,
the choice depends only on that subset's documents and not on how they were sharded, and the
test split decontamination protects is the one assembly releases."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from quarry.config import as_params
from quarry.config.datasets import StratifyParams
from quarry.datasets.build import CensusNeeds, census_needs, shard_census
from quarry.datasets.reader import open_dataset
from quarry.records import read_json, read_records, write_records
from quarry.splits import SplitCensus, Splits, split_of, stratify
from quarry.stages.assemble import assemble
from quarry.stages.decontaminate import DECONTAMINATE
from quarry.engine import run_local

from conftest import make_record, write_raw

FRACTIONS = {"train": 0.96, "validation": 0.02, "test": 0.02}


def moves(documents, params=StratifyParams(), shards=1):
    """stratify() over a census made from ``shards`` interleaved parts of ``documents``."""
    parts = [SplitCensus.of(documents[i::shards], FRACTIONS, params, where=f"part-{i}") for i in range(shards)]
    return stratify(SplitCensus.merged(parts), FRACTIONS, params)


def held_out_by_hash(ids):
    return [doc_id for doc_id in ids if split_of(doc_id, FRACTIONS) != "train"]


def test_a_small_subset_gets_one_document_in_each_held_out_split():
    ids = [f"perl-{i}" for i in range(40)]
    assert len(held_out_by_hash(ids)) < 2          # by hash alone, at most one held-out document
    moved = moves([(doc_id, "perl") for doc_id in ids])
    splits = Splits(FRACTIONS, moved)
    by_split = {split: [d for d in ids if splits.of(d) == split] for split in FRACTIONS}
    assert len(by_split["validation"]) >= 1 and len(by_split["test"]) >= 1
    assert set(moved) <= set(ids) and len(by_split["train"]) >= 38


def test_below_min_docs_and_min_docs_zero_keep_the_hash_split():
    small = [(f"tiny-{i}", "tiny") for i in range(19)]
    assert moves(small) == {}
    assert moves([(f"perl-{i}", "perl") for i in range(40)], StratifyParams(min_docs=0)) == {}


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.integers(min_value=0, max_value=2**32 - 1))
def test_moves_do_not_depend_on_sharding_or_on_other_subsets(shards, seed):
    rng = random.Random(seed)
    perl = [(f"perl-{seed}-{i}", "perl") for i in range(rng.randint(20, 120))]
    man = [(f"man-{seed}-{i}", "man") for i in range(rng.randint(0, 300))]
    documents = perl + man
    rng.shuffle(documents)
    alone = moves(perl)
    together = moves(documents, shards=shards)
    assert {d: s for d, s in together.items() if d.startswith("perl-")} == alone
    assert together == moves(documents)


def test_per_split_asks_for_more_documents():
    moved = moves([(f"perl-{i}", "perl") for i in range(200)], StratifyParams(per_split=3))
    splits = Splits(FRACTIONS, moved)
    for split in ("validation", "test"):
        assert sum(splits.of(f"perl-{i}") == split for i in range(200)) >= 3


def test_assembly_releases_every_subset_in_validation_and_test(tmp_path):
    records = [make_record(1, i, "Python") for i in range(300)] + [make_record(2, i, "Markdown") for i in range(25)]
    src = write_raw(tmp_path / "src", records, shards=4)
    params = {"assemble": {"name": "strat", "splits": FRACTIONS, "zstd_level": 3, "zstd_threads": 1}}
    manifest = assemble(src, tmp_path / "ds", params, registry=tmp_path / "releases")
    for split in ("validation", "test"):
        subsets = {r["meta"]["pile_set_name"] for r in open_dataset(tmp_path / "ds", split=split)}
        assert subsets == {"github-python", "github-markdown"}, split
    assert manifest["mixture"]["stratify"]["min_docs"] == 20 and sum(manifest["mixture"]["stratify"]["moved"].values()) >= 1
    assert "in each held-out split" in (tmp_path / "ds" / "datacard.md").read_text()
    unstratified = {"assemble": {**params["assemble"], "stratify": {"min_docs": 0}}}
    other = assemble(src, tmp_path / "plain", unstratified, registry=tmp_path / "releases")
    assert other["mixture"]["stratify"]["moved"] == {} and other["version"] != manifest["version"]


def test_assembly_releases_the_test_split_decontamination_protected(tmp_path):
    """A document moved into test has a copy in training: decontamination drops the copy, records
    the move, and assembly puts the moved document in test."""
    records = [make_record(3, i, "Markdown") for i in range(30)]
    census = SplitCensus.of([(r["meta"]["id"], "github-markdown") for r in records], FRACTIONS, StratifyParams())
    moved = stratify(census, FRACTIONS, StratifyParams())
    test_doc = next(r for r in records if moved.get(r["meta"]["id"]) == "test")
    copy = make_record(4, 0, "Markdown", text="Pasted from the docs:\n" + test_doc["text"] + "\nend of paste")
    assert split_of(copy["meta"]["id"], FRACTIONS) == "train"
    write_records(tmp_path / "curated" / "part-00000.jsonl.zst", records + [copy])
    params = {"assemble": {"name": "strat", "splits": FRACTIONS, "zstd_level": 3, "zstd_threads": 1},
              "decontaminate": {"test_split": "test", "own_min_ngrams": 1, "own_min_share": 0.0}}
    run_local(DECONTAMINATE, tmp_path / "curated", tmp_path / "decontaminated", params)
    recorded = read_json(tmp_path / "decontaminated" / "splits.json")
    assert recorded["moved"][test_doc["meta"]["id"]] == "test"
    ledger = read_json(tmp_path / "decontaminated" / "ledger.json")
    assert sum(ledger["dropped"].values()) == 1
    assemble(tmp_path / "decontaminated", tmp_path / "ds", params, registry=tmp_path / "releases")
    test_ids = {r["meta"]["id"] for r in open_dataset(tmp_path / "ds", split="test")}
    train_ids = {r["meta"]["id"] for r in open_dataset(tmp_path / "ds", split="train")}
    assert test_doc["meta"]["id"] in test_ids and copy["meta"]["id"] not in train_ids


def test_the_census_reads_shards_only_for_what_the_plan_needs(tmp_path):
    """Moves recorded by decontamination for these settings and no weights: no shard is read for
    the plan; weights: bytes per subset, in the same read as a census would be."""
    records = [make_record(5, i, "Python") for i in range(40)] + [make_record(6, i, "Markdown") for i in range(30)]
    src = write_raw(tmp_path / "curated", records, shards=2)
    params = {"assemble": {"name": "strat", "splits": FRACTIONS}, "decontaminate": {"test_split": "test"}}
    run_local(DECONTAMINATE, src, tmp_path / "decontaminated", params)
    section = as_params(params).assemble
    assert census_needs(tmp_path / "decontaminated", section) == CensusNeeds(subset_bytes=False, census=False)
    assert census_needs(src, section) == CensusNeeds(subset_bytes=False, census=True)
    weighted = as_params({"assemble": {**params["assemble"], "subsets": {"github-python": {"weight": 0.5}}}}).assemble
    needs = census_needs(tmp_path / "decontaminated", weighted)
    assert needs == CensusNeeds(subset_bytes=True, census=False)
    shard = sorted((tmp_path / "decontaminated").glob("*.jsonl.zst"))[0]
    counted = shard_census(shard, weighted, needs)
    assert counted.census is None and set(counted.subset_bytes) <= {"github-python", "github-markdown"}
    assert sum(counted.subset_bytes.values()) == sum(len(r["text"].encode()) for r in read_records(shard))
    assert shard_census(tmp_path / "absent.jsonl.zst", section, CensusNeeds(False, False)).subset_bytes == {}

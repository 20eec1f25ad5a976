"""The dedup stage end to end on planted duplicates of real source files."""

from __future__ import annotations

import re

import orjson
import pytest

from dedup_corpus import LICENSE_HEADER, MODULES, kept_records, record, source
from quarry.engine import run_local
from quarry.records import read_folder, read_json, read_records, write_records
from quarry.stages.dedup import DEDUP, decided


def _planted() -> tuple[list[list[dict]], dict[str, str]]:
    """Two shards: originals, planted copies, and true non-duplicates sharing boilerplate.

    Returns the shards and, for each planted copy, the id of the original it copies.
    """
    originals = [record(f"orig-{i:02d}", source(name), path=name, origin=f"https://example.org/r{i}")
                 for i, name in enumerate(MODULES)]
    text = {r["meta"]["id"]: r["text"] for r in originals}
    planted = {}

    def plant(doc_id, of, new_text, **kw):
        planted[doc_id] = of
        return record(doc_id, new_text, origin="https://example.org/zz-fork", **kw)

    decoder, encoder = text["orig-00"], text["orig-01"]
    copies = [
        # whitespace only: an exact duplicate after normalisation
        plant("ws-copy", "orig-00", decoder.replace("\n", "\r\n").replace("    ", "\t") + "\n\n\n"),
        # renamed identifier everywhere it occurs
        plant("renamed", "orig-04", re.sub(r"\bwidth\b", "columns", text["orig-04"])),
        # a license header added
        plant("new-header", "orig-06", LICENSE_HEADER + text["orig-06"]),
        # small insertions scattered through the file
        plant("inserted", "orig-07", "\n".join(line + ("  # tweak" if i % 40 == 0 else "")
                                               for i, line in enumerate(text["orig-07"].splitlines()))),
        # a copyleft copy of a file sorts before its permissive original but must not win
        plant("aa-gpl-copy", "orig-08", text["orig-08"] + "\n# vendored\n", category="copyleft"),
    ]
    # true non-duplicates: different files that share the same long license header
    boiler = [record(f"boiler-{i}", LICENSE_HEADER + source(name), path=name, origin="https://example.org/b")
              for i, name in enumerate(["getopt.py", "glob.py", "cmd.py"])]
    # short documents sharing a header are not near-deduplicated (below min_tokens)
    shorts = [record("short-a", "x = 1\n"), record("short-b", "y = 2\n")]
    shard_a = originals[:10] + copies[:2] + boiler[:1] + shorts
    shard_b = originals[10:] + copies[2:] + boiler[1:]
    return [shard_a, shard_b], planted


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    root = tmp_path_factory.mktemp("dedup")
    shards, truth = _planted()
    for i, shard in enumerate(shards):
        write_records(root / "src" / f"part-{i:05d}.jsonl.zst", shard)
    return root, truth


def test_planted_duplicates_removed_and_boilerplate_kept(planted):
    root, truth = planted
    ledger = run_local(DEDUP, root / "src", root / "out1", {}, workers=1)
    kept = {p.name: [r["meta"]["id"] for r in read_records(p)] for p in sorted((root / "out1").glob("*.jsonl.zst"))}
    kept_ids = {i for ids in kept.values() for i in ids}
    assert not kept_ids & set(truth), "a planted copy survived"
    for original in set(truth.values()):
        assert original in kept_ids
    assert {"boiler-0", "boiler-1", "boiler-2", "short-a", "short-b"} <= kept_ids
    assert ledger["input"] == 20 + 5 + 3 + 2
    assert ledger["kept"] == ledger["input"] - len(truth)
    assert ledger["dropped"] == {"exact_duplicate": 1, "near_duplicate": 4}
    assert ledger["clusters"]["near_clusters"] == 4 and ledger["clusters"]["cluster_sizes"] == {"2": 4}
    assert read_json(root / "out1" / "ledger.json") == ledger
    # rejects name each removed copy, its reason and the copy that was kept
    rejects = {r["meta"]["id"]: r["meta"] for r in read_folder(root / "out1" / "rejects")}
    assert set(rejects) == set(truth)
    for copy, original in truth.items():
        assert rejects[copy]["kept"] == original
    assert rejects["ws-copy"]["reason"] == "exact_duplicate"
    assert rejects["inserted"]["reason"] == "near_duplicate"
    # kept members of clusters carry the cluster id and size; other records carry null
    records = {r["meta"]["id"]: r["meta"] for r in kept_records(root / "out1")}
    assert records["orig-06"]["near_dup_cluster"] == "orig-06" and records["orig-06"]["near_dup_size"] == 2
    assert records["orig-02"]["near_dup_cluster"] is None
    assert not list((root / "out1").glob(".dedup-index-*")), "scratch index left behind"


def test_same_bytes_for_one_or_two_workers_and_reruns(planted):
    root, _ = planted
    run_local(DEDUP, root / "src", root / "w1", {}, workers=1)
    run_local(DEDUP, root / "src", root / "w2", {}, workers=2)
    run_local(DEDUP, root / "src", root / "w2", {}, workers=2)
    files = sorted(p.relative_to(root / "w1") for p in (root / "w1").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(root / "w2") for p in (root / "w2").rglob("*") if p.is_file())
    for rel in files:
        assert (root / "w1" / rel).read_bytes() == (root / "w2" / rel).read_bytes(), rel


def test_exact_and_near_can_be_switched_off(planted, tmp_path):
    root, truth = planted
    only_exact = run_local(DEDUP, root / "src", tmp_path / "exact", {"dedup": {"near": False}})
    assert only_exact["dropped"] == {"exact_duplicate": 1}
    nothing = run_local(DEDUP, root / "src", tmp_path / "none", {"dedup": {"near": False, "exact": False}})
    assert nothing["kept"] == nothing["input"]


def test_index_dir_is_kept_when_given(planted, tmp_path):
    root, _ = planted
    run_local(DEDUP, root / "src", tmp_path / "out", {}, work_dir=tmp_path / "index")
    decisions = decided(tmp_path / "index")[0]
    assert ["exact_duplicate", "orig-00", 2] in decisions.values()

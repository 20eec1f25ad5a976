"""Assembling curated shards into a dataset version: determinism, version hash, splits,
composition, changelog, registry, readers."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest
from conftest import changes_by_kind, curate, make_record, raw_records, release_changes, write_raw

import quarry.datasets as qd
from quarry.stages.assemble import assemble
from quarry.datasets.changelog import compare
from quarry.datasets.manifest import verify_sums
from quarry.datasets.shards import order_key
from quarry.errors import QuarryError
from quarry.records import read_json, read_records
from quarry.splits import split_of


def shard_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*.jsonl.zst"))}


def without_code(manifest: dict) -> dict:
    return {k: v for k, v in manifest.items() if k != "code_version"}


def test_rebuilds_are_byte_identical_for_any_worker_and_thread_count(curated, params, tmp_path, registry):
    first = assemble(curated, tmp_path / "a" / "ds", params, ledgers=[curated], registry=registry)
    threaded = {"assemble": {**params["assemble"], "zstd_threads": 3}}
    second = assemble(curated, tmp_path / "b" / "ds", threaded, ledgers=[curated], workers=3, registry=registry)
    assert second["version"] == first["version"]
    assert without_code(second) == without_code(first)
    a, b = shard_bytes(tmp_path / "a" / "ds"), shard_bytes(tmp_path / "b" / "ds")
    assert a == b and len(a) > 6  # several shards per split at this shard size
    assert (tmp_path / "a/ds/composition.png").read_bytes() == (tmp_path / "b/ds/composition.png").read_bytes()
    # the version hash is recomputed from the files, not taken on trust
    from quarry.datasets.manifest import version_hash
    assert version_hash(read_json(tmp_path / "a/ds/manifest.json")) == first["version"]


def test_rebuilding_a_version_leaves_its_release_files_as_they_were(curated, params, tmp_path, registry):
    """DVC tracks the registry: a forced rebuild of the same version must not change a byte of it."""
    manifest = assemble(curated, tmp_path / "ds", params, ledgers=[curated], registry=registry)
    release = Path(registry) / manifest["name"] / manifest["version"]
    before = {p.name: p.read_bytes() for p in sorted(release.iterdir())}
    assert "release.json" in before
    assemble(curated, tmp_path / "ds", params, ledgers=[curated], registry=registry)
    assert {p.name: p.read_bytes() for p in sorted(release.iterdir())} == before


def test_bytes_do_not_depend_on_how_the_sources_are_sharded(tmp_path, params, registry):
    records = [r for r in raw_records() if len(r["text"]) >= 40]
    one = assemble(write_raw(tmp_path / "one", records, shards=1), tmp_path / "a", params, registry=registry)
    shuffled = sorted(records, key=lambda r: r["text"])
    five = assemble(write_raw(tmp_path / "five", shuffled, shards=5), tmp_path / "b", params, registry=registry)
    assert one["version"] == five["version"]
    assert shard_bytes(tmp_path / "a") == shard_bytes(tmp_path / "b")


def test_layout_schema_and_checksums(curated, params, tmp_path, registry):
    out = tmp_path / "ds"
    manifest = assemble(curated, out, params, ledgers=[curated / "ledger.json"], registry=registry)
    for name in ("manifest.json", "SHA256SUMS", "datacard.md", "composition.png", "ledger.json"):
        assert (out / name).is_file(), name
    assert set(manifest["splits"]) == {"train", "validation", "test"}
    for split, info in manifest["splits"].items():
        assert info["files"] and all(f["path"].startswith(f"{split}/part-") for f in info["files"])
        for record in qd.open(out, split=split):
            assert record["meta"]["split"] == split
            assert record["meta"]["pile_set_name"].startswith("github-")
            assert record["meta"]["bytes"] == len(record["text"].encode())
    assert verify_sums(out) == []
    check = subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=out, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    (out / "train" / "part-00000.jsonl.zst").write_bytes(b"tampered")
    assert verify_sums(out) == ["train/part-00000.jsonl.zst"]
    for key in ("name", "version", "label", "snapshot_id", "splits", "composition", "ledger", "params_hash",
                "optout_registry_hash", "code_version", "parent"):
        assert key in manifest
    assert manifest["ledger"]["filters"]["dropped"] == {"too short": 12}
    assert manifest["ledger"]["assemble"]["input"] == 288


def test_composition_equals_a_recount_from_the_shards(curated, params, tmp_path, registry):
    class Words:  # any object with encode(text) -> list[int] counts tokens
        version = "words-v1"

        def encode(self, text):
            return [len(w) for w in text.split()]

    manifest = assemble(curated, tmp_path / "ds", params, tokenizer=Words(), registry=registry)
    comp = manifest["composition"]
    docs, size, tokens = Counter(), Counter(), Counter()
    for path in sorted((tmp_path / "ds").glob("*/part-*.jsonl.zst")):
        for record in read_records(path):
            meta = record["meta"]
            category = (meta.get("license") or {}).get("category") or "unknown"
            for key in (("split", meta["split"]), ("subset", meta["pile_set_name"]),
                        ("language", meta["language"]), ("license_category", category),
                        ("pair", (meta["split"], meta["pile_set_name"]))):
                docs[key] += 1
                size[key] += len(record["text"].encode("utf-8"))
                tokens[key] += len(record["text"].split())
    for dim in ("split", "subset", "language", "license_category"):
        table = comp[f"by_{dim}"]
        assert {k: v["documents"] for k, v in table.items()} == {k[1]: n for k, n in docs.items() if k[0] == dim}
        assert {k: v["bytes"] for k, v in table.items()} == {k[1]: n for k, n in size.items() if k[0] == dim}
        assert {k: v["tokens"] for k, v in table.items()} == {k[1]: n for k, n in tokens.items() if k[0] == dim}
    pairs = {(s, sub): v["documents"] for s, t in comp["by_split_and_subset"].items() for sub, v in t.items()}
    assert pairs == {k[1]: n for k, n in docs.items() if k[0] == "pair"}
    assert comp["total"]["documents"] == 288 and manifest["tokenizer"] == "words-v1"


def test_changed_document_changes_hash_and_changelog_names_it(tmp_path, params, registry):
    records = raw_records()
    v1_src = curate(write_raw(tmp_path / "raw1", records), tmp_path / "cur1")
    out = tmp_path / "data" / "ds"
    v1 = assemble(v1_src, out, params, ledgers=[v1_src], registry=registry)

    edited = list(records)
    old = edited[7]
    edited[7] = make_record(7 % 7, 7, old["meta"]["language"], text=old["text"] + "\n# edited")
    edited[39] = make_record(39 % 7, 39, records[39]["meta"]["language"], text="y=1")  # now filtered out
    gone = edited.pop(11)  # left the source repository
    v2_src = curate(write_raw(tmp_path / "raw2", edited), tmp_path / "cur2")
    v2 = assemble(v2_src, out, params, ledgers=[v2_src], parent=v1["version"], registry=registry)

    assert v2["version"] != v1["version"] and v2["parent"] == v1["version"]
    assert (v1["label"], v2["label"]) == ("0.1.0", "0.2.0")
    release = registry / "test-code" / v2["version"]
    log, changes = read_json(release / "changelog.json"), release_changes(release)
    assert changes["changed"] == [{"key": f"https://example.org/r0::{old['meta']['path']}",
                                   "from": old["meta"]["id"], "to": edited[7]["meta"]["id"]}]
    assert changes["removed"]["source change"] == [gone["meta"]["id"]]
    assert changes["removed"]["filters: too short"] == [records[39]["meta"]["id"]]
    assert changes["added"] == [] and log["counts"]["removed"] == 2
    assert log["removed_by_reason"] == {"filters: too short": 1, "source change": 1}
    markdown = (release / "CHANGELOG.md").read_text()
    assert edited[7]["meta"]["id"] in markdown
    # removed documents are shown by origin and path, with a count per origin
    assert f"- {gone['meta']['origin']} {gone['meta']['path']} (`{gone['meta']['id']}`)" in markdown
    assert f"| {gone['meta']['origin']} | 0 |" in markdown
    # the same changelog from the registry, for any two versions, in either direction
    assert compare(v1["version"][:10], "0.2.0", tmp_path / "again.jsonl.zst", registry=registry) == log
    assert changes_by_kind(read_records(tmp_path / "again.jsonl.zst", require_text=False)) == changes
    back = compare(v2["version"], v1["version"], tmp_path / "back.jsonl.zst", registry=registry)
    assert back["counts"]["added"] == 2
    assert changes_by_kind(read_records(tmp_path / "back.jsonl.zst", require_text=False))["added"] == sorted(
        [gone["meta"]["id"], records[39]["meta"]["id"]])


def test_a_parent_outside_the_registry_rebuilt_in_place_is_read_before(tmp_path, params, registry):
    """A parent given as a folder that is not registered, and rebuilt in place: the changelog is
    from its documents as they were, read before the folder was replaced."""
    records = raw_records()
    out = tmp_path / "ds"
    assemble(curate(write_raw(tmp_path / "raw1", records), tmp_path / "cur1"), out, params, register=False)
    gone = records[11]
    v2 = assemble(curate(write_raw(tmp_path / "raw2", records[:11] + records[12:]), tmp_path / "cur2"), out, params,
                  parent=out, registry=registry)
    release = registry / "test-code" / v2["version"]
    changes = release_changes(release)
    assert changes["removed"] == {"source change": [gone["meta"]["id"]]} and changes["added"] == []
    assert read_json(release / "changelog.json")["counts"]["unchanged"] == len(list(qd.open(out)))


def test_splits_are_stable_across_versions(tmp_path, params, registry):
    records = raw_records()
    v1_src = curate(write_raw(tmp_path / "raw1", records), tmp_path / "cur1")
    assemble(v1_src, tmp_path / "v1", params, registry=registry)
    more = records[50:] + [make_record(9, 1000 + i, "Python") for i in range(80)]
    v2_src = curate(write_raw(tmp_path / "raw2", more, shards=5), tmp_path / "cur2")
    v2 = assemble(v2_src, tmp_path / "v2", params, parent=tmp_path / "v1", registry=registry)
    split1 = {r["meta"]["id"]: r["meta"]["split"] for r in qd.open(tmp_path / "v1")}
    split2 = {r["meta"]["id"]: r["meta"]["split"] for r in qd.open(tmp_path / "v2")}
    common = set(split1) & set(split2)
    assert len(common) > 200
    assert all(split1[i] == split2[i] == split_of(i, params["assemble"]["splits"]) for i in common)
    log = read_json(registry / "test-code" / v2["version"] / "changelog.json")
    assert log["counts"]["split_changed"] == 0 and log["counts"]["added"] == 80
    assert len(release_changes(registry / "test-code" / v2["version"])["added"]) == 80


def test_mixture_epochs_repeat_training_documents_only(curated, params, tmp_path, registry):
    section = {**params["assemble"], "subsets": {"github-python": {"epochs": 2}, "github-markdown": {"epochs": 0.5},
                                                 "github-javascript": 0}}
    manifest = assemble(curated, tmp_path / "ds", {"assemble": section}, registry=registry)
    source = list(qd.open(curated))
    by_id = Counter(r["meta"]["id"] for r in qd.open(tmp_path / "ds"))
    for record in source:
        doc_id, subset = record["meta"]["id"], record["meta"]["pile_set_name"]
        split = split_of(doc_id, section["splits"])
        if subset == "github-python":
            assert by_id[doc_id] == (2 if split == "train" else 1)
        elif subset == "github-javascript":
            assert by_id[doc_id] == 0
    markdown = [r["meta"]["id"] for r in source if r["meta"]["pile_set_name"] == "github-markdown"]
    kept = sum(1 for i in markdown if by_id[i])
    assert 0.3 * len(markdown) < kept < 0.7 * len(markdown)
    ledger = manifest["ledger"]["assemble"]
    assert ledger["dropped"]["not sampled by the mixture"] == len(source) - len(by_id)
    # shuffled: the split is in the order of the hash of (id, copy)
    train_ids = [r["meta"]["id"] for r in qd.open(tmp_path / "ds", split="train")]
    copies = Counter(train_ids)
    assert train_ids == [d for _, d in sorted((order_key(d, k), d) for d, n in copies.items() for k in range(n))]
    # in source order instead, second copies come after every first copy, never next to it
    assemble(curated, tmp_path / "ordered", {"assemble": {**section, "shuffle": False}}, registry=registry)
    ordered = [r["meta"]["id"] for r in qd.open(tmp_path / "ordered", split="train")]
    assert sorted(ordered) == sorted(train_ids)
    first_repeat = next(i for i, d in enumerate(ordered) if d in ordered[:i])
    assert len(set(ordered[:first_repeat])) == first_repeat == len(set(ordered))
    assert ordered[:first_repeat] == [r["meta"]["id"] for r in source if by_id[r["meta"]["id"]]
                                      and split_of(r["meta"]["id"], section["splits"]) == "train"]
    rejected = list(read_records(tmp_path / "ds" / "rejects" / "train.jsonl.zst"))
    assert {r["meta"]["reason"] for r in rejected} == {"not sampled by the mixture"}


def test_weights_give_the_subsets_their_byte_shares(curated, params, tmp_path, registry):
    section = {**params["assemble"], "subsets": {"github-python": {"weight": 0.6},
                                                 "github-javascript": {"weight": 0.2},
                                                 "github-markdown": {"weight": 0.2}}}
    manifest = assemble(curated, tmp_path / "ds", {"assemble": section}, registry=registry)
    train = manifest["composition"]["by_split_and_subset"]["train"]
    total = sum(v["bytes"] for v in train.values())
    assert abs(train["github-python"]["bytes"] / total - 0.6) < 0.1
    assert manifest["mixture"]["epochs"]["github-python"] > 1 > manifest["mixture"]["epochs"]["github-markdown"]


def test_open_by_hash_label_name_and_plain_folders(curated, params, tmp_path, registry):
    out = tmp_path / "ds"
    manifest = assemble(curated, out, params, registry=registry)
    everything = list(qd.open(out))
    assert len(everything) == 288
    assert list(qd.open(manifest["version"][:8], registry=registry)) == everything
    assert list(qd.open("0.1.0", registry=registry, split="test")) == list(qd.open(out, split="test"))
    python = list(qd.open("test-code", registry=registry, subset="github-python"))
    assert python and {r["meta"]["pile_set_name"] for r in python} == {"github-python"}
    assert qd.load_manifest("test-code@0.1.0", registry=registry)["version"] == manifest["version"]
    # any folder of shards: filters on meta.split / meta.pile_set_name, rejects/ is not data
    assert len(list(qd.open(out / "validation"))) == manifest["composition"]["by_split"]["validation"]["documents"]
    assert len(list(qd.open(curated))) == 288
    assert list(qd.open(curated, split="train")) == []  # curated records carry no split yet
    with pytest.raises(QuarryError, match="no dataset version matches"):
        qd.load_manifest("ffffffffff", registry=registry)
    with pytest.raises(QuarryError, match="not a dataset version"):
        qd.load_manifest(curated, registry=registry)


def test_registered_version_whose_folder_was_rebuilt_points_to_dvc(curated, params, tmp_path, registry):
    out = tmp_path / "ds"
    first = assemble(curated, out, params, registry=registry)
    assemble(curated, out, {"assemble": {**params["assemble"], "label": "9.0.0"}}, registry=registry)
    with pytest.raises(QuarryError, match="dvc pull"):
        list(qd.open(first["version"], registry=registry))
    assert [r["manifest"]["label"] for r in qd.releases("test-code", registry)] == ["0.1.0", "9.0.0"]


def test_derive_version_removes_only_and_names_removals(curated, params, tmp_path, registry):
    parent = assemble(curated, tmp_path / "v1", params, ledgers=[curated], registry=registry)
    records = list(qd.open(tmp_path / "v1"))
    opted_out = {r["meta"]["origin"] for r in records[:3]} - {records[5]["meta"]["origin"]}
    child = qd.derive_version(tmp_path / "v1", tmp_path / "v2",
                              lambda r: r["meta"]["origin"] not in opted_out, "opt-out",
                              optout_registry_hash="registry-2", registry=registry)
    remaining = list(qd.open(tmp_path / "v2"))
    removed = sorted(r["meta"]["id"] for r in records if r["meta"]["origin"] in opted_out)
    assert removed and len(remaining) == len(records) - len(removed)
    assert [r for r in records if r["meta"]["origin"] not in opted_out] == remaining
    assert child["parent"] == parent["version"] and child["label"] == "0.1.1"
    assert child["optout_registry_hash"] == "registry-2"
    assert child["ledger"]["derive"]["dropped"] == {"opt-out": len(removed)}
    assert child["composition"]["total"]["documents"] == len(remaining)
    changes = release_changes(registry / "test-code" / child["version"])
    assert changes["removed"] == {"derive: opt-out": removed} and changes["added"] == [] and changes["changed"] == []
    assert verify_sums(tmp_path / "v2") == []


def test_labels_are_unique_per_name(tmp_path, params, registry):
    records = raw_records()
    first = assemble(curate(write_raw(tmp_path / "raw1", records), tmp_path / "cur1"), tmp_path / "a", params,
                        registry=registry)
    other = curate(write_raw(tmp_path / "raw2", records[:-5]), tmp_path / "cur2")
    second = assemble(other, tmp_path / "b", params, registry=registry)  # same automatic label wanted
    assert (first["label"], second["label"]) == ("0.1.0", "0.1.1")
    again = assemble(other, tmp_path / "b", params, registry=registry)  # a rebuild keeps its label
    assert again["version"] == second["version"] and again["label"] == "0.1.1"
    chosen = {"assemble": {**params["assemble"], "label": "0.1.0"}}
    with pytest.raises(QuarryError, match=r"label 0.1.0 already names version"):
        assemble(curate(write_raw(tmp_path / "raw3", records[:-9]), tmp_path / "cur3"), tmp_path / "c", chosen,
                    registry=registry)
    assert [r["manifest"]["label"] for r in qd.releases(registry=registry)] == ["0.1.0", "0.1.1"]


def test_the_registered_index_is_the_versions_own_records_index(tmp_path, params, registry):
    """The build merges its inputs' index rows instead of reading the version back: the same rows."""
    from quarry.datasets.changelog import index_of
    from quarry.datasets.versions import read_index

    records = [r for r in raw_records() if len(r["text"]) >= 40]
    repeated = {"assemble": {**params["assemble"], "subsets": {"github-python": {"epochs": 2.5}}}}
    manifest = assemble(write_raw(tmp_path / "src", records, shards=3), tmp_path / "ds", repeated, registry=registry)
    registered = list(read_index(Path(registry) / manifest["name"] / manifest["version"]))
    assert registered == list(index_of(qd.open(tmp_path / "ds")))
    assert any(row["copies"] > 1 for row in registered)

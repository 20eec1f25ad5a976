"""Corpora as they are distributed, through the whole DAG: a Pile-style corpus of three subsets
(code and prose, no file names) and two Parquet shards in The Stack v2's layout (one with its
contents, one naming them by content id in a blob store), `dvc repro`, and what comes out: every
record kept (or the cap reported), languages from the content, SWHIDs and upstream columns kept,
upstream licence labels counted against Quarry's, a fine-tune on a subset the data has, and bits
per byte for every subset."""

from __future__ import annotations

import pytest
import yaml

from quarry.records import read_json, read_records

from pile_corpus import stack_v2_rows, write_pile_corpus, write_stack_v2
from pipeline_project import BIN, SCANCODE_PYTHON, dvc_repo, run, stop_server, write_params

EXPECTED_LANGUAGE = {"StdlibPython": "Python", "CHeaders": "C", "Stack": "Python"}


@pytest.mark.slow
def test_a_pile_style_corpus_runs_the_whole_dag(tmp_path, request):
    if not SCANCODE_PYTHON.exists():
        pytest.skip(f"ScanCode's interpreter {SCANCODE_PYTHON} is absent")
    root = dvc_repo(tmp_path / "project")
    request.addfinalizer(lambda: stop_server(root))
    counts = write_pile_corpus(root / "corpus" / "pile.jsonl.zst")
    rows = stack_v2_rows()
    write_stack_v2(root / "stack" / "content", rows[:6])
    write_stack_v2(root / "stack" / "ids", rows[6:], blobs=root / "stack" / "blobs")
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["snapshot"]["sources"] = [
        {"name": "pile", "kind": "corpus", "path": "corpus"},
        {"name": "stack", "kind": "parquet", "path": "stack/content", "preset": "stack-v2", "subset": "Stack"},
        {"name": "stack-ids", "kind": "parquet", "path": "stack/ids", "preset": "stack-v2", "blobs": "stack/blobs",
         "subset": "Stack"}]
    params["snapshot"]["max_origin_bytes"] = 200_000   # far below the shard: a corpus is capped as a whole
    params["assemble"]["splits"] = {"train": 0.96, "validation": 0.02, "test": 0.02}
    params["assemble"]["stratify"] = {"min_docs": 10, "per_split": 1}   # every subset in validation and test
    write_params(root, params)
    run(root, "git", "add", "-A")
    run(root, "git", "commit", "-q", "-m", "a Pile-style corpus")

    output = run(root, str(BIN / "dvc"), "repro")

    snapshot = read_json(root / "data" / "snapshot" / "ledger.json")
    assert snapshot["kept"] == sum(counts.values()) + len(rows) and snapshot["caps"] == {}
    counts["Stack"] = len(rows)
    manifest = read_json(root / "data" / "datasets" / "default" / "manifest.json")
    composition = manifest["composition"]
    assert set(composition["by_subset"]) == set(counts)
    licensed = read_json(root / "data" / "curated" / "licensed" / "ledger.json")["changed"]
    # no licence file or header in these rows: Quarry says no-license where upstream said so
    assert licensed["upstream-license-agrees"] == sum(r["license_type"] == "no_license" for r in rows)
    assert licensed["upstream-license-differs"] == sum(r["license_type"] == "permissive" for r in rows)
    stack = {}
    languages, prose = {}, []
    for shard in (root / "data" / "datasets" / "default").rglob("part-*.jsonl.zst"):
        for record in read_records(shard):
            meta = record["meta"]
            languages.setdefault(meta["pile_set_name"], []).append(meta["language"])
            if meta["pile_set_name"] == "PackageDocs":
                prose.append(meta.get("natural_language"))
            if meta["pile_set_name"] == "Stack":
                stack[meta["id"]] = meta
    for subset, language in EXPECTED_LANGUAGE.items():
        found = languages[subset]
        assert found.count(language) >= 0.9 * len(found), (subset, sorted(set(found)))
    # `unknown` only where neither model is sure (a package description mixing HTML and Markdown)
    assert all(language is not None for found in languages.values() for language in found)
    assert sum(language == "unknown" for found in languages.values() for language in found) <= 2
    assert prose.count("en") >= 0.8 * len(prose)        # English, from lingua on the prose
    assert set(stack) == {f"swh:1:cnt:{r['blob_id']}" for r in rows}
    assert all(meta["upstream"]["repo_name"] in meta["origin"] and "star_events_count" in meta["upstream"]
               for meta in stack.values())
    for split in ("validation", "test"):
        assert set(composition["by_split_and_subset"][split]) == set(counts), split
    for checkpoint in ("pretrain", "lora"):
        report = read_json(root / "reports" / "eval" / checkpoint / "bpb.json")
        assert report.get("unscored", {}) == {}
        assert set(report["subsets"]) >= set(counts), checkpoint
    assert "finetune" in output

    # the same data with two workers (a Dask LocalCluster for every map): the same version
    params["pipeline"]["workers"] = 2
    write_params(root, params)
    run(root, str(BIN / "dvc"), "repro", "-f", "assemble")
    assert read_json(root / "data" / "datasets" / "default" / "manifest.json")["version"] == manifest["version"]

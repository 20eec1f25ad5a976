"""A user's own Pile through the whole DAG: a Pile-style corpus of three subsets (code and prose,
no file names) as the only source, `dvc repro`, and what comes out: every record kept (or the cap
reported), languages from the content, a fine-tune on a subset the corpus has, and bits per byte
for every subset."""

from __future__ import annotations

import pytest
import yaml

from quarry.records import read_json, read_records

from pile_corpus import write_pile_corpus
from pipeline_project import BIN, SCANCODE_PYTHON, dvc_repo, run, stop_server, write_params

EXPECTED_LANGUAGE = {"StdlibPython": "Python", "CHeaders": "C"}


@pytest.mark.slow
def test_a_pile_style_corpus_runs_the_whole_dag(tmp_path, request):
    if not SCANCODE_PYTHON.exists():
        pytest.skip(f"ScanCode's interpreter {SCANCODE_PYTHON} is absent")
    root = dvc_repo(tmp_path / "project")
    request.addfinalizer(lambda: stop_server(root))
    counts = write_pile_corpus(root / "corpus" / "pile.jsonl.zst")
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["snapshot"]["sources"] = [{"name": "pile", "kind": "corpus", "path": "corpus"}]
    params["snapshot"]["max_origin_bytes"] = 200_000   # far below the shard: a corpus is capped as a whole
    params["assemble"]["splits"] = {"train": 0.96, "validation": 0.02, "test": 0.02}  # stratified below
    write_params(root, params)
    run(root, "git", "add", "-A")
    run(root, "git", "commit", "-q", "-m", "a Pile-style corpus")

    output = run(root, str(BIN / "dvc"), "repro")

    snapshot = read_json(root / "data" / "snapshot" / "ledger.json")
    assert snapshot["kept"] == sum(counts.values()) and snapshot["caps"] == {}
    manifest = read_json(root / "data" / "datasets" / "default" / "manifest.json")
    composition = manifest["composition"]
    assert set(composition["by_subset"]) == set(counts)
    languages, prose = {}, []
    for shard in (root / "data" / "datasets" / "default").rglob("part-*.jsonl.zst"):
        for record in read_records(shard):
            meta = record["meta"]
            languages.setdefault(meta["pile_set_name"], []).append(meta["language"])
            if meta["pile_set_name"] == "PackageDocs":
                prose.append(meta.get("natural_language"))
    for subset, language in EXPECTED_LANGUAGE.items():
        found = languages[subset]
        assert found.count(language) >= 0.9 * len(found), (subset, sorted(set(found)))
    assert all(language not in (None, "unknown") for found in languages.values() for language in found)
    assert prose.count("en") >= 0.8 * len(prose)        # English, from lingua on the prose
    for split in ("validation", "test"):
        assert set(composition["by_split_and_subset"][split]) == set(counts), split
    for checkpoint in ("pretrain", "lora"):
        report = read_json(root / "reports" / "eval" / checkpoint / "bpb.json")
        assert report.get("unscored", {}) == {}
        assert set(report["subsets"]) >= set(counts), checkpoint
    assert "finetune" in output

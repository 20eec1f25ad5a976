"""The lineage of a checkpoint that the whole pipeline built (`quarry flow pipeline` on the tiny
project of the orchestration tests): the right dataset hash and snapshot id, back to a source file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from quarry.records import read_json, read_records
from quarry.snapshot.listing import snapshot_origins

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipeline"))

from pipeline_project import SCANCODE_PYTHON, dataset_version, make_project, quarry, stop_server  # noqa: E402


@pytest.mark.slow
def test_lineage_and_trace_of_a_checkpoint_built_by_the_pipeline(tmp_path, request):
    if not SCANCODE_PYTHON.exists():
        pytest.skip(f"ScanCode's interpreter {SCANCODE_PYTHON} is absent")
    root = make_project(tmp_path / "project")
    request.addfinalizer(lambda: stop_server(root))  # the project's Prefect server, which the flow started
    quarry(root, "flow", "pipeline", timeout=1500)
    checkpoint = root / "models" / "pretrain" / "final"

    chain = json.loads(quarry(root, "lineage", str(checkpoint), "--json").stdout)
    snapshot = read_json(root / "data" / "snapshot" / "manifest.json")
    assert chain["dataset"]["version"] == dataset_version(root) and chain["dataset"]["resolved"]
    assert chain["snapshot"]["snapshot_id"] == snapshot["snapshot_id"] and chain["snapshot"]["resolved"]
    assert {o["origin"] for o in chain["origins"]} == {o["origin"] for o in snapshot_origins(root / "data" / "snapshot")}
    assert "assemble" in [s["stage"] for s in chain["stages"]]

    dataset = root / "data" / "datasets" / "default"
    manifest = read_json(dataset / "manifest.json")
    trained = next(r for f in manifest["splits"]["train"]["files"] for r in read_records(dataset / f["path"])
                   if r["meta"]["path"].endswith(".py"))
    answer = json.loads(quarry(root, "trace", str(checkpoint), trained["meta"]["id"], "--json").stdout)
    assert answer["in_training"] is True and answer["path"] == trained["meta"]["path"]
    assert answer["license"]["spdx"] == trained["meta"]["license"]["spdx"]
    by_location = f"{trained['meta']['origin']}/{trained['meta']['path']}"
    assert json.loads(quarry(root, "trace", str(checkpoint), by_location, "--json").stdout)["id"] == answer["id"]

    # the planted exact copy is dropped by dedup, and trace says so from the stage's rejects
    rejected = [r["meta"] for folder in sorted((root / "data" / "curated").glob("*/rejects"))
                for shard in sorted(folder.glob("*.jsonl.zst")) for r in read_records(shard, require_text=False)]
    assert rejected
    location = f"{rejected[0]['origin']}/{rejected[0]['path']}"  # an exact copy shares its id with the kept one
    dropped = json.loads(quarry(root, "trace", str(checkpoint), location, "--json").stdout)
    assert dropped["in_training"] is False
    assert (dropped["stage"], dropped["reason"]) == (rejected[0]["stage"], rejected[0]["reason"])
    assert read_json(root / "reports" / "metrics.json")["pretrain"]["bpb"] > 0

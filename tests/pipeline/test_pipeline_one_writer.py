"""Two `quarry flow curate` runs on one project with different params, started one after the
other while the first runs: the second waits for the first, and the curated folders afterwards
are all the second run's, each saying so in its provenance, and verify back to the snapshot."""

from __future__ import annotations

import json
import subprocess
import time

import pytest
import yaml
from pipeline_project import BIN, SCANCODE_PYTHON, make_project, project_env, quarry, stop_server

from quarry.records import read_json

pytestmark = pytest.mark.slow


def params_file(root, name: str, sensitivity: str, ngram: int):
    params = yaml.safe_load((root / "params.yaml").read_text())
    params.setdefault("pii", {})["sensitivity"] = sensitivity
    params.setdefault("dedup", {})["ngram"] = ngram
    path = root / f"{name}.yaml"
    path.write_text(yaml.safe_dump(params))
    return path


def found(value, key):
    """Every value of ``key`` anywhere in a nested config."""
    if isinstance(value, dict):
        return [v for k, v in value.items() if k == key] + [x for v in value.values() for x in found(v, key)]
    if isinstance(value, list):
        return [x for v in value for x in found(v, key)]
    return []


def test_a_second_curate_waits_and_the_output_is_all_its_own(tmp_path):
    if not SCANCODE_PYTHON.exists():
        pytest.skip(f"ScanCode's interpreter {SCANCODE_PYTHON} is absent")
    root = make_project(tmp_path / "project")
    try:
        quarry(root, "flow", "snapshot")
        first_params, second_params = params_file(root, "high", "high", 6), params_file(root, "low", "low", 4)
        first = subprocess.Popen([str(BIN / "quarry"), "flow", "curate", "--params", str(first_params)], cwd=root,
                                 env=project_env(root), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lock = root / ".quarry" / "project.lock"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and "quarry flow curate" not in (lock.read_text() if lock.exists() else ""):
            time.sleep(0.2)
        second = subprocess.run([str(BIN / "quarry"), "flow", "curate", "--params", str(second_params)], cwd=root,
                                env=project_env(root), capture_output=True, text=True, timeout=900)
        first_out, first_err = first.communicate(timeout=900)
        assert first.returncode == 0, first_err[-3000:]
        assert second.returncode == 0, second.stderr[-3000:]
        holder = json.loads(lock.read_text() or "{}")
        assert holder == {}  # released by both
        assert f"being written by pid {first.pid}" in second.stderr and "waiting for it to finish" in second.stderr
        curated = root / "data" / "curated"
        made = {folder.name: read_json(folder / "provenance.json") for folder in curated.iterdir()
                if (folder / "provenance.json").is_file()}
        assert set(made) == {"licensed", "optout", "filtered", "pii", "dedup", "decontaminated"}
        assert found(made["pii"]["config"], "sensitivity") == ["low"]   # the second run's params, in every stage
        assert 4 in found(made["dedup"]["config"], "ngram") and 6 not in found(made["dedup"]["config"], "ngram")
        assert all(entry["input"]["hash"] for entry in made.values())
        verified = quarry(root, "verify", str(curated / "decontaminated"))
        assert verified.stdout.count("ok ") == 7  # six curation stages and the snapshot
    finally:
        stop_server(root)

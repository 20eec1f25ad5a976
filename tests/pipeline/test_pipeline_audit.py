"""The real DAG stages on a small embedded default (distributions installed in this environment, one
of them copyleft by its dist-info only): the audit passes and the copyleft code is absent; a
violation planted in the released version makes `quarry audit` fail and name it."""

from __future__ import annotations

import subprocess

import pytest
from pipeline_project import BIN, make_project, project_env, quarry, small_params, stop_server, write_params

from quarry.datasets.reader import open_dataset
from quarry.records import read_json, read_records, write_records

pytestmark = pytest.mark.slow

COPYLEFT, PERMISSIVE = "certifi", ("six", "idna")  # certifi: MPL-2.0, declared in its dist-info only


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    importlib_metadata = pytest.importorskip("importlib.metadata")
    for name in (COPYLEFT, *PERMISSIVE):
        try:
            importlib_metadata.distribution(name)
        except importlib_metadata.PackageNotFoundError:
            pytest.skip(f"{name} is not installed here")
    root = make_project(tmp_path_factory.mktemp("embedded") / "project")
    params = small_params(shard_bytes=60000)
    params["snapshot"]["sources"] = [{"name": "installed", "kind": "installed", "include": [COPYLEFT, *PERMISSIVE],
                                      "lock": None, "max_origin_bytes": 120000}]  # as installed here: no lock file
    write_params(root, params)
    try:
        for stage in ("snapshot", "curate", "assemble", "audit"):
            quarry(root, "flow", stage)
        yield root
    finally:
        stop_server(root)  # the project's Prefect server, which its flows started


def test_audit_passes_and_the_copyleft_distribution_is_absent(built):
    report = read_json(built / "reports" / "audit.json")
    assert report["passed"] and report["violations"] == [] and report["documents"] > 0
    origins = {r["meta"]["origin"].split("@")[0] for r in open_dataset(built / "data" / "datasets" / "default")}
    assert f"pypi:{COPYLEFT}" not in origins
    assert {f"pypi:{name}" for name in PERMISSIVE} <= origins
    snapshot = {r["meta"]["origin"].split("@")[0] for shard in (built / "data" / "snapshot" / "shards").glob("*.zst")
                for r in read_records(shard)}
    assert f"pypi:{COPYLEFT}" in snapshot  # it was there to be dropped


def test_a_planted_violation_fails_the_audit_by_name(built):
    dataset = built / "data" / "datasets" / "default"
    copyleft = next(r for shard in sorted((built / "data" / "snapshot" / "shards").glob("*.zst"))
                    for r in read_records(shard)
                    if r["meta"]["origin"].startswith(f"pypi:{COPYLEFT}@") and r["meta"]["path"].endswith(".py"))
    shard = sorted((dataset / "train").glob("*.jsonl.zst"))[0]
    records = list(read_records(shard))
    copyleft["meta"]["license"] = records[0]["meta"]["license"]  # claims a permissive license
    write_records(shard, records + [copyleft])
    done = subprocess.run([str(BIN / "quarry"), "audit", str(dataset), "--out", str(built / "planted.json")],
                          cwd=built, env=project_env(built), capture_output=True, text=True, timeout=900)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"pypi:{COPYLEFT}@" in done.stdout and copyleft["meta"]["path"] in done.stdout
    report = read_json(built / "planted.json")
    assert {(v["kind"], v["path"]) for v in report["violations"]} >= {("license", copyleft["meta"]["path"])}

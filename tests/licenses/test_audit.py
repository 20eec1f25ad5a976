"""`quarry audit` on a stage's output: a licensed folder passes; each planted violation is named."""

from __future__ import annotations

import pytest

from quarry.config.curation import LicensesParams
from quarry.engine import run_local
from quarry.errors import QuarryError
from quarry.curation.licenses.shards import stage_shards
from quarry.curation.optout import OptOut, Registry
from quarry.records import read_records, write_records
from quarry.stages.audit import run_audit, use_detector
from quarry.stages.licenses import LICENSES
from licenses_helpers import license_text, make_repo, needs_scancode, snapshot_shards

pytestmark = needs_scancode

CODE = "def main():\n    return 42\n"
AWS_KEY = "AKIAQ3EGVP6ZKXWNM4TB"
AWS_SECRET = "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"


@pytest.fixture(scope="module")
def built(tmp_path_factory, detector):
    root = tmp_path_factory.mktemp("audit")
    repos = {
        "https://example.org/mit": make_repo(root / "repos" / "mit", {
            "LICENSE": license_text("mit"), "src/a.py": CODE, "src/b.py": "X = 1\n",
            "vendor/gpl/COPYING": license_text("gpl-2.0"), "vendor/gpl/g.c": "int g;\n"}),
        "https://example.org/other": make_repo(root / "repos" / "other", {
            "LICENSE": license_text("apache-2.0"), "main.py": CODE + "# other\n"}),
    }
    snapshot = snapshot_shards(repos, root / "snapshot" / "shards", shards=2).parent
    released = root / "released"
    run_local(LICENSES, snapshot / "shards", released, {"licenses": {}})
    return snapshot, released


def _audit(snapshot, folder, detector, registry=Registry([]), workers=1):
    use_detector(detector, LicensesParams().batch_size)  # the session's ScanCode worker, where checks run here
    return run_audit(folder, snapshot, {"licenses": {}}, registry=registry, workers=workers)


def test_a_folder_the_stage_licensed_passes(built, detector):
    snapshot, released = built
    report = _audit(snapshot, released, detector)
    assert report["passed"], report["violations"]
    assert report["documents"] == 5  # the vendored GPL folder was dropped by the stage


def test_planted_violations_are_each_named(built, detector, tmp_path):
    snapshot, released = built
    records = [r for shard in stage_shards(released) for r in read_records(shard)]
    dropped = next(r for shard in stage_shards(snapshot / "shards") for r in read_records(shard)
                   if r["meta"]["path"] == "vendor/gpl/g.c")
    dropped["meta"]["license"] = {"spdx": "MIT", "category": "permissive",
                                  "evidence": {"file": "LICENSE", "level": "repository", "score": 100.0}}
    for record in records:
        if record["meta"]["path"] == "src/b.py":
            record["text"] = f"KEY_ID = '{AWS_KEY}'\nSECRET = '{AWS_SECRET}'\n"
        if record["meta"]["path"] == "src/a.py":
            record["meta"]["license"]["evidence"]["file"] = "LICENSE.md"
    invented = {"text": CODE, "meta": {"id": "x", "origin": "https://example.org/mit", "path": "src/invented.py",
                                       "license": records[0]["meta"]["license"]}}
    planted = tmp_path / "planted"
    write_records(planted / "part-00000.jsonl.zst", records + [dropped, invented])
    registry = Registry([OptOut("origin", "https://example.org/other.git")])
    report = _audit(snapshot, planted, detector, registry)
    assert not report["passed"]
    found = {(v["kind"], v["origin"].rsplit("/", 1)[1], v["path"]) for v in report["violations"]}
    assert found == {
        ("license", "mit", "vendor/gpl/g.c"), ("license-record", "mit", "vendor/gpl/g.c"),
        ("secret", "mit", "src/b.py"), ("evidence-missing", "mit", "src/a.py"),
        ("not-in-snapshot", "mit", "src/invented.py"),
        ("opt-out", "other", "LICENSE"), ("opt-out", "other", "main.py")}
    license_violation = next(v for v in report["violations"] if v["kind"] == "license")
    assert license_violation["detail"] == {"reason": "license:strong-copyleft", "spdx": "GPL-2.0-only",
                                           "evidence": "vendor/gpl/COPYING"}
    assert report["violations_by_kind"]["opt-out"] == 2


def test_the_report_does_not_depend_on_partitions_or_workers(built, detector, tmp_path):
    """Origins spread over partitions of their hash and the checks over two processes (each with
    its own ScanCode worker) give the report one partition in this process gives."""
    snapshot, released = built
    records = [r for shard in stage_shards(released) for r in read_records(shard)]
    for record in records:  # a violation in each origin, so that both partitions have some to merge
        if record["meta"]["path"] in ("src/a.py", "main.py"):
            record["meta"]["license"] = {"spdx": "GPL-2.0-only", "category": "copyleft"}
    planted = tmp_path / "planted"
    write_records(planted / "part-00000.jsonl.zst", records[:3])
    write_records(planted / "part-00001.jsonl.zst", records[3:])
    use_detector(detector, LicensesParams().batch_size)
    one = run_audit(planted, snapshot, {"licenses": {"partitions": 1}}, registry=Registry([]))
    spread = run_audit(planted, snapshot, {"licenses": {"partitions": 5}}, registry=Registry([]), workers=2)
    assert {v["origin"].rsplit("/", 1)[1] for v in one["violations"]} == {"mit", "other"}
    assert spread == one and one["documents"] == len(records)


def test_a_snapshot_folder_without_shards_is_a_clear_error(built, tmp_path):
    _, released = built
    with pytest.raises(QuarryError, match=f"{tmp_path}: no snapshot shards there"):
        run_audit(released, tmp_path, {"licenses": {}}, registry=Registry([]))

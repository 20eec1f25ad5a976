"""The licences decision in partitions by origin: the same bytes for any partition and worker
count, and the governance one process decides over every origin's whole survey."""

from __future__ import annotations

import shutil
from importlib.metadata import distribution
from pathlib import Path

import pytest
from licenses_helpers import needs_scancode, snapshot_shards

from quarry.engine import run_local
from quarry.curation.licenses.governance import govern
from quarry.curation.licenses.repository import collect_surveys, detect_repo_licenses
from quarry.curation.licenses.shards import file_statement, stage_shards
from quarry.records import read_json, read_records, write_records
from quarry.stages.licenses import LICENSES

pytestmark = needs_scancode

# installed distributions with their real licence files: MIT, BSD, Apache, PSF-style, dual licences
DISTRIBUTIONS = ("idna", "six", "certifi", "packaging", "attrs", "click", "markupsafe", "orjson", "pyyaml")


def _installed(root: Path, name: str) -> Path:
    """A distribution's text files as installed (its code, metadata and licence files)."""
    dist = distribution(name)
    repo = root / name
    for file in dist.files or ():
        path = Path(dist.locate_file(file))
        if path.suffix in (".pyc", ".so") or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        target = repo / str(file)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return repo


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("installed")
    repos = {f"pypi:{name}": _installed(root / "repos", name) for name in DISTRIBUTIONS}
    return snapshot_shards(repos, root / "snapshot", shards=5)  # every distribution spans shards


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name not in ("ledger.json", "provenance.json")}


def test_any_partition_count_decides_what_one_process_decides(snapshot, tmp_path, detector):
    runs = {}
    for parts, workers in ((1, 1), (2, 2), (4, 1), (3, 2)):
        out = tmp_path / f"p{parts}-w{workers}"
        ledger = run_local(LICENSES, snapshot, out, {"licenses": {"partitions": parts}}, workers=workers)
        partitions = ledger.pop("partitions")
        assert partitions["count"] == parts and partitions["survey_mb"] > 0.01
        assert 0 < partitions["estimated_peak_mb"] <= 3 * partitions["survey_mb"]
        runs[(parts, workers)] = (ledger, _files(out))
    (ledger, files), *others = runs.values()
    assert all(other == (ledger, files) for other in others)
    assert ledger["input"] > 150 and ledger["kept"] > 0

    # the partitions' governance is what one process decides over every origin's whole survey
    whole = detect_repo_licenses(collect_surveys(stage_shards(snapshot), lambda text: file_statement(text, 40)),
                                 detector)
    decided = read_json(tmp_path / "p1-w1" / "repo_licenses.json")
    assert decided == whole and len(decided) == len(DISTRIBUTIONS)
    assert {origin for origin, entry in decided.items() if " OR " in entry["spdx"]} >= {"pypi:packaging"}



def test_records_the_survey_passes_over_take_their_origins_governance(snapshot, tmp_path):
    """A standalone or path-less record of an origin whose repository files all lie in other shards
    gets the origin's governance, as one process derives it (and the audit re-derives it)."""
    src = tmp_path / "snapshot"
    shutil.copytree(snapshot, src)
    code = "def main():\n    return 42\n"
    write_records(src / "part-00005.jsonl.zst", [
        {"text": code, "meta": {"id": "six:doc", "origin": "pypi:six", "path": "doc-1", "standalone": True}},
        {"text": code, "meta": {"id": "six:bare", "origin": "pypi:six"}}])
    for parts in (1, 2):
        out = tmp_path / f"p{parts}"
        run_local(LICENSES, src, out, {"licenses": {"partitions": parts}}, workers=1)
        six = read_json(out / "repo_licenses.json")["pypi:six"]
        found = {r["meta"]["id"]: r["meta"]["license"] for r in read_records(out / "part-00005.jsonl.zst")}
        expected = {key: value for key, value in govern("", None, None, six).items() if key != "categories"}
        assert expected["spdx"] and expected["evidence"]["level"] == "repository"
        assert found == {"six:doc": expected, "six:bare": expected}, parts

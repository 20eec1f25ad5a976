"""Git sources: SWHIDs match git's own hashes; branches, tags, commits and point-in-time selection."""

from __future__ import annotations

import os
import subprocess

import pytest

from quarry.errors import QuarryError
from quarry.records import read_folder
from quarry.stages.snapshot import run_snapshot
from quarry.snapshot.git import plan_git
from quarry.config.snapshot import SnapshotParams
from quarry.snapshot.listing import snapshot_origins

from snapshot_gitrepos import commit, git


def _snap(tmp_path, source, name="out", **params):
    out = tmp_path / name
    manifest = run_snapshot([{"kind": "git", **source}], out, {"snapshot": params},
                            cache_dir=tmp_path / "cache")
    return {**manifest, "origins": list(snapshot_origins(out))}, list(read_folder(out / "shards"))


def test_swhids_equal_git_hashes(tmp_path, history):
    repo = history["repo"]
    manifest, records = _snap(tmp_path, {"path": str(repo)})
    (origin,) = manifest["origins"]
    assert origin["revision"] == history["c3"]
    assert origin["revision_swhid"] == f"swh:1:rev:{history['c3']}"
    # The directory SWHID, computed by swh-model from the tree entries, is git's tree id.
    assert origin["directory"] == f"swh:1:dir:{git(repo, 'rev-parse', 'HEAD^{tree}')}"
    assert [r["meta"]["path"] for r in records] == ["LICENSE", "README.md", "bin/tool", "docs/guide.rst",
                                                   "src/app.py"]
    for record in records:
        blob = subprocess.run(["git", "hash-object", str(repo / record["meta"]["path"])], capture_output=True,
                              text=True, check=True).stdout.strip()
        assert record["meta"]["id"] == f"swh:1:cnt:{blob}"
        assert record["meta"]["origin"] == str(repo) and record["meta"]["revision"] == history["c3"]
    assert origin["refused"] == {"binary": 1, "symlink": 1}
    assert origin["commit_date"] == "2023-06-20T12:00:00+00:00"


@pytest.mark.parametrize("ref,expected", [("main", "c3"), ("feature", "feature"), ("v1", "c2")])
def test_refs_select_the_named_commit(tmp_path, history, ref, expected):
    plan, = plan_git({"name": "g", "kind": "git", "path": str(history["repo"]), "ref": ref}, SnapshotParams())
    assert plan.revision == history[expected]


def test_short_and_full_commit_ids(tmp_path, history):
    cfg = SnapshotParams()
    for ref in (history["c1"], history["c1"][:8]):
        plan, = plan_git({"name": "g", "kind": "git", "path": str(history["repo"]), "ref": ref}, cfg)
        assert plan.revision == history["c1"]
        assert {c.path for c in plan.candidates} == {"README.md", "LICENSE", "src/app.py"}


@pytest.mark.parametrize("before", ["2023-01-01", "2023-01-10T12:00:00Z", "2023-02-20", "2023-04-01T00:00:00+00:00",
                                    "2024-01-01"])
def test_point_in_time_matches_git_rev_list(tmp_path, history, before):
    repo = history["repo"]
    for ref in ("main", "feature"):
        expected = git(repo, "rev-list", "-1", f"--before={before}", ref)
        source = {"name": "g", "kind": "git", "path": str(repo), "ref": ref, "before": before}
        if not expected:
            with pytest.raises(QuarryError, match="no commit at or before"):
                plan_git(source, SnapshotParams())
            continue
        plan, = plan_git(source, SnapshotParams())
        assert plan.revision == expected


def test_point_in_time_content(tmp_path, history):
    manifest, records = _snap(tmp_path, {"path": str(history["repo"]), "before": "2023-04-01"})
    assert manifest["origins"][0]["revision"] == history["c2"]
    app = next(r for r in records if r["meta"]["path"] == "src/app.py")
    assert "return 2" in app["text"]
    tool = next(r for r in records if r["meta"]["path"] == "bin/tool")
    assert tool["meta"]["language"] == "Python"  # from the shebang


def test_unknown_ref_is_a_clear_error(tmp_path, history):
    with pytest.raises(QuarryError, match="'nope' is not a branch, tag or commit"):
        plan_git({"name": "g", "kind": "git", "path": str(history["repo"]), "ref": "nope"}, SnapshotParams())


def test_clone_by_url(tmp_path, history, monkeypatch):
    """A URL is cloned (dulwich) into the project's cache, then fetched on the next run."""
    monkeypatch.setenv("QUARRY_HOME", str(tmp_path / "home"))
    url = f"file://{history['repo']}"
    manifest, records = _snap(tmp_path, {"url": url, "ref": "v1"})
    assert manifest["origins"][0]["origin"] == url
    assert manifest["origins"][0]["revision"] == history["c2"]
    assert list((tmp_path / "home" / ".quarry" / "cache" / "snapshot" / "git").iterdir())
    again, _ = _snap(tmp_path, {"url": url, "ref": "v1"}, name="out2")
    assert again["snapshot_id"] == manifest["snapshot_id"]
    # New upstream commits reach the mirror on the next run.
    c4 = commit(history["repo"], {"src/new.py": "NEW = 4\n"}, "fourth", "2023-07-01T12:00:00+00:00")
    latest, records = _snap(tmp_path, {"url": url, "ref": "main"}, name="out3")
    assert latest["origins"][0]["revision"] == c4
    assert "src/new.py" in {r["meta"]["path"] for r in records}


def test_submodules_odd_names_and_excluded_paths_keep_the_tree_exact(tmp_path, history):
    repo = history["repo"]
    (repo / "node_modules" / "dep").mkdir(parents=True)
    (repo / "node_modules" / "dep" / "index.js").write_text("module.exports = 1;\n")
    with open(os.path.join(os.fsencode(repo), b"caf\xe9.txt"), "wb") as fh:  # a Latin-1 file name
        fh.write(b"latin\n")
    git(repo, "add", "-A")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{history['c1']},vendor-sub")
    git(repo, "commit", "-q", "-m", "odd entries", date="2023-08-01T00:00:00+00:00")
    plan, = plan_git({"name": "g", "kind": "git", "path": str(repo)}, SnapshotParams())
    reasons = {r.path: r.reason for r in plan.refused}
    assert reasons["vendor-sub"] == "submodule"
    assert reasons["node_modules/dep/index.js"] == "excluded_path"
    assert reasons["caf\ufffd.txt"] == "bad_path"
    assert plan.info["directory"] == f"swh:1:dir:{git(repo, 'rev-parse', 'HEAD^{tree}')}"

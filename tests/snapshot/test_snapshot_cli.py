"""`quarry snapshot` and `--show` through the real CLI, and the stage as Prefect tasks in a real flow run."""

from __future__ import annotations

import pytest

from quarry.cli import main
from quarry.records import read_json
from quarry.stages.snapshot import run_snapshot
from quarry.snapshot.listing import snapshot_origins


def test_cli_snapshot_and_show(tmp_path, history, capsys):
    out = tmp_path / "snap"
    repo = history["repo"]
    assert main(["snapshot", str(out), "-s", f"git:{repo}@v1", "-s", f"git:{repo}@feature", "--workers", "2"]) == 0
    manifest = read_json(out / "manifest.json")
    assert sorted(o["revision"] for o in snapshot_origins(out)) == sorted([history["c2"], history["feature"]])
    assert main(["snapshot", str(tmp_path / "old"), "-s", f"git:{repo}", "--before", "2023-02-01"]) == 0
    assert next(snapshot_origins(tmp_path / "old"))["revision"] == history["c1"]
    capsys.readouterr()
    assert main(["snapshot", "--show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert manifest["snapshot_id"][:16] in shown and "verified" in shown
    assert "Python" in shown and "binary" in shown and "refusals by kind" in shown


def test_cli_errors_are_one_line(tmp_path, capsys):
    assert main(["snapshot", str(tmp_path / "x"), "-s", "svn:http://example.org"]) == 1
    err = capsys.readouterr().err
    assert "kind must be one of" in err and "Traceback" not in err
    assert main(["snapshot", str(tmp_path / "x"), "-s", f"git:{tmp_path / 'nope'}"]) == 1
    assert "not a git repository" in capsys.readouterr().err


@pytest.mark.slow  # starts Prefect's ephemeral API server: about a minute on a loaded machine
def test_prefect_flow_gives_the_same_snapshot(tmp_path, history, monkeypatch):
    # A loaded machine can take longer than the default 20 s to start the ephemeral API server.
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    repo = history["repo"]
    assert main(["snapshot", str(tmp_path / "flow"), "-s", f"git:{repo}", "-s", f"git:{repo}@feature", "--flow"]) == 0
    sources = [{"name": "git", "kind": "git", "path": str(repo)},
               {"name": "git", "kind": "git", "path": str(repo), "ref": "feature"}]
    direct = run_snapshot(sources, tmp_path / "direct", {"pipeline": {}}, cache_dir=tmp_path / "cache-direct")
    assert (tmp_path / "flow" / "manifest.json").read_bytes() == (tmp_path / "direct" / "manifest.json").read_bytes()
    assert read_json(tmp_path / "flow" / "manifest.json")["snapshot_id"] == direct["snapshot_id"]


@pytest.mark.parametrize("spec,expected", [
    ("git:../repo@v1.0", {"kind": "git", "path": "../repo", "ref": "v1.0"}),
    ("git:https://example.org/a/b.git@main", {"kind": "git", "url": "https://example.org/a/b.git", "ref": "main"}),
    ("git:git@example.org:a/b.git", {"kind": "git", "path": "git@example.org:a/b.git"}),
    ("archive:dl/x-1.0.tar.gz", {"kind": "archive", "path": "dl/x-1.0.tar.gz"}),
    ("corpus:pile.jsonl.zst", {"kind": "corpus", "path": "pile.jsonl.zst"}),
    ("stdlib", {"kind": "stdlib"}),
])
def test_parse_source(spec, expected):
    from quarry.cli.snapshot import parse_source

    assert parse_source(spec) == {"name": expected["kind"], **expected}

"""Real git repositories → quarry snapshot → licenses → opt-out, directly and as Prefect tasks in a flow."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from licenses_helpers import license_text, needs_scancode, with_registry

from quarry.cli import main as quarry_main
from quarry.engine import run_local
from quarry.curation.licenses.shards import stage_shards
from quarry.records import read_records
from quarry.stages.licenses import LICENSES
from quarry.stages.optout import OPTOUT

pytestmark = needs_scancode


def _git_repo(root: Path, files: dict[str, str]) -> Path:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org", "GIT_COMMITTER_NAME": "Ada",
           "GIT_COMMITTER_EMAIL": "ada@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull,
           "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}
    root.mkdir(parents=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "initial"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)
    return root


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    from quarry.stages.snapshot import run_snapshot

    root = tmp_path_factory.mktemp("pipeline")
    mit = _git_repo(root / "mit-tool", {
        "LICENSE": license_text("mit"), "README.md": "# tool\n",
        "src/tool.py": "def tool():\n    return 1\n",
        "src/vendored.c": "/* SPDX-License-Identifier: GPL-2.0-only */\nint vendored(void) { return 0; }\n"})
    apache = _git_repo(root / "apache-lib", {"LICENSE": license_text("apache-2.0"),
                                             "lib/core.py": "VALUE = 2\n"})
    sources = [{"kind": "git", "path": str(mit), "name": "mit-tool"},
               {"kind": "git", "path": str(apache), "name": "apache-lib"}]
    out = root / "snapshot"
    run_snapshot(sources, out, {}, cache_dir=root / "snap-cache")
    return root, out


def _records(folder: Path) -> list[dict]:
    return [r for shard in stage_shards(folder) for r in read_records(shard)]


def test_licenses_over_a_real_snapshot(snapshot, detector, capsys):
    root, snap = snapshot
    ledger = run_local(LICENSES, snap, root / "licensed", {})
    records = {(Path(r["meta"]["origin"]).name, r["meta"]["path"]): r["meta"]["license"]
               for r in _records(root / "licensed")}
    assert records[("mit-tool", "src/tool.py")]["spdx"] == "MIT"
    assert records[("apache-lib", "lib/core.py")]["spdx"] == "Apache-2.0"
    assert ("mit-tool", "src/vendored.c") not in records
    assert ledger["dropped"] == {"license:strong-copyleft": 1}
    assert quarry_main(["licenses", str(root / "licensed")]) == 0
    table = capsys.readouterr().out
    assert "MIT" in table and "Apache-2.0" in table and "permissive" in table
    assert quarry_main(["licenses", str(snap)]) == 0  # a snapshot: detected on the fly
    assert "GPL-2.0-only" in capsys.readouterr().out
    assert quarry_main(["licenses", str(snap), "--out", str(root / "cli-out"), "--workers", "2"]) == 0
    for shard in stage_shards(root / "licensed"):
        assert shard.read_bytes() == (root / "cli-out" / shard.relative_to(root / "licensed")).read_bytes()


@pytest.mark.slow  # starts Prefect's ephemeral API server: about a minute on a loaded machine
def test_prefect_tasks_give_the_same_bytes(snapshot, tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    from prefect import flow

    from quarry.engine import run_stage
    from quarry.stages.licenses import LICENSES
    from quarry.stages.optout import OPTOUT
    from tasks.executor import PrefectExecutor

    root, snap = snapshot
    registry = tmp_path / "registry.tsv"
    registry.write_text(f"origin\t{_records(snap)[0]['meta']['origin']}\t2026-01-01\n", encoding="utf-8")

    @flow(name="licenses-test")
    def curate(src: str, mid: str, out: str) -> tuple[dict, dict]:
        params = {"optout": {"registry": str(registry)}}
        return (run_stage(LICENSES, Path(src), Path(mid), params, PrefectExecutor()).result,
                run_stage(OPTOUT, Path(mid), Path(out), params, PrefectExecutor()).result)

    via_flow = curate(str(snap), str(tmp_path / "flow-lic"), str(tmp_path / "flow-opt"))
    direct = (run_local(LICENSES, snap, tmp_path / "lic", {}),
              run_local(OPTOUT, tmp_path / "lic", tmp_path / "opt", with_registry(registry)))
    assert via_flow == direct and direct[1]["dropped"]["opt-out"] > 0
    for name in ("lic", "opt"):
        mine = sorted(p.relative_to(tmp_path / name) for p in (tmp_path / name).rglob("*") if p.is_file())
        assert mine == sorted(p.relative_to(tmp_path / f"flow-{name}")
                              for p in (tmp_path / f"flow-{name}").rglob("*") if p.is_file())
        for rel in mine:
            if rel.name == "provenance.json":  # it names its input by a path relative to where it stands
                made = [json.loads((tmp_path / folder / rel).read_text()) for folder in (name, f"flow-{name}")]
                assert [{**m, "input": m["input"]["hash"], "args": None} for m in made[:1]] == \
                    [{**m, "input": m["input"]["hash"], "args": None} for m in made[1:]]
                continue
            assert (tmp_path / name / rel).read_bytes() == (tmp_path / f"flow-{name}" / rel).read_bytes(), rel

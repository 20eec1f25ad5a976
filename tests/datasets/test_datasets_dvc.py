"""The dataset folder as a DVC output: `dvc repro` runs `quarry assemble`, `dvc push` to a local
directory remote, `dvc pull` into a fresh clone restores the same version."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

import quarry.datasets as qd
from quarry.cli import main
from quarry.datasets.manifest import verify_sums, version_hash
from quarry.infra.hashing import tree_hash

DVC = shutil.which("dvc", path=str(Path(sys.executable).parent)) or "dvc"


def run(*cmd, cwd: Path, env: dict) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_dvc_repro_push_and_pull_into_a_fresh_clone(curated, params, tmp_path, monkeypatch, capsys):
    repo, remote, clone = tmp_path / "repo", tmp_path / "remote", tmp_path / "clone"
    env = {**os.environ, "DVC_NO_ANALYTICS": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org", "QUARRY_HOME": str(repo)}
    repo.mkdir()
    shutil.copytree(curated, repo / "data" / "curated")
    (repo / "params.yaml").write_text(yaml.safe_dump(params))
    stage = {"cmd": f"{sys.executable} -m quarry assemble data/curated data/datasets/test-code "
                    "--params params.yaml --ledger data/curated/ledger.json --parent latest",
             "deps": ["data/curated"], "params": ["assemble"],
             # the release registry is a persistent output: kept across runs, pushed and pulled
             "outs": ["data/datasets/test-code", {"data/releases": {"persist": True}}]}
    (repo / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"assemble": stage}}))
    run("git", "init", "-q", cwd=repo, env=env)
    run(DVC, "init", "-q", cwd=repo, env=env)
    run(DVC, "remote", "add", "-d", "local", str(remote), cwd=repo, env=env)
    run(DVC, "repro", cwd=repo, env=env)
    built = qd.load_manifest(repo / "data" / "datasets" / "test-code")
    run("git", "add", "-A", cwd=repo, env=env)
    run("git", "commit", "-qm", "dataset", cwd=repo, env=env)
    run(DVC, "push", cwd=repo, env=env)
    assert any(p.is_file() for p in remote.rglob("*"))

    run("git", "clone", "-q", str(repo), str(clone), cwd=tmp_path, env=env)
    assert not (clone / "data" / "datasets" / "test-code").exists()
    assert not (clone / "data" / "releases").exists()  # not in git: it travels through the DVC remote
    run(DVC, "pull", cwd=clone, env={**env, "QUARRY_HOME": str(clone)})
    pulled_dir = clone / "data" / "datasets" / "test-code"
    pulled = qd.load_manifest(pulled_dir)
    assert pulled["version"] == built["version"] == version_hash(pulled)
    assert verify_sums(pulled_dir) == []
    assert tree_hash(pulled_dir) == tree_hash(repo / "data" / "datasets" / "test-code")
    assert list(qd.open(pulled_dir, split="test")) == list(qd.open(repo / "data/datasets/test-code", split="test"))
    # the pulled registry resolves the version by label and by hash prefix
    monkeypatch.setenv("QUARRY_HOME", str(clone))
    assert [r["manifest"]["version"] for r in qd.releases()] == [built["version"]]
    assert list(qd.open(built["version"][:12], split="test")) == list(qd.open(pulled_dir, split="test"))
    assert main(["dataset", "show", built["label"]]) == 0
    assert main(["dataset", "show", built["version"][:8]]) == 0
    assert built["version"] in capsys.readouterr().out.replace("\n", "")

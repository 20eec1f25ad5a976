"""The tokenize stage in the DAG: `dvc repro` runs it as a Prefect flow of per-shard tasks over the
dataset version and the trained tokenizer, a second `dvc repro` skips it, and the flow writes the
same shards as the local driver."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from training_helpers import make_docs

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(root: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLFLOW_"))}
    env.update(QUARRY_HOME=str(root), DVC_NO_ANALYTICS="1", PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
               PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="180", GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
    done = subprocess.run(list(args), cwd=root, env=env, capture_output=True, text=True, timeout=1200)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{output[-6000:]}"
    return output


@pytest.mark.slow
def test_dvc_repro_runs_tokenize_then_skips_it(tmp_path, request):
    from quarry.stages.assemble import assemble
    from quarry.records import write_records
    from quarry.config.training import TokenizerParams
    from quarry.stages.tokenizer import tokenizer_for
    from quarry.stages.tokenize import tokenize_dataset
    from quarry.training.tokens import TokenizeConfig

    root = tmp_path / "project"
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["tokenize"]["batch_size"] = 16  # several batches per shard
    root.mkdir()
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    shutil.copyfile(REPO / "dvc.yaml", root / "dvc.yaml")
    for code in ("quarry", "tasks", "flows"):  # what dvc.yaml's deps name
        shutil.copytree(REPO / code, root / code, ignore=shutil.ignore_patterns("__pycache__"))
    # the flow starts the project's Prefect server, which outlives it by design
    request.addfinalizer(lambda: _run(root, str(BIN / "quarry"), "server", "stop"))
    raw = tmp_path / "curated"
    write_records(raw / "part-00000.jsonl.zst", make_docs(200, seed=7))
    dataset = root / params["pipeline"]["paths"]["dataset"]
    assemble(raw, dataset, {"assemble": {"splits": {"train": 0.9, "validation": 0.1}, "shard_bytes": 5000}},
             register=False)
    tokenizer = root / params["pipeline"]["paths"]["tokenizer"]
    tokenizer_for(dataset, tokenizer, TokenizerParams(vocab_size=300))
    (root / ".gitignore").write_text(".quarry/\n")
    _run(root, "git", "init", "-q", "-b", "main")
    _run(root, str(BIN / "dvc"), "init", "-q")
    _run(root, "git", "add", "-A")
    _run(root, "git", "commit", "-q", "-m", "dataset and tokenizer")

    first = _run(root, str(BIN / "dvc"), "repro", "--single-item", "tokenize")
    assert re.findall(r"Running stage '([\w-]+)'", first) == ["tokenize"]
    tokens = root / params["pipeline"]["paths"]["tokens"]
    lock = yaml.safe_load((root / "dvc.lock").read_text())["stages"]["tokenize"]
    assert lock["outs"][0]["md5"] and lock["params"]["params.yaml"]["tokenize"]["splits"] == ["train", "validation"]

    second = _run(root, str(BIN / "dvc"), "repro", "--single-item", "tokenize")
    assert re.findall(r"Running stage '([\w-]+)'", second) == []
    assert "didn't change, skipping" in second

    local = tokenize_dataset(dataset, tokenizer, tmp_path / "local", TokenizeConfig())
    flow_files = sorted(p.relative_to(tokens) for p in tokens.rglob("*") if p.is_file())
    assert flow_files == sorted(p.relative_to(tmp_path / "local") for p in (tmp_path / "local").rglob("*")
                                if p.is_file())
    for name in flow_files:
        if name.name not in ("manifest.json", "provenance.json"):  # both name the dataset by the path given
            assert (tokens / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name
    made = [json.loads((folder / "provenance.json").read_text()) for folder in (tokens, tmp_path / "local")]
    shards = [{k: v for k, v in m["output"]["files"].items() if k != "manifest.json"} for m in made]
    assert shards[0] == shards[1] and made[0]["input"]["hash"] == made[1]["input"]["hash"]
    assert yaml.safe_load((tokens / "manifest.json").read_text())["key"] == local["key"]

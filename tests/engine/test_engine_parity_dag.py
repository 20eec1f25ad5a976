"""The stages around curation run on the same engine: snapshot, assemble, tokenizer and tokenize
write the same bytes from their CLI command on 1 and 2 local processes and from the DAG's flow on
Prefect tasks (evaluate: tests/eval/test_eval_tasks.py)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
from engine_corpus import tree

from quarry.cli import main as quarry_main

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SOURCES = [f"dir:{STDLIB / 'json'}", f"dir:{STDLIB / 'email' / 'mime'}", f"dir:{STDLIB / 'urllib'}"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    params = root / "params.yaml"
    # small shards, so each stage has several to spread over workers and tasks
    params.write_text("snapshot: {shard_bytes: 40000}\nassemble: {shard_bytes: 30000}\n"
                      "tokenizer: {vocab_size: 320, sample_mb: 0.05}\ntokenize: {splits: [train, validation, test]}\n")
    return {"root": root, "params": params}


def cli(*args: str) -> None:
    assert quarry_main([*map(str, args)]) == 0, args


def run_cli(project: dict, out: Path, workers: int) -> None:
    """Each stage from the previous one's output; the tokenizer and tokenize from the first run's
    dataset, whose path tokenize's manifest records (as it does the tokenizer's: the project's)."""
    p, w = ["--params", project["params"]], ["--workers", str(workers)]
    cli("snapshot", out / "snapshot", *[a for s in SOURCES for a in ("--source", s)], *w, *p)
    cli("assemble", out / "snapshot" / "shards", out / "dataset", "--no-register", *w, *p)
    project.setdefault("dataset", out / "dataset")
    if not (project["root"] / "tokenizer").is_dir():
        cli("tokenizer", "train", project["dataset"], project["root"] / "tokenizer", *p)
    cli("tokenizer", "train", project["dataset"], out / "tokenizer", *w, *p)
    cli("tokenize", project["dataset"], project["root"] / "tokenizer", out / "tokens", *w, *p)


@pytest.fixture(scope="module")
def cli_one(project):
    out = project["root"] / "cli-1"
    run_cli(project, out, workers=1)
    return out


def test_each_stage_has_several_shards(cli_one):
    from quarry.records import read_json

    assert len(list((cli_one / "snapshot" / "shards").glob("*.jsonl.zst"))) >= 3
    assert len(list((cli_one / "dataset" / "train").glob("*.jsonl.zst"))) >= 2
    train = read_json(cli_one / "dataset" / "manifest.json")["composition"]["by_split"]["train"]["documents"]
    assert 0 < read_json(cli_one / "tokenizer" / "tokenizer_lineage.json")["sample"]["documents"] < train
    assert len(list((cli_one / "tokens" / "train").glob("*.bin"))) >= 2


def test_two_workers_write_the_same_bytes(project, cli_one):
    out = project["root"] / "cli-2"
    run_cli(project, out, workers=2)
    for stage in ("snapshot", "dataset", "tokenizer", "tokens"):
        assert tree(out / stage) == tree(cli_one / stage), stage


def test_dag_flows_write_the_same_bytes_as_the_cli(project, cli_one, monkeypatch):
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    from prefect import flow

    from flows.snapshot import snapshot
    from flows.train import tokenize, tokenizer
    from quarry.cli.snapshot import parse_source
    from quarry.engine import run_stage
    from quarry.config.values import load_params
    from quarry.stages.assemble import ASSEMBLE, AssembleArgs
    from quarry.tokenizer import Tokenizer
    from tasks.executor import PrefectExecutor

    out, params = project["root"] / "dag", str(project["params"])

    @flow(name="assemble-test")  # the DAG's assemble flow, without the curation ledgers it reads
    def assemble(src: str, dst: str) -> dict:
        return run_stage(ASSEMBLE, Path(src), Path(dst), load_params(params), PrefectExecutor(),
                         args=AssembleArgs(register=False)).result

    snapshot(str(out / "snapshot"), params, sources=[parse_source(s) for s in SOURCES])
    assert tree(out / "snapshot") == tree(cli_one / "snapshot")
    assemble(str(out / "snapshot" / "shards"), str(out / "dataset"))
    assert tree(out / "dataset") == tree(cli_one / "dataset")
    made = tokenizer(str(project["dataset"]), str(out / "tokenizer"), params)
    assert tree(out / "tokenizer") == tree(cli_one / "tokenizer")
    assert made["hash"] == Tokenizer.load(cli_one / "tokenizer").hash
    sampled = sorted((out / ".tokenizer.work" / "texts").iterdir())  # kept beside the output, for the next run
    assert len(sampled) == len(list((project["dataset"] / "train").glob("*.jsonl.zst")))
    learnt = out / ".tokenizer.work" / "learn" / "tokenizer.json"
    written = {path: path.stat().st_mtime_ns for path in [*sampled, learnt]}
    assert tokenizer(str(project["dataset"]), str(out / "tokenizer"), params) == made
    # the next run samples and learns nothing again: both are cache hits
    assert {path: path.stat().st_mtime_ns for path in [*sampled, learnt]} == written
    tokenize(str(project["dataset"]), str(project["root"] / "tokenizer"), str(out / "tokens"), params)
    assert tree(out / "tokens") == tree(cli_one / "tokens")
    # a new vocabulary size learns again from the samples already taken (the sample map reads no param)
    larger = project["root"] / "larger-vocabulary.yaml"
    larger.write_text(project["params"].read_text().replace("vocab_size: 320", "vocab_size: 330"))
    assert tokenizer(str(project["dataset"]), str(out / "tokenizer"), str(larger))["vocab_size"] == 330
    assert {path: path.stat().st_mtime_ns for path in sampled} == {path: written[path] for path in sampled}
    assert learnt.stat().st_mtime_ns != written[learnt]


def test_verify_walks_back_to_the_snapshot_and_names_the_first_broken_link(cli_one, tmp_path, capsys):
    import shutil

    from quarry.records import read_records, write_records

    copy = tmp_path / "copy"
    shutil.copytree(cli_one, copy)
    assert quarry_main(["verify", str(copy / "tokens")]) == 0
    assert [line.split(":")[0] for line in capsys.readouterr().out.split("ok ")[1:]] == \
        ["tokenize", "assemble", "snapshot"]
    shard = sorted((copy / "snapshot" / "shards").glob("*.jsonl.zst"))[1]
    records = list(read_records(shard))
    records[0]["text"] += "# edited by hand\n"
    write_records(shard, records)
    assert quarry_main(["verify", str(copy / "tokens")]) == 1
    error = capsys.readouterr().err
    assert f"{copy / 'dataset'}: its input {copy / 'snapshot' / 'shards'} changed after the assemble stage read it" \
        in " ".join(error.split())
    assert quarry_main(["verify", str(copy / "snapshot")]) == 1
    assert f"changed since the snapshot stage wrote them: shards/{shard.name}" in capsys.readouterr().err

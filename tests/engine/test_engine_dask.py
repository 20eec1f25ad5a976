"""The curate flow on a real Dask cluster (`dask scheduler` and two `dask worker` processes on
localhost) writes the same bytes as the CLI on local processes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from licenses_helpers import needs_scancode
from engine_corpus import make_corpus, tree
from test_engine_parity import run_cli

from quarry.stages.curation import CURATION

pytestmark = [pytest.mark.slow, needs_scancode]
BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]


def scheduler_address(scheduler_file: Path) -> str | None:
    try:
        return json.loads(scheduler_file.read_text())["address"]
    except (OSError, ValueError, KeyError):  # not written yet, or half-written
        return None


@pytest.fixture
def cluster(tmp_path):
    # tests/engine: the workers import slow_phases.py, a phase a test kills a worker in
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")},
           "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests" / "engine")])}
    log, address_file = open(tmp_path / "scheduler.log", "w+"), tmp_path / "scheduler.json"
    # the address comes from --scheduler-file: the log may be quiet (DASK_LOGGING__DISTRIBUTED=warning)
    processes = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                   "--no-dashboard", "--scheduler-file", str(address_file)],
                                  stdout=log, stderr=subprocess.STDOUT, env=env)]
    try:
        address, deadline = None, time.monotonic() + 120
        while address is None and time.monotonic() < deadline:
            time.sleep(0.5)
            address = scheduler_address(address_file)
        log.seek(0)
        assert address, f"the Dask scheduler did not start:\n{log.read()[-3000:]}"
        processes += [subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-dashboard"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
                      for _ in range(2)]
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=60)


FLOW = """
import sys
from flows.server import ensure_api
ensure_api()  # before Prefect is imported: this process and the workers share one server
from flows.curate import curate
from flows.runners import task_runner
curate.with_options(task_runner=task_runner(dask_address=sys.argv[1]))(*sys.argv[2:])
"""


def worker_state(dask_worker) -> tuple:
    """What QuarryWorkerSetup leaves on a worker: the forwarded home, no pinned malloc threshold, no profiler."""
    return os.environ.get("QUARRY_HOME"), os.environ.get("MALLOC_TRIM_THRESHOLD_"), \
        "profile" in dask_worker.periodic_callbacks


def test_curate_on_a_dask_cluster_writes_the_same_bytes(cluster, tmp_path):
    from licenses_helpers import license_text

    corpus = make_corpus(tmp_path / "corpus", license_text)
    run_cli(corpus, tmp_path / "cli", workers=1)
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}, "PYTHONPATH": str(REPO),
           "QUARRY_HOME": str(tmp_path)}
    try:
        done = subprocess.run([sys.executable, "-c", FLOW, cluster, str(corpus["snapshot"]), str(tmp_path / "dask"),
                               str(corpus["params"])], cwd=tmp_path, env=env, capture_output=True, text=True)
    finally:  # after the flow's process has sent its last events
        subprocess.run([str(BIN / "quarry"), "server", "stop"], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr[-5000:]
    import cloudpickle
    from distributed import Client

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module
    with Client(cluster) as client:
        assert set(client.run(worker_state).values()) == {(str(tmp_path), None, False)}
    for stage in CURATION:
        assert tree(tmp_path / "dask" / stage.folder) == tree(tmp_path / "cli" / stage.folder), stage.name
    assert len((tmp_path / ".quarry" / "prefect" / "servers.log").read_text().splitlines()) == 1


STAGES_FLOW = """
import json, sys
from flows.server import ensure_api
ensure_api()
from distributed import Client, get_task_stream
from flows.curate import curate
from flows.runners import task_runner
from flows.snapshot import snapshot
from flows.train import tokenize
from prefect import flow
from quarry.cli.snapshot import parse_source
from quarry.engine import run_stage
from quarry.config.values import load_params
from quarry.stages.assemble import ASSEMBLE, AssembleArgs
from tasks.executor import PrefectExecutor

address, out, params, sources, tokenizer, dataset = sys.argv[1:4] + [json.loads(sys.argv[4])] + sys.argv[5:7]
runner = lambda: task_runner(dask_address=address)

@flow(name="assemble-on-dask")
def assemble(src, dst):
    return run_stage(ASSEMBLE, src, dst, load_params(params), PrefectExecutor(), args=AssembleArgs(register=False)).result

placed = {}
calls = {
    "snapshot": lambda: snapshot.with_options(task_runner=runner())(f"{out}/snapshot", params,
                                                                     sources=[parse_source(s) for s in sources]),
    "curate": lambda: curate.with_options(task_runner=runner())(f"{out}/snapshot", f"{out}/curated", params),
    "assemble": lambda: assemble.with_options(task_runner=runner())(f"{out}/curated/decontaminated", f"{out}/dataset"),
    # the local run's dataset, whose path the token manifest records
    "tokenize": lambda: tokenize.with_options(task_runner=runner())(dataset, tokenizer, f"{out}/tokens", params),
}
with Client(address) as client:
    for stage, call in calls.items():
        with get_task_stream(client) as stream:
            call()
        placed[stage] = sorted(record["worker"] for record in stream.data)
print("PLACED " + json.dumps(placed))
"""


def test_every_map_stage_runs_its_tasks_on_the_cluster_workers(cluster, tmp_path):
    """snapshot, curate, assemble and tokenize with pipeline.dask_address: their map phases run on
    both `dask worker` processes, and the bytes equal the CLI's on local processes."""
    from distributed import Client
    from test_engine_parity_dag import SOURCES

    (tmp_path / "data" / "optout").mkdir(parents=True)
    shutil.copyfile(REPO / "data" / "optout" / "registry.tsv", tmp_path / "data" / "optout" / "registry.tsv")
    params = tmp_path / "params.yaml"
    params.write_text("snapshot: {shard_bytes: 40000}\nassemble: {shard_bytes: 30000}\ntokenizer: {vocab_size: 320}\n")
    p = ["--params", str(params)]
    local = tmp_path / "local"
    commands = [["snapshot", str(local / "snapshot"), *[a for s in SOURCES for a in ("--source", s)], *p],
                ["curate-cli"],
                ["assemble", str(local / "curated" / "decontaminated"), str(local / "dataset"), "--no-register", *p],
                ["tokenizer", "train", str(local / "dataset"), str(tmp_path / "tokenizer"), *p],
                ["tokenize", str(local / "dataset"), str(tmp_path / "tokenizer"), str(local / "tokens"), *p]]
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}, "PYTHONPATH": str(REPO),
           "QUARRY_HOME": str(tmp_path)}
    for args in commands:
        if args == ["curate-cli"]:
            for stage, (src, dst) in zip(("licenses", "optout", "filter", "pii", "dedup", "decontaminate"),
                                         zip(("snapshot/shards", *FOLDERS), FOLDERS)):
                cmd = {"optout": ["optout", "apply"], "pii": ["pii", "redact"]}.get(stage, [stage])
                src_dst = [str(local / src), "--out", str(local / dst)] if stage == "licenses" else \
                    [str(local / src), str(local / dst)]
                run_quarry([*cmd, *src_dst, *p], tmp_path, env)
            continue
        run_quarry(args, tmp_path, env)
    try:
        done = subprocess.run([sys.executable, "-c", STAGES_FLOW, cluster, str(tmp_path / "dask"), str(params),
                               json.dumps(SOURCES), str(tmp_path / "tokenizer"), str(local / "dataset")],
                              cwd=tmp_path, env=env, capture_output=True, text=True)
    finally:
        subprocess.run([str(BIN / "quarry"), "server", "stop"], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr[-5000:]
    placed = json.loads(done.stdout.split("PLACED ", 1)[1])
    with Client(cluster) as client:
        workers = set(client.scheduler_info()["workers"])
    for stage, where in placed.items():
        assert set(where) == workers, (stage, where)  # every stage's tasks ran on both workers, and only there
    for folder in ("snapshot", *FOLDERS, "dataset", "tokens"):
        assert tree(tmp_path / "dask" / folder) == tree(local / folder), folder


FOLDERS = ("curated/licensed", "curated/optout", "curated/filtered", "curated/pii", "curated/dedup",
           "curated/decontaminated")


def run_quarry(args: list[str], cwd: Path, env: dict) -> None:
    done = subprocess.run([str(BIN / "quarry"), *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, (args, done.stderr[-3000:])


KILLED_FLOW = """
import sys
from pathlib import Path
from flows.server import ensure_api
ensure_api()
import dataclasses
from prefect import flow
from flows.runners import task_runner
from quarry.engine import Map, Written, run_stage
from quarry.stages.filters import FILTERS
from slow_phases import slow_filter
from tasks.executor import PrefectExecutor

@flow
def curate(src, dst):
    stage = dataclasses.replace(FILTERS, phases=(Map("filter", slow_filter, Written, writes=True),))
    return run_stage(stage, Path(src), Path(dst), {}, PrefectExecutor(tasks_per_worker=1)).result  # a task per worker

curate.with_options(task_runner=task_runner(dask_address=sys.argv[1]))(sys.argv[2], sys.argv[3])
"""


def test_a_worker_killed_mid_stage_costs_only_its_unfinished_shards(cluster, tmp_path):
    """SIGKILL one `dask worker` process while both run a task of four shards: the flow completes,
    the task the dead worker held runs again elsewhere and redoes only its unfinished shard."""
    import signal

    from distributed import Client
    from test_engine_output import shards

    from quarry.engine import run_local
    from quarry.stages.filters import FILTERS

    src = shards(tmp_path / "src", 8)
    calls = tmp_path / "calls"
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}, "QUARRY_HOME": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests" / "engine")]), "QUARRY_TEST_CALLS": str(calls)}
    with Client(cluster) as client:
        client.wait_for_workers(2, timeout=120)
        pids = client.run(os.getpid)  # worker address -> its process
    flow_run = subprocess.Popen([sys.executable, "-c", KILLED_FLOW, cluster, str(src), str(tmp_path / "dask")],
                                cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and len(_calls(calls)) < 3:  # both workers are inside their tasks
            time.sleep(0.2)
        victim = _calls(calls)[-1][1]
        assert victim in pids.values()
        os.kill(victim, signal.SIGKILL)
        out, err = flow_run.communicate(timeout=600)
    finally:
        flow_run.kill()
        subprocess.run([str(BIN / "quarry"), "server", "stop"], cwd=tmp_path, env=env, capture_output=True)
    assert flow_run.returncode == 0, err[-5000:]
    done = _calls(calls)
    finished_by_victim = [name for name, pid, state in done if pid == victim and state == "done"]
    redone = [name for name, pid, state in done if pid != victim and state == "start" and name in finished_by_victim]
    started = [name for name, _, state in done if state == "start"]
    assert sorted(set(started)) == sorted(p.name for p in src.glob("*.jsonl.zst"))
    assert not redone  # what the dead worker finished was not done again
    assert len(started) - 8 <= 1, done  # at most its one unfinished shard ran twice
    print(json.dumps({"shards": 8, "runs": len(started), "recomputed": len(started) - 8,
                      "finished_by_the_killed_worker": len(finished_by_victim)}))
    run_local(FILTERS, src, tmp_path / "undisturbed", {})
    assert tree(tmp_path / "dask") == tree(tmp_path / "undisturbed")


def _calls(path: Path) -> list[tuple[str, int, str]]:
    if not path.exists():
        return []
    return [(name, int(pid), state) for name, pid, state in (line.split() for line in path.read_text().splitlines()
                                                             if line.count(" ") == 2)]

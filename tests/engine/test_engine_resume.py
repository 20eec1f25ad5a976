"""A Prefect task over several shards, killed (SIGKILL) after finishing some of them: run again, it
does only the shards it had not finished, and the output is the undisturbed run's."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from engine_corpus import tree
from test_engine_output import shards

from quarry.engine import run_local
from quarry.stages.filters import FILTERS

REPO = Path(__file__).resolve().parents[2]

FLOW = textwrap.dedent("""
    import dataclasses, os, signal, sys
    from pathlib import Path
    from prefect import flow
    from prefect.task_runners import ThreadPoolTaskRunner
    from quarry.engine import Map, Written, run_stage
    from quarry.stages.filters import FILTERS, filter_shard_phase
    from tasks.executor import PrefectExecutor

    def counted(job, config):  # the same phase in both runs: its records key on its name
        calls = Path(os.environ["CALLS"])
        if calls.exists() and len(calls.read_text().split()) == int(os.environ["KILL_AFTER"]):
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies after finishing KILL_AFTER shards
        with open(calls, "a") as out:
            out.write(job.name + "\\n")
        return filter_shard_phase(job, config)

    @flow(task_runner=ThreadPoolTaskRunner(max_workers=1))
    def curate(src, dst):
        stage = dataclasses.replace(FILTERS, phases=(Map("filter", counted, Written, writes=True),))
        return run_stage(stage, Path(src), Path(dst), {}, PrefectExecutor(tasks_per_worker=1)).result  # one task

    curate(sys.argv[1], sys.argv[2])
""")


def flow_env(tmp_path: Path) -> dict[str, str]:
    """The flow process's environment: the project in ``tmp_path``, the first run killed after 2 jobs."""
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    return {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}, "PYTHONPATH": str(REPO),
            "QUARRY_HOME": str(tmp_path), "CALLS": str(tmp_path / "calls-1"), "KILL_AFTER": "2",
            "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "300"}


def killed_run(args: list[str], cwd: Path, env: dict[str, str]) -> int:
    """Run ``python -c args`` until it kills itself; its exit code. A process group of its own: the
    flow's temporary Prefect server, which the kill leaves without its parent, goes with it."""
    killed = subprocess.Popen([sys.executable, "-c", *args], cwd=cwd, env=env, start_new_session=True)
    try:
        return killed.wait(timeout=600)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(killed.pid, signal.SIGKILL)


def test_a_killed_task_runs_only_its_unfinished_shards_again(tmp_path):
    src = shards(tmp_path / "src", 5)
    env = flow_env(tmp_path)
    out = tmp_path / "out"
    assert killed_run([FLOW, str(src), str(out)], tmp_path, env) == -signal.SIGKILL
    assert (tmp_path / "calls-1").read_text().split() == ["part-00000.jsonl.zst", "part-00001.jsonl.zst"]
    rerun = subprocess.run([sys.executable, "-c", FLOW, str(src), str(out)], cwd=tmp_path,
                           env={**env, "CALLS": str(tmp_path / "calls-2"), "KILL_AFTER": "0"},
                           capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert (tmp_path / "calls-2").read_text().split() == [f"part-0000{i}.jsonl.zst" for i in (2, 3, 4)]
    run_local(FILTERS, src, tmp_path / "undisturbed", {})
    assert tree(out) == tree(tmp_path / "undisturbed")


ITEMS_FLOW = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from prefect import flow
    from prefect.task_runners import ThreadPoolTaskRunner
    from quarry.engine import Global, Map, Plan, Stage, WorkItem, run_stage
    from tasks.executor import PrefectExecutor

    def plan(job, config):
        return Plan(items=[WorkItem(f"item {i}", i, (str(Path(job.dst) / f"{i}.txt"),)) for i in range(5)])

    def square(job, config):
        calls = Path(os.environ["CALLS"])
        if calls.exists() and len(calls.read_text().split()) == int(os.environ["KILL_AFTER"]):
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies after finishing KILL_AFTER items
        Path(job.writes[0]).write_text(str(job.item ** 2))
        with open(calls, "a") as out:
            out.write(f"{job.item}\\n")
        return job.item ** 2

    def total(job, config):
        return {"squares": job.each(SQUARES)}

    PLAN = Global("plan", plan, Plan, cached=False)
    SQUARES = Map("squares", square, int, over="plan")
    STAGE = Stage("squares", folder="", config=lambda params: None, phases=(PLAN, SQUARES), finish=total,
                  reads_shards=False, staged=False)

    @flow(task_runner=ThreadPoolTaskRunner(max_workers=1))
    def squares(dst):
        return run_stage(STAGE, None, Path(dst), {}, PrefectExecutor(tasks_per_worker=1)).result  # one task

    print(squares(sys.argv[1])["squares"])
""")


def test_a_killed_task_over_a_plans_items_runs_only_its_unfinished_items_again(tmp_path):
    env = flow_env(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    assert killed_run([ITEMS_FLOW, str(out)], tmp_path, env) == -signal.SIGKILL
    assert (tmp_path / "calls-1").read_text().split() == ["0", "1"]
    rerun = subprocess.run([sys.executable, "-c", ITEMS_FLOW, str(out)], cwd=tmp_path,
                           env={**env, "CALLS": str(tmp_path / "calls-2"), "KILL_AFTER": "-1"},
                           capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert (tmp_path / "calls-2").read_text().split() == ["2", "3", "4"]
    assert rerun.stdout.strip().splitlines()[-1] == "[0, 1, 4, 9, 16]"
    assert sorted(p.name for p in out.glob("*.txt")) == [f"{i}.txt" for i in range(5)]


def test_a_record_left_by_other_code_is_run_again_not_read(tmp_path, monkeypatch):
    """A finished call's record whose result is of a type the code no longer has (renamed in an
    upgrade): the call runs again, in either record layout, instead of failing to unpickle it."""
    import pickle

    from quarry.engine.stage import ItemJob
    from tasks.resume import run_resumable

    module = tmp_path / "gone_types.py"
    module.write_text("from dataclasses import dataclass\n\n@dataclass\nclass Found:\n    runs: str\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import gone_types

    job = ItemJob(item="shard 1", name="shard 1", work=str(tmp_path / "work" / "item-1"))
    Path(job.record).parent.mkdir(parents=True)
    old = gone_types.Found("x")
    layouts = [pickle.dumps({"key": "from other code", "outputs": {}, "result": old}),   # the earlier layout
               pickle.dumps({"key": "from other code", "outputs": {}, "result": pickle.dumps(old)})]
    monkeypatch.delitem(sys.modules, "gone_types")
    module.unlink()
    for layout in layouts:
        Path(job.record).write_bytes(layout)
        assert run_resumable(lambda job, config: ("ran", job.name), "attribution", job, None) == (("ran", "shard 1"), False)
    # and the record it left answers the same call next time
    assert run_resumable(lambda job, config: "not again", "attribution", job, None) == (("ran", "shard 1"), True)

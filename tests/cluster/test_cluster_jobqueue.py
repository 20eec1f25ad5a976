"""`quarry cluster script`: batch scripts whose directives carry the options, and whose body, run
with bash on this machine (no batch system here: the body is plain bash), starts workers that join
a real `dask scheduler` and run a task with Quarry's stage code preloaded."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from flows.server import group_alive, stop_group
from quarry import cli
from quarry.cluster.jobqueue import job_script, scheduler_line
from quarry.cluster.worker import DASK_SETTINGS
from quarry.config.cluster import cluster_options
from tasks.batching import batch_label

REPO = Path(__file__).resolve().parents[2]
PREFIX = {"slurm": "#SBATCH", "pbs": "#PBS", "sge": "#$"}


def directives(script: str, system: str) -> list[str]:
    """The batch system's lines, checked to come before the first command (where it stops reading)."""
    lines = script.splitlines()
    first_command = next(i for i, line in enumerate(lines) if line.strip() and not line.startswith("#"))
    found = [i for i, line in enumerate(lines) if line.startswith(PREFIX[system] + " ")]
    assert found and max(found) < first_command, script
    return [lines[i][len(PREFIX[system]) + 1:] for i in found]


def bash_syntax_ok(script: Path) -> None:
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("system, expected", [
    ("slurm", ["-J quarry-test", "-p debug", "-A acct42", "--cpus-per-task=8", "--mem=15G", "-t 01:30:00",
               "--array=0-2", "--gres=gpu:1"]),
    ("pbs", ["-N quarry-test", "-q debug", "-A acct42", "-l select=1:ncpus=8:mem=15GB", "-l walltime=01:30:00",
             "-J 0-2", "--gres=gpu:1"]),
    ("sge", ["-N quarry-test", "-q debug", "-P acct42", "-l h_rt=01:30:00", "-t 1-3", "--gres=gpu:1"]),
])
def test_the_directives_carry_the_options(tmp_path, system, expected):
    options = cluster_options({"nodes": 3, "cores": 8, "memory": "16GB", "walltime": "01:30:00", "queue": "debug",
                               "account": "acct42", "job_name": "quarry-test", "project": REPO,
                               "directives": ["--gres=gpu:1"]})
    script = tmp_path / "job.sh"
    script.write_text(job_script(options, system))
    bash_syntax_ok(script)
    found = directives(script.read_text(), system)
    assert [line for line in expected if line not in found] == [], found
    worker = script.read_text().rstrip().splitlines()[-1]
    assert "--nthreads 1 " in worker and "--nworkers 8 " in worker and "--memory-limit 1.86GiB" in worker
    assert "--preload tasks.executor --preload quarry.stages" in worker


def test_one_node_is_one_job_and_the_scheduler_file_defaults_to_the_project(tmp_path):
    options = cluster_options({"project": REPO, "cores": 1})
    script = job_script(options, "slurm")
    assert not any("--array" in line for line in directives(script, "slurm"))
    worker = script.rstrip().splitlines()[-1]
    assert f"--scheduler-file {REPO}/.quarry/dask-scheduler.json" in worker
    assert "--nworkers" not in worker and "--nthreads 1 " in worker  # one core: one worker process


def wait_for_address(scheduler_file: Path, process: subprocess.Popen, log: Path) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            return json.loads(scheduler_file.read_text())["address"]
        except (OSError, ValueError, KeyError):  # not written yet, or half-written
            time.sleep(0.1)
    raise AssertionError(f"the Dask scheduler did not start: {log.read_text()[-2000:]}")


def test_running_the_slurm_script_starts_workers_that_run_quarry_tasks(tmp_path):
    from distributed import Client

    scheduler_file, log = tmp_path / "scheduler.json", tmp_path / "cluster.log"
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "QUARRY_PROCESSES_PER_MACHINE") and not k.startswith("PREFECT_")}
    # the batch script: two single-threaded workers, the scheduler file on the "shared FS"
    options = cluster_options({"cores": 2, "memory": "2GB", "walltime": "00:10:00", "project": REPO,
                               "scheduler_file": scheduler_file})
    script = tmp_path / "job.sh"
    script.write_text(job_script(options, "slurm"))
    bash_syntax_ok(script)
    groups = []
    try:
        with open(log, "w") as out:
            # the scheduler as the script's comment says to start it (on loopback, any free port)
            start = scheduler_line(options) + " --host 127.0.0.1 --port 0 --no-dashboard"
            scheduler = subprocess.Popen(["bash", "-c", start], cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT,
                                         env=env, start_new_session=True)
            groups.append(scheduler.pid)
            address = wait_for_address(scheduler_file, scheduler, log)
            # what sbatch would run on the node: the script, from another folder, without PYTHONPATH
            job = subprocess.Popen(["bash", str(script)], cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT,
                                   env=env, start_new_session=True)
            groups.append(job.pid)
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=90)
            workers = client.scheduler_info(n_workers=-1)["workers"]
            assert sorted(info["nthreads"] for info in workers.values()) == [1, 1]

            def probe():
                import os
                import sys

                import dask

                from quarry.infra.parallel import available_cores, cores_per_process

                return {"preloaded": [name for name in ("tasks.executor", "quarry.stages") if name in sys.modules],
                        "per_machine": os.environ.get("QUARRY_PROCESSES_PER_MACHINE"), "cwd": os.getcwd(),
                        "path": os.environ.get("PYTHONPATH"),
                        "cores_share": cores_per_process() == max(1, available_cores() // 2),
                        "dask": {key: dask.config.get(key) for key in DASK_SETTINGS}}

            futures = [client.submit(probe, workers=[worker], pure=False) for worker in workers]
            results = client.gather(futures, errors="raise")
            # a function of the project's code, pickled by reference: the scheduler and the
            # workers import it (as they do tasks.executor's Prefect tasks)
            assert client.submit(batch_label, "shard-0", 3).result(timeout=30) == batch_label("shard-0", 3)
            scheduler_settings = client.run_on_scheduler(lambda: {key: __import__("dask").config.get(key)
                                                                  for key in DASK_SETTINGS})
        # Quarry's Dask settings reached the scheduler and the workers (quiet event loops, no profiler)
        quiet = {"distributed.admin.tick.interval": "1s", "distributed.worker.profile.enabled": False,
                 "distributed.admin.system-monitor.interval": "2s", "distributed.worker.memory.monitor-interval": "1s"}
        assert scheduler_settings == quiet
        for result in results:
            assert result == {"preloaded": ["tasks.executor", "quarry.stages"], "per_machine": "2",
                              "cwd": str(REPO), "path": str(REPO), "cores_share": True, "dask": quiet}
        names = sorted(info["name"] for info in workers.values())
        assert len(set(names)) == 2 and all(re.fullmatch(r"quarry-.+-\d+-[01]", name) for name in names), names
    finally:
        for group in reversed(groups):
            stop_group(group)
    assert not any(group_alive(group) for group in groups)


def test_the_dask_settings_mean_the_same_in_this_process_and_in_a_workers_environment():
    """The flows' LocalCluster takes DASK_SETTINGS through dask.config.set, the launcher's workers
    through the environment: both must read a setting as the same value (a string "False" is true)."""
    import dask

    from quarry.cluster.worker import dask_environment

    from_environment = dask.config.collect_env(dask_environment())
    with dask.config.set(DASK_SETTINGS):
        for key in DASK_SETTINGS:
            assert dask.config.get(key) == dask.config.get(key, config=from_environment), key
        assert dask.config.get("distributed.worker.profile.enabled") is False


def test_the_command_writes_the_script_and_names_a_bad_option(tmp_path, capsys):
    out = tmp_path / "job.sh"
    assert cli.main(["cluster", "script", "slurm", "-N", "2", "-c", "4", "-m", "8GB", "-q", "short",
                     "--project", str(REPO), "-o", str(out)]) == 0
    options = cluster_options({"nodes": 2, "cores": 4, "memory": "8GB", "queue": "short", "project": REPO})
    assert out.read_text() == job_script(options, "slurm")
    assert "sbatch" in capsys.readouterr().err
    for argv, named in ((["--memory", "lots"], "--memory: not a size"), (["--walltime", "soon"], "--walltime:"),
                        (["--cores", "0"], "--cores:"), (["--queue", "a b"], "--queue:"),
                        (["--project", str(tmp_path)], "--project:"), (["--name", "a b"], "--name:"),
                        (["-d", " "], "--directive:")):
        assert cli.main(["cluster", "script", "slurm", *argv]) == 1
        err = capsys.readouterr().err.strip()
        assert named in err and "\n" not in err, err
    assert cli.main(["cluster", "script", "lsf"]) == 2
    assert "slurm, pbs, sge" in capsys.readouterr().err

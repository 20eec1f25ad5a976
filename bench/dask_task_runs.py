"""What one Prefect task run costs on a real Dask cluster, by role: ``--tasks`` trivial task runs
of one flow on a `dask scheduler` with two `dask worker` processes (bench/scale.py's cluster) and
the project's own Prefect server, after one warm-up flow run (imports done).

Prints JSON: wall seconds, and CPU milliseconds per task run of the workers, the Prefect server,
the flow's process and the scheduler.

    python bench/dask_task_runs.py --tasks 200
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale  # noqa: E402  (its Dask cluster and paths)


def cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        process = psutil.Process(pid)
        for member in (process, *process.children(recursive=True)):
            times = member.cpu_times()
            total += times.user + times.system
    return total


def server_pids() -> list[int]:
    return [p.pid for p in psutil.process_iter(["cmdline"]) if "prefect server start" in " ".join(p.info["cmdline"] or [])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="quarry-dask-task-runs-"))
    (home / "params.yaml").write_text("pipeline: {}\n")
    os.chdir(home)
    os.environ.update(scale.environment(home))
    sys.path.insert(0, str(scale.REPO))
    address, cluster = scale.start_cluster(home, home / "cluster.log")
    try:
        from flows.server import ensure_api
        ensure_api()  # before Prefect reads its settings

        from prefect import flow, task
        from prefect.cache_policies import NO_CACHE

        from flows.runners import task_runner

        @task(cache_policy=NO_CACHE, persist_result=False)
        def noop(i: int) -> int:
            return i

        @flow(name="dask-task-runs")
        def runs(n: int) -> list[int]:
            return [future.result() for future in [noop.submit(i) for i in range(n)]]

        runner = lambda: task_runner(dask_address=address)  # noqa: E731
        runs.with_options(task_runner=runner())(4)  # warm-up
        workers, scheduler, servers = [p.pid for p in cluster[1:]], [cluster[0].pid], server_pids()
        before = cpu_seconds(workers), cpu_seconds(servers), time.process_time(), cpu_seconds(scheduler)
        start = time.perf_counter()
        runs.with_options(task_runner=runner())(args.tasks)
        wall = time.perf_counter() - start
        after = cpu_seconds(workers), cpu_seconds(servers), time.process_time(), cpu_seconds(scheduler)
        per_run = [round((a - b) / args.tasks * 1000, 1) for a, b in zip(after, before, strict=True)]
        print(json.dumps({"task_runs": args.tasks, "wall_s": round(wall, 2), "cpu_ms_per_task_run": dict(
            zip(("workers", "prefect server", "flow process", "dask scheduler"), per_run, strict=True))}))
    finally:
        subprocess.run([str(scale.BIN / "quarry"), "server", "stop"], cwd=home, env=scale.environment(home),
                       capture_output=True, timeout=120)
        for process in cluster:
            process.terminate()


if __name__ == "__main__":
    main()

"""The orchestration under the largest task count the engine creates (a map over a plan's items:
origins, splits, partitions): one stage whose map phase is ``--tasks`` Prefect task runs (the
engine's cap per stage is 2,000; its shards in fixed batches, as items are, instead of shared out),
on tiny shards, against the same stage on the local executor, on the project's own Prefect server.

Prints JSON: wall seconds of both, the orchestration overhead per task run ((Prefect wall - local
wall) / task runs), the Prefect server's peak RSS and CPU seconds, and whether both wrote the same
bytes (its floor, bench/floors.py: it exits non-zero when they differ).

    python bench/orchestration.py                 # 2,000 task runs
    python bench/orchestration.py --tasks 200     # a quick look
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

from floors import Floors

REPO = Path(__file__).resolve().parents[1]

RUN = """
import json, resource, sys, time
from pathlib import Path
mode, src, dst, tasks = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
from quarry.engine import run_local, run_stage
from quarry.stages.filters import FILTERS
if mode == "local":
    begun = time.perf_counter()
    run_local(FILTERS, src, dst, {})
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"seconds": time.perf_counter() - begun, "cpu_seconds": usage.ru_utime + usage.ru_stime,
                      "peak_rss_mb": usage.ru_maxrss / 1024}))
else:
    from flows.server import ensure_api
    ensure_api()
    from prefect import flow
    from prefect.task_runners import ThreadPoolTaskRunner
    from tasks.executor import PrefectExecutor

    @flow(name="orchestration-load", task_runner=ThreadPoolTaskRunner(max_workers=2))
    def load():
        return run_stage(FILTERS, src, dst, {}, PrefectExecutor(tasks_per_stage=tasks, tasks_per_worker=tasks,
                                                                   share_out=False))

    begun = time.perf_counter()
    load()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"seconds": time.perf_counter() - begun, "cpu_seconds": usage.ru_utime + usage.ru_stime,
                      "peak_rss_mb": usage.ru_maxrss / 1024}))
"""


def tiny_shards(folder: Path, count: int) -> Path:
    from quarry.records import write_records

    for i in range(count):
        write_records(folder / f"part-{i:05d}.jsonl.zst",
                      [{"text": f"def f{i}():\n    return {i}\n", "meta": {"id": f"doc-{i}", "language": "Python"}}])
    return folder


def server_usage(project: Path) -> dict:
    import psutil

    state = json.loads((project / ".quarry" / "prefect" / "server.json").read_text())
    group = [p for p in psutil.process_iter(["pid"]) if _group(p) == state["pid"]]
    rss = sum(p.memory_info().rss for p in group)
    cpu = sum(sum(p.cpu_times()[:2]) for p in group)
    return {"rss_mb": round(rss / 2**20, 1), "cpu_seconds": round(cpu, 1), "processes": len(group)}


def _group(process) -> int | None:
    try:
        return os.getpgid(process.pid)
    except OSError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2000)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from quarry.infra.hashing import tree_hash

    with tempfile.TemporaryDirectory(prefix="quarry-orchestration-") as tmp:
        project = Path(tmp)
        (project / "params.yaml").write_text("pipeline: {}\n")
        src = tiny_shards(project / "shards", args.tasks)
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")},
               "QUARRY_HOME": str(project), "PYTHONPATH": str(REPO)}
        runs = {}
        for mode in ("local", "prefect"):
            done = subprocess.run([sys.executable, "-c", RUN, mode, str(src), str(project / mode), str(args.tasks)],
                                  cwd=project, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                print(done.stderr[-3000:], file=sys.stderr)
                return 1
            runs[mode] = json.loads(done.stdout.strip().splitlines()[-1])
        usage = server_usage(project)
        subprocess.run([sys.executable, "-m", "quarry", "server", "stop"], cwd=project, env=env, capture_output=True)
        same = all(tree_hash(project / "local" / name) == tree_hash(project / "prefect" / name)
                   for name in ("rejects", *(p.name for p in (project / "local").glob("part-*"))))
    overhead = (runs["prefect"]["seconds"] - runs["local"]["seconds"]) / args.tasks
    floors = Floors()
    floors.equals("same_bytes", same, True)
    floors.emit({"task_runs": args.tasks, "shards": args.tasks,
                 "local": {k: round(v, 1) for k, v in runs["local"].items()},
                 "prefect": {k: round(v, 1) for k, v in runs["prefect"].items()},
                 "overhead_per_task_run_s": round(overhead, 3),
                 "flow_cpu_per_task_run_s": round((runs["prefect"]["cpu_seconds"] - runs["local"]["cpu_seconds"])
                                                  / args.tasks, 3),
                 "prefect_server": usage})
    return 0

if __name__ == "__main__":
    sys.exit(main())

"""Whole curation (licenses -> optout -> filters -> PII -> dedup -> decontaminate) cold on a
deterministic corpus of real code (this interpreter's standard library, then every installed
distribution, files in sorted order), three ways side by side:

    local-1   the local executor, 1 process on 1 core (its CPU affinity: ScanCode's workers share it)
    local-2   the local executor, 2 processes on 2 cores
    dask-2    the DAG's Prefect executor on a real Dask cluster: `dask scheduler` and two
              `dask worker` processes on localhost

Each run starts cold (fresh project state: no Prefect results, no ScanCode answers cached).
Prints JSON: MB/s per core for every phase and end to end, speedup over local-1, peak memory of
the process tree (scheduler and workers included), and the curated output's hash, which must be
the same in all three.

    python bench/scale.py                 # 250 MB
    python bench/scale.py --mb 20         # a quick look

Floor (bench/floors.py): the three runs curate the same output (one hash).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from floors import Floors
from memory import TreePeak

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SHARD_BYTES = 8_000_000  # the snapshot's default; smaller corpora get smaller shards (at least 16)
LANGUAGES = {".py": "Python", ".pyi": "Python", ".c": "C", ".h": "C", ".cpp": "C++", ".js": "JavaScript",
             ".ts": "TypeScript", ".html": "HTML", ".css": "CSS", ".sh": "Bash", ".md": "Markdown",
             ".rst": "reStructuredText", ".txt": "Text", ".json": "JSON", ".toml": "TOML", ".cfg": "INI",
             ".yaml": "YAML", ".yml": "YAML", ".xml": "XML", ".pyx": "Cython"}
MAX_FILE = 1_000_000
PRELOAD = ["--preload", "tasks.executor", "--preload", "quarry.stages"]


def source_roots() -> list[tuple[str, Path]]:
    roots = [("python:stdlib", Path(sysconfig.get_paths()["stdlib"]))]
    purelib = Path(sysconfig.get_paths()["purelib"])
    roots += [(f"pypi:{p.name}", p) for p in sorted(purelib.iterdir()) if p.is_dir() and not p.name.endswith(
        (".dist-info", "__pycache__"))]
    return roots


def build_corpus(folder: Path, target_bytes: int) -> dict:
    """Snapshot-style shards of real source files until ``target_bytes`` of text: same bytes on
    every call with the same interpreter and installed distributions."""
    from quarry.records import RecordWriter

    folder.mkdir(parents=True, exist_ok=True)
    shard_bytes = min(SHARD_BYTES, target_bytes // 16)
    total, shard, writer, documents = 0, 0, None, 0
    for origin, root in source_roots():
        for path in sorted(p for p in root.rglob("*") if p.suffix in LANGUAGES or p.name.upper().startswith(
                ("LICENSE", "COPYING"))):
            if not path.is_file() or path.stat().st_size > MAX_FILE or "site-packages" in path.relative_to(
                    root).parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            rel = path.relative_to(root).as_posix()
            if writer is None:
                writer = RecordWriter(folder / f"part-{shard:05d}.jsonl.zst")
            writer.write({"text": text, "meta": {"id": f"{origin}:{rel}", "origin": origin, "path": rel,
                                                 "language": LANGUAGES.get(path.suffix, "Text"),
                                                 "pile_set_name": "code", "bytes": len(text.encode())}})
            size = len(text.encode())
            total, documents = total + size, documents + 1
            if writer.stats.bytes >= shard_bytes:
                writer.close()
                writer, shard = None, shard + 1
            if total >= target_bytes:
                break
        if total >= target_bytes:
            break
    if writer is not None:
        writer.close()
    return {"bytes": total, "documents": documents, "shards": len(list(folder.glob("part-*")))}


RUN = """
import json, sys, time
from pathlib import Path
from quarry.hashing import tree_hash
from quarry.stages.curation import CURATION, curate
kind, workers, address, shards, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), Path(sys.argv[5])
registry = Path(sys.argv[6])  # one file for the three runs: the stages' provenance (and hash) names it
registry.write_text("origin\\thttps://example.org/opted-out\\t2026-01-01\\tbench\\n")
params = {"optout": {"registry": str(registry.resolve())}, "decontaminate": {"test_split": "test"}}
if kind == "dask":
    from flows.server import ensure_api
    ensure_api()  # one server for this process and the cluster's workers (started before the clock)
start = time.perf_counter()
if kind == "local":
    from quarry.engine import LocalExecutor
    with LocalExecutor(workers) as executor:
        runs = curate(shards, out, params, executor)
else:
    from prefect import flow
    from flows.runners import task_runner
    from tasks.executor import PrefectExecutor
    @flow(name="curate-bench")
    def bench():
        return curate(shards, out, params, PrefectExecutor())
    runs = bench.with_options(task_runner=task_runner(dask_address=address))()
wall = time.perf_counter() - start
print("RESULT " + json.dumps({"wall_s": wall, "hash": tree_hash(out / CURATION[-1].folder),
      "stages": {r.stage: {"seconds": r.seconds, "phases": r.phases, "input_mb": r.input_bytes / 1e6,
                            "kept": r.result["kept"]} for r in runs}}))
"""


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(QUARRY_HOME=str(home), PYTHONPATH=str(REPO))
    env.setdefault("QUARRY_SCANCODE_PYTHON", str(REPO / ".venv-scancode" / "bin" / "python"))
    env["QUARRY_SCANCODE_RUNTIME"] = str(home / "scancode")  # a ScanCode server of the run's own: a cold index
    return env


def scheduler_address(scheduler_file: Path) -> str | None:
    try:
        return json.loads(scheduler_file.read_text())["address"]
    except (OSError, ValueError, KeyError):  # not written yet, or half-written
        return None


def start_cluster(home: Path, log: Path) -> tuple[str, list[subprocess.Popen]]:
    env = environment(home)
    address_file = log.with_suffix(".json")  # the address, whatever the log level lets the log say
    with open(log, "w") as out:
        scheduler = subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                      "--no-dashboard", "--scheduler-file", str(address_file)],
                                     stdout=out, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 120
    while not (address := scheduler_address(address_file)):
        if time.monotonic() > deadline or scheduler.poll() is not None:
            scheduler.kill()
            raise SystemExit(f"the Dask scheduler did not start: {log.read_text()[-2000:]}")
        time.sleep(0.5)
    # two worker processes share this machine's cores (QUARRY_PROCESSES_PER_MACHINE)
    env = {**env, "QUARRY_PROCESSES_PER_MACHINE": "2"}
    # --preload: the workers import the stage code as they start, as a local pool's processes fork from
    # a parent that already did (docs/scale.md gives the same command for a real cluster)
    workers = [subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1", "--nworkers", "1",
                                 "--no-dashboard", *PRELOAD], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=env)
               for _ in range(2)]
    return address, [scheduler, *workers]


def run(kind: str, workers: int, shards: Path, scratch: Path) -> dict:
    home = scratch / f"{kind}-{workers}"
    home.mkdir()
    (home / "params.yaml").write_text("pipeline: {}\n")
    cluster: list[subprocess.Popen] = []
    address = "-"
    if kind == "dask":
        address, cluster = start_cluster(home, home / "cluster.log")
    try:
        cores = sorted(os.sched_getaffinity(0))[:workers]  # a local run of N workers gets N cores, its
        pin = (lambda: os.sched_setaffinity(0, cores)) if kind == "local" else None  # ScanCode workers too
        process = subprocess.Popen([sys.executable, "-c", RUN, kind, str(workers), address, str(shards),
                                    str(home / "curated"), str(scratch / "registry.tsv")], cwd=home, env=environment(home), preexec_fn=pin,
                                   stdout=subprocess.PIPE, stderr=open(home / "run.log", "w"), text=True)
        peaks = [TreePeak(process.pid), *(TreePeak(p.pid) for p in cluster)]
        output, _ = process.communicate()
        peak = round(sum(p.stop_mb() for p in peaks), 1)
        cpu = cpu_by_role(peaks, process.pid)
    finally:
        if kind == "dask":  # after the run's process has sent its last events to the server
            subprocess.run([str(BIN / "quarry"), "server", "stop"], cwd=home, env=environment(home),
                           capture_output=True, timeout=120)
        for p in cluster:
            p.terminate()
            p.wait(timeout=60)
        shutil.rmtree(home / "scancode", ignore_errors=True)  # its socket file gone, the server ends
    if process.returncode != 0:
        raise SystemExit(f"{kind}-{workers} failed: {(home / 'run.log').read_text()[-3000:]}")
    result = json.loads(output.split("RESULT ", 1)[1])
    result["peak_mb"], result["cpu_s"] = peak, cpu
    return result


def cpu_by_role(trees: list[TreePeak], run_pid: int) -> dict[str, float]:
    """CPU seconds of the measured processes by what they do: the run's own process (the flow, or
    with one local worker the work itself), the workers (pool or Dask processes and their ScanCode
    workers), and the orchestration beside them (the Prefect server, the Dask scheduler)."""
    roles: dict[str, float] = {}
    for tree in trees:
        for pid, (command, seconds) in tree.cpu_seconds.items():
            line = " ".join(command)
            role = ("run process" if pid == run_pid else
                    "prefect server" if "prefect server start" in line else
                    "dask scheduler" if "dask scheduler" in line else "workers")
            roles[role] = roles.get(role, 0.0) + seconds
    return {role: round(seconds, 1) for role, seconds in sorted(roles.items())}


def rates(result: dict, mb: float, cores: int) -> dict:
    # corpus MB (text) through each phase per second per core, comparable with the end-to-end rate
    phases = {f"{stage}.{phase}": round(mb / seconds / cores, 3)
              for stage, info in result["stages"].items() for phase, seconds in info["phases"].items() if seconds > 0}
    return {"wall_s": round(result["wall_s"], 1), "mb_s_per_core": round(mb / result["wall_s"] / cores, 3),
            "peak_mb": result["peak_mb"], "cpu_s": result["cpu_s"], "hash": result["hash"],
            "phase_mb_s_per_core": phases,
            "stage_seconds": {s: round(i["seconds"], 1) for s, i in result["stages"].items()}}


CLUSTER_BYTES_PER_DOC = 48  # dedup clustering holds per document: one band of keys and its sort order
                            # (2 x 8 B), the exact hash (16 B), union-find parent and rank (16 B)


def project(measured: dict, corpus_mb: float, documents: int, workers: int) -> dict:
    """Wall time, task count and clustering memory at 1 TB and 67 TB (The Stack v2) on N workers,
    from one run's per-phase seconds (the one-process run: no contention for the cores): map
    phases scale with data / workers, global phases with data alone (they run in one process)."""
    from quarry.stages.curation import CURATION
    from tasks.batching import TASKS_PER_STAGE

    kinds = {(stage.name, phase.name): type(phase).__name__ for stage in CURATION for phase in stage.phases}
    out = {}
    for label, mb in (("1TB", 1e6), ("67TB", 67e6)):
        scale = mb / corpus_mb
        shards = mb / SHARD_BYTES * 1e6
        rows = {}
        for n in (2, 16, 64, 256):
            phases = {}
            for stage, info in measured["stages"].items():
                for phase, seconds in info["phases"].items():
                    parallel = kinds[(stage, phase)] == "Map"
                    phases[f"{stage}.{phase}"] = seconds * scale * (workers / n if parallel else 1)
            slowest = max(phases, key=phases.get)
            rows[f"{n}_workers"] = {"hours": round(sum(phases.values()) / 3600, 1), "slowest_phase": slowest,
                                    "slowest_phase_hours": round(phases[slowest] / 3600, 1)}
        out[label] = {"shards_8mb": int(shards), "tasks_per_stage": min(int(shards), TASKS_PER_STAGE),
                      "dedup_cluster_gb": round(documents / corpus_mb * mb * CLUSTER_BYTES_PER_DOC / 1e9, 1),
                      **rows}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=250, help="corpus size (MB of text)")
    parser.add_argument("--scratch", type=Path, default=None, help="working folder (default: a temp folder)")
    args = parser.parse_args()
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="quarry-scale-"))
    corpus = build_corpus(scratch / "corpus", int(args.mb * 1e6))
    mb = corpus["bytes"] / 1e6
    raw, results = {}, {}
    for kind, workers in (("local", 1), ("local", 2), ("dask", 2)):
        raw[f"{kind}-{workers}"] = run(kind, workers, scratch / "corpus", scratch)
        results[f"{kind}-{workers}"] = rates(raw[f"{kind}-{workers}"], mb, workers)
    base = results["local-1"]["wall_s"]
    for result in results.values():
        result["speedup"] = round(base / result["wall_s"], 2)
    projection = project(raw["local-1"], mb, corpus["documents"], workers=1)
    floors = Floors()
    same_hash = len({r["hash"] for r in results.values()}) == 1
    floors.equals("same_hash", same_hash, True)
    floors.emit({"corpus": {**corpus, "mb": round(mb, 1)}, "cpus": os.cpu_count(), "runs": results,
                 "same_hash": same_hash, "projection": projection})


if __name__ == "__main__":
    main()

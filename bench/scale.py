"""Whole curation (licenses -> optout -> filters -> PII -> dedup -> decontaminate) cold on a
deterministic corpus of real code (this interpreter's standard library, then every installed
distribution, files in sorted order), three ways side by side:

    local-1   the local executor, 1 process on 1 core (its CPU affinity: ScanCode's workers share it)
    local-2   the local executor, 2 processes on 2 cores
    dask-2    the DAG's Prefect executor on a real Dask cluster: `dask scheduler` and two
              `dask worker` processes on localhost

local-2 and dask-2 run ``--pairs`` times each (default 2) in ABBA order, and their ratio is that of
the sums of their wall times, so that a steady drift of the machine's speed cancels.

Each run starts cold (fresh project state: no Prefect results, no ScanCode answers cached).
Prints JSON: MB/s per core for every phase and end to end, speedup over local-1, peak memory of
the process tree (scheduler and workers included), the CPU seconds each role used while the run's
clock ran (one sampler for all of a run's processes, so measuring costs every run the same), and
the curated output's hash, which must be the same in every run.

    python bench/scale.py                 # 250 MB
    python bench/scale.py --mb 20         # a quick look

Floor (bench/floors.py): every run curates the same output (one hash).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import machine_code
from floors import Floors
from memory import TreePeak

from quarry.cluster.worker import PRELOADS, dask_environment

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
BIN = Path(sys.executable).parent
SHARD_BYTES = 8_000_000  # the snapshot's default; smaller corpora get smaller shards (at least 16)
PRELOAD = [arg for module in PRELOADS for arg in ("--preload", module)]  # as `quarry cluster` starts its workers


def build_corpus(folder: Path, target_bytes: int) -> dict:
    """Snapshot-style shards of the machine's code (machine_code.documents) until ``target_bytes``
    of text: the same bytes on every call on the same machine. A folder that already holds the
    corpus of this target is reused (its description records the target)."""
    from quarry.records import RecordWriter

    described = folder / "corpus.json"
    kept = json.loads(described.read_text()) if described.is_file() else {}
    if kept.get("target_bytes") == target_bytes:
        return kept["corpus"]
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    shard_bytes = min(SHARD_BYTES, target_bytes // 16)
    shard, writer = 0, None
    documents, total, families, copies = 0, 0, Counter(), Counter()
    for record in machine_code.documents(target_bytes):
        if writer is None:
            writer = RecordWriter(folder / f"part-{shard:05d}.jsonl.zst")
        meta = record["meta"]
        writer.write(record)
        documents, total = documents + 1, total + meta["bytes"]
        families[meta["family"]] += meta["bytes"]
        copies[meta["copy"]] += meta["bytes"]
        if writer.stats.bytes >= shard_bytes:
            writer.close()
            writer, shard = None, shard + 1
    if writer is not None:
        writer.close()
    corpus = {"bytes": total, "documents": documents, "shards": len(list(folder.glob("part-*"))),
              "mb_by_family": {f: round(b / 1e6, 1) for f, b in sorted(families.items())},
              "mb_by_pass": {str(c): round(b / 1e6, 1) for c, b in sorted(copies.items())},
              "repeat_edit": machine_code.REPEAT_EDIT if len(copies) > 1 else None}
    described.write_text(json.dumps({"target_bytes": target_bytes, "corpus": corpus}, indent=1))
    return corpus


RUN = """
import json, sys, time
from pathlib import Path
from quarry.infra.hashing import tree_hash
from quarry.stages.curation import CURATION, run_curation
kind, workers, address, shards, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), Path(sys.argv[5])
registry = Path(sys.argv[6])  # one file for the three runs: the stages' provenance (and hash) names it
registry.write_text("origin\\thttps://example.org/opted-out\\t2026-01-01\\tbench\\n")
from quarry.config import as_params
params = as_params({"optout": {"registry": str(registry.resolve())}, "decontaminate": {"test_split": "test"}})
from quarry.engine import LocalExecutor
if kind == "dask":  # the modules each kind runs with imported and the server up before the clock
    from flows.server import ensure_api
    ensure_api()  # one server for this process and the cluster's workers, before Prefect reads its settings
    from prefect import flow
    from flows.runners import task_runner
    from tasks.executor import PrefectExecutor
start = time.perf_counter()
print("CLOCK", flush=True)  # the bench counts CPU from here (a server's start-up before it is left out)
globals_peak, partitions_peak = {}, {}
if kind == "local":
    import tracemalloc

    def traced(call):
        tracemalloc.start()
        try:
            return call(), tracemalloc.get_traced_memory()[1] / 1e6
        finally:
            tracemalloc.stop()

    class Measured(LocalExecutor):
        # with one process, the own peak of Python and numpy allocations (tracemalloc, from the
        # call's start: what it allocates, not what earlier phases left) of each global phase and
        # of each partition of a partitioned one (a map over a plan's items)
        def run_global(self, stage, phase, job, config):
            if self.workers > 1:
                return super().run_global(stage, phase, job, config)
            result, peak = traced(lambda: super(Measured, self).run_global(stage, phase, job, config))
            globals_peak[f"{stage.name}.{phase.name}"] = {"net_mb": round(peak, 1)}
            return result

        def map(self, stage, phase, jobs, config):
            if self.workers > 1 or not phase.over:
                return super().map(stage, phase, jobs, config)
            results, peaks = [], []
            for job in jobs:
                result, peak = traced(lambda: phase.fn(job, config))
                results.append(result)
                peaks.append(peak)
            partitions_peak[f"{stage.name}.{phase.name}"] = {"net_mb": round(max(peaks, default=0.0), 1),
                                                             "partitions": len(jobs)}
            return results

    with Measured(workers) as executor:
        runs = run_curation(shards, out, params, executor)
else:
    @flow(name="curate-bench")
    def bench():
        return run_curation(shards, out, params, PrefectExecutor())
    runs = bench.with_options(task_runner=task_runner(dask_address=address))()
wall = time.perf_counter() - start
print("RESULT " + json.dumps({"wall_s": wall, "hash": tree_hash(out / CURATION[-1].folder), "global_peak_mb": globals_peak,
      "partition_peak_mb": partitions_peak,
      "stages": {r.stage: {"seconds": r.seconds, "phases": r.phases, "input_mb": r.input_bytes / 1e6,
                            "input": r.result["input"], "kept": r.result["kept"],
                            **{k: r.result[k] for k in ("partitions",) if k in r.result},
                            **({"test_split_items": r.result["contamination"]["test_split_items"]}
                               if "contamination" in r.result else {})} for r in runs}}))
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
    env = {**environment(home), **dask_environment()}  # the settings `quarry cluster` gives its scheduler and workers
    address_file = log.with_suffix(".json")  # the address, whatever the log level lets the log say
    with open(log, "w") as out:
        scheduler = subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                      "--no-dashboard", "--scheduler-file", str(address_file)],
                                     stdout=out, stderr=subprocess.STDOUT, env=env, cwd=home)
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
                                env=env, cwd=home)  # in the project folder, as `quarry cluster` starts them
               for _ in range(2)]
    from distributed import Client

    with Client(address, timeout=120) as client:  # both up and preloaded before the clock, as on a cluster
        client.wait_for_workers(2, timeout=300)
    return address, [scheduler, *workers]


def run(kind: str, workers: int, shards: Path, scratch: Path, name: str | None = None) -> dict:
    home = scratch / (name or f"{kind}-{workers}").replace("#", ".")  # a repeat's own folder: dask-2.2
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
        measured = TreePeak(process.pid, *(p.pid for p in cluster))  # one sampler: the same cost for every run
        output = ""
        for line in process.stdout:
            if line.startswith("CLOCK"):
                measured.mark()
            output += line
        process.wait()
        peak = measured.stop_mb()
        cpu = cpu_by_role(measured, process.pid)
        process_peaks = peak_by_role(measured, process.pid)
    finally:
        end_run(home, cluster, stop_server=kind == "dask")
    if process.returncode != 0:
        raise SystemExit(f"{home.name} failed: {(home / 'run.log').read_text()[-3000:]}")
    result = json.loads(output.split("RESULT ", 1)[1])
    result["peak_mb"], result["cpu_s"], result["process_peak_mb"] = peak, cpu, process_peaks
    return result


def end_run(home: Path, cluster: list[subprocess.Popen], stop_server: bool = True) -> None:
    """After a run's process: its Prefect server stopped (once the run has sent its last events),
    its cluster's processes ended, its ScanCode server gone with its socket file."""
    if stop_server:
        subprocess.run([str(BIN / "quarry"), "server", "stop"], cwd=home, env=environment(home),
                       capture_output=True, timeout=120)
    for p in cluster:
        p.terminate()
        p.wait(timeout=60)
    shutil.rmtree(home / "scancode", ignore_errors=True)


def role(pid: int, command: list[str], run_pid: int) -> str:
    """What a measured process does: the run's own process (the flow, or with one local worker the
    work itself), a worker (pool or Dask process), a ScanCode worker, or the orchestration beside
    them (the Prefect server and its supervisor, the Dask scheduler)."""
    line = " ".join(command)
    return ("run process" if pid == run_pid else
            "prefect server" if "prefect server start" in line or "flows.server_watch" in line else
            "dask scheduler" if "dask scheduler" in line else
            "scancode" if "scancode" in line else "workers")


def cpu_by_role(measured: TreePeak, run_pid: int) -> dict[str, float]:
    """CPU seconds the measured processes used while the run's clock ran, by role (``role``)."""
    roles: dict[str, float] = {}
    for pid, (command, seconds) in measured.cpu_since_mark().items():
        name = role(pid, command, run_pid)
        roles[name] = roles.get(name, 0.0) + seconds
    return {name: round(seconds, 1) for name, seconds in sorted(roles.items())}


def peak_by_role(measured: TreePeak, run_pid: int) -> dict[str, float]:
    """The largest peak RSS (MB) of any one process in each role: what a node must hold per process."""
    roles: dict[str, float] = {}
    for pid, peak in measured.process_peaks.items():
        name = role(pid, measured.cpu_seconds.get(pid, ([], 0.0))[0], run_pid)
        roles[name] = max(roles.get(name, 0.0), round(peak / 1e6, 1))
    return dict(sorted(roles.items()))


def rates(result: dict, mb: float, cores: int) -> dict:
    # corpus MB (text) through each phase per second per core, comparable with the end-to-end rate
    phases = {f"{stage}.{phase}": round(mb / seconds / cores, 3)
              for stage, info in result["stages"].items() for phase, seconds in info["phases"].items() if seconds > 0}
    return {"wall_s": round(result["wall_s"], 1), "mb_s_per_core": round(mb / result["wall_s"] / cores, 3),
            "peak_mb": result["peak_mb"], "process_peak_mb": result["process_peak_mb"], "cpu_s": result["cpu_s"],
            "hash": result["hash"],
            "phase_mb_s_per_core": phases,
            **({"global_phase_peak_mb": result["global_peak_mb"]} if result["global_peak_mb"] else {}),
            **({"partition_phase_peak_mb": result["partition_peak_mb"]} if result.get("partition_peak_mb") else {}),
            "stage_seconds": {s: round(i["seconds"], 1) for s, i in result["stages"].items()}}


MEMORY_LIMIT_GB = 64     # the largest process a projection may name (a common large node's share)
SCALES = (("1TB", 1e6), ("67TB", 67e6))
WORKER_COUNTS = (2, 16, 64, 256, 1024)
TEST_SPLIT_MB = 1000     # the held-out test split of a large release (assemble.splits sized to it; the Pile's: 1.4 GB)
INDEX_PHASES = ("decontaminate.index", "decontaminate.common", "decontaminate.count")  # hold index-sized arrays
INDEX_BUILD = "decontaminate.index"   # the one whose time grows with the test split, not the corpus
SHARED_PARTITIONS = {"dedup.copies": "dedup.repositories"}       # runs over the same partitions


def estimates(stages: dict) -> dict[str, float]:
    """Each partitioned phase's own estimate of what one partition holds (MB), from the ledgers:
    the partition count the stage chooses follows it (``partition_mb``)."""
    found = {}
    for stage, info in stages.items():
        peaks = (info.get("partitions") or {}).get("estimated_peak_mb")
        if isinstance(peaks, dict):
            found.update({f"{stage}.{phase}": mb for phase, mb in peaks.items()})
        elif peaks is not None:
            found[f"{stage}.decide"] = peaks
    return found


def project(measured: dict, corpus_mb: float, documents: int, clustering: dict | None = None,
            worker_peaks_mb: dict[str, float] | None = None, partition_mb: float = 1024) -> dict:
    """Wall time, task runs and every process's memory at 1 TB and 67 TB (The Stack v2) on N
    workers, from the one-process run (no contention for the cores). Map phases scale with
    data / workers, global phases with data alone (they run in one process). Memory:

    - a global phase: its measured net peak per document, times the documents (the decontamination
      index and its verdicts: per test-split document, with a test split of TEST_SPLIT_MB);
    - a partitioned phase (a map over partitions of its key space): its measured peak per document
      of a partition, times the documents of one partition, the partition count being the one the
      stage chooses (its own estimate of the whole over ``partition_mb``);
    - a map worker holds one shard at a time (its ScanCode worker the licence index) and maps the
      evaluation index: its measured peak, plus the index at that size."""
    from quarry.stages.curation import CURATION
    from quarry.stages.decontaminate import SHARDS_PER_COUNT
    from tasks.batching import TASKS_PER_STAGE

    kinds = {(stage.name, phase.name): type(phase).__name__ for stage in CURATION for phase in stage.phases}
    test_docs = measured["stages"].get("decontaminate", {}).get("test_split_items") or 1
    per_doc = {name: info["net_mb"] * 1e6 / (test_docs if name in INDEX_PHASES else documents)
               for name, info in measured.get("global_peak_mb", {}).items()}
    partitioned = measured.get("partition_peak_mb", {})
    estimated = estimates(measured["stages"])
    out = {}
    for label, mb in SCALES:
        scale, docs = mb / corpus_mb, documents / corpus_mb * mb
        shards = mb / SHARD_BYTES * 1e6
        tests = min(test_docs * scale, documents / corpus_mb * TEST_SPLIT_MB) if test_docs > 1 else 0
        memory = {f"global {name}": round(bytes_ * (tests if name in INDEX_PHASES else docs) / 1e9, 1)
                  for name, bytes_ in per_doc.items()}
        counts = {name: max(1, math.ceil(estimated.get(name, 0.0) * info["partitions"] * scale / partition_mb))
                  for name, info in partitioned.items()}
        if "decontaminate.count" in counts:  # ranges of shards, whatever they hold
            counts["decontaminate.count"] = math.ceil(shards / SHARDS_PER_COUNT)
        for name, info in partitioned.items():
            counts[name] = counts.get(SHARED_PARTITIONS.get(name, name), counts[name])
            grows = tests / test_docs if name in INDEX_PHASES else info["partitions"] * scale / counts[name]
            memory[f"partition {name}"] = round(info["net_mb"] * grows / 1e3, 1)
        index_gb = memory.get(f"global {INDEX_BUILD}", 0.0)
        for name, peak in (worker_peaks_mb or {}).items():  # one shard at a time: the same at any size
            memory[name] = round(peak / 1e3 + (index_gb if name == "map worker" else 0.0), 1)
        rows = {}
        for n in WORKER_COUNTS:
            phases = {}
            for stage, info in measured["stages"].items():
                for phase, seconds in info["phases"].items():
                    parallel = kinds[(stage, phase)] == "Map"
                    grows = tests / test_docs if f"{stage}.{phase}" == INDEX_BUILD else scale
                    phases[f"{stage}.{phase}"] = seconds * grows * (1 / n if parallel else 1)
            slowest = max(phases, key=phases.get)
            row = {"hours": round(sum(phases.values()) / 3600, 1), "slowest_phase": slowest,
                   "slowest_phase_hours": round(phases[slowest] / 3600, 1),
                   "global_phases_hours": round(sum(s for p, s in phases.items()
                                                    if kinds[tuple(p.split("."))] != "Map") / 3600, 1)}
            if clustering:
                row["dedup_partition_worker_gb"] = round(clustering_bytes(clustering, n) * docs / 1e9, 1)
            rows[f"{n}_workers"] = row
        largest = max(memory.items(), key=lambda item: item[1], default=(None, 0.0))
        out[label] = {"documents": int(docs), "test_split_documents": int(tests), "shards_8mb": int(shards),
                      "tasks_per_stage": min(int(shards), TASKS_PER_STAGE), "partitions": counts,
                      "process_gb": dict(sorted(memory.items(), key=lambda item: -item[1])),
                      "largest_process": {"name": largest[0], "gb": largest[1],
                                          "within_limit": largest[1] <= MEMORY_LIMIT_GB}, **rows}
    return out


def clustering_bytes(clustering: dict, workers: int) -> float:
    """Bytes per document of the largest dedup partition process (bucket, verify or merge) at
    ``workers`` partitions: measured where bench/clustering.py ran that count; otherwise the
    bucket and verify share of the largest count measured divided further, the merge's kept."""
    table = clustering["partitions"]
    if str(workers) in table:
        return table[str(workers)]["net_bytes_per_doc"]
    most = max(table, key=int)
    row, docs, idle = table[most], clustering["docs"], clustering["idle_worker_mb"]
    split = (max(row["bucket_peak_mb"], row["verify_peak_mb"]) - idle) * 1e6 / docs * int(most) / workers
    return max(split, (row["merge_peak_mb"] - idle) * 1e6 / docs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=250, help="corpus size (MB of text)")
    parser.add_argument("--scratch", type=Path, default=None, help="working folder (default: a temp folder)")
    parser.add_argument("--reproject", type=Path, default=None,
                        help="a raw.json an earlier run kept: no runs, only the rates and the projection again")
    parser.add_argument("--clustering", type=Path, default=None,
                        help="bench/clustering.py's JSON, for the dedup partitions' memory in the projection")
    parser.add_argument("--pairs", type=int, default=2,
                        help="local-2 and dask-2 runs of each, in ABBA order (local, dask, dask, local, ...)")
    args = parser.parse_args()
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="quarry-scale-"))
    if args.reproject:
        kept = json.loads(args.reproject.read_text())
        corpus, raw = kept["corpus"], kept["runs"]
    else:
        corpus = build_corpus(scratch / "corpus", int(args.mb * 1e6))
        raw = {"local-1": run("local", 1, scratch / "corpus", scratch)}
        for name, kind in abba(args.pairs):
            raw[name] = run(kind, 2, scratch / "corpus", scratch, name)
        (scratch / "raw.json").write_text(json.dumps({"corpus": corpus, "runs": raw}, indent=1))  # to re-project
    mb = corpus["bytes"] / 1e6
    results = {name: rates(result, mb, int(name.split("-")[1].split("#")[0])) for name, result in raw.items()}
    repeats = {kind: [results[name]["wall_s"] for name in results if name.split("#")[0] == kind]
               for kind in ("local-2", "dask-2")}
    base = results["local-1"]["wall_s"]
    for result in results.values():
        result["speedup"] = round(base / result["wall_s"], 2)
    clustering = json.loads(args.clustering.read_text()) if args.clustering else None
    peaks = raw["local-2"]["process_peak_mb"]
    workers = {label: peaks[role] for label, role in (("map worker", "workers"), ("scancode worker", "scancode"))
               if role in peaks}
    projection = project(raw["local-1"], mb, corpus["documents"], clustering, workers)
    floors = Floors()
    same_hash = len({r["hash"] for r in results.values()}) == 1
    floors.equals("same_hash", same_hash, True)
    dask_over_local = round(sum(repeats["dask-2"]) / sum(repeats["local-2"]), 3)  # ABBA: a drift in speed cancels
    local_2_speedup = round(base / (sum(repeats["local-2"]) / len(repeats["local-2"])), 2)  # over their mean
    goals = {"local_1_mb_s_per_core": {"value": results["local-1"]["mb_s_per_core"], "goal": ">= 2"},
             "local_2_speedup": {"value": local_2_speedup, "goal": ">= 1.8"},
             "dask_2_wall_over_local_2": {"value": dask_over_local, "goal": "<= 1.1"}}
    floors.emit({"corpus": {**corpus, "mb": round(mb, 1)}, "cpus": os.cpu_count(), "runs": results,
                 "wall_s_in_order": repeats, "same_hash": same_hash, "goals": goals, "projection": projection})


def abba(pairs: int) -> list[tuple[str, str]]:
    """(run name, kind) of ``pairs`` local-2 and dask-2 runs each, in ABBA order: this machine's
    speed drifts 5-15% over a bench; alternating the order cancels a steady drift in their sums.
    The first of each is named plainly (local-2, dask-2), the next local-2#2, dask-2#2, ..."""
    order = [kind for i in range(pairs) for kind in (("local", "dask") if i % 2 == 0 else ("dask", "local"))]
    seen: dict[str, int] = {}
    named = []
    for kind in order:
        seen[kind] = seen.get(kind, 0) + 1
        named.append((f"{kind}-2" + (f"#{seen[kind]}" if seen[kind] > 1 else ""), kind))
    return named


if __name__ == "__main__":
    main()

"""The data half of the DAG (snapshot -> curate -> assemble -> audit -> tokenizer -> tokenize) cold, as a user
runs it (`flows.pipeline.run_node` per node, the flows on their task runner), on a generated input
at several sizes and on several executors:

    local-1   1 worker, the run's processes pinned to 1 core
    local-2   2 workers on 2 cores (a LocalCluster of processes per flow)
    dask-2    a real Dask cluster on localhost: `dask scheduler` and two `dask worker` processes

The input is the machine's own code (bench/scale.py's corpus: machine_code.documents), cached in the
scratch folder per size and format, as one snapshot source:

    --format parquet   The Stack v2's file-level layout: a row per file (blob_id = sha1_git of the
                       content, path, repo_name, language, length_bytes, ...; no content) over
                       several Parquet files (about 64 MB of content each, 8 row groups), the
                       contents gzipped in a blob store keyed by blob_id (`kind: parquet, blobs:`)
    --format pile      Pile-style jsonl.zst shards of about 8 MB ({"text", "meta": {"pile_set_name"}})
                       as a `kind: corpus` source

Each run gets a fresh project (params.yaml from the repository's, the one source, caps above the
input, pipeline.paths as given: in the run's folder) and one process that runs the six nodes in turn.
Prints JSON: wall seconds and MB/s per core (input text MB / wall / cores) per node and end to end,
the largest process's peak RSS by role for each node and for the run, CPU seconds by role, the
dataset version (assemble's manifest) and the hash of the token shards and their manifest; per
size, the speedups, and the peak growth of the largest process doing the snapshot and assemble
nodes' work from the smallest size to the largest, as goals (not floors: a busy machine moves them).

    python bench/dag_scale.py --mb 250 1000                                 # parquet, every executor
    python bench/dag_scale.py --mb 8 --format pile --runs local-1 local-2   # a quick look

Floors (bench/floors.py): every run of one input builds the same dataset version and the same token
shards.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from floors import Floors  # noqa: E402
from memory import TreePeak  # noqa: E402
from scale import REPO, build_corpus, cpu_by_role, end_run, environment, peak_by_role, start_cluster  # noqa: E402

sys.path.insert(0, str(REPO / "tests" / "snapshot"))
from snapshot_stack import write_blob, write_parquet  # noqa: E402

from quarry.records import read_records, write_records  # noqa: E402
from quarry.snapshot.swhid import sha1_git  # noqa: E402

NODES = ("snapshot", "curate", "assemble", "audit", "tokenizer", "tokenize")
PARQUET_BYTES = 64_000_000  # content per Parquet file; smaller inputs get smaller files (at least 4)
ROW_GROUPS = 8              # per Parquet file
GZIP_FANOUT = 5             # snapshot_stack.BLOB_STYLES: ID[:2]/ID.gz
EXECUTORS = {"local-1": ("local", 1), "local-2": ("local", 2), "dask-2": ("dask", 2)}

RUN = """
import json, sys, time
from pathlib import Path
params_file, workers, address = sys.argv[1], int(sys.argv[2]), sys.argv[3]
from flows.server import ensure_api
ensure_api()  # the project's server up before the clock, as `quarry flow` starts it
from flows.pipeline import run_node
from quarry.config.values import load_params
from quarry.config.pipeline import Layout
from quarry.infra.hashing import file_hashes, hashes_digest
layout = Layout.of(load_params(params_file))
print("CLOCK", flush=True)
walls = {}
for node in sys.argv[4:]:
    print("NODE " + node, flush=True)  # the bench reads each node's process peaks at these marks
    start = time.perf_counter()
    run_node(node, params_file, workers=workers, dask_address=None if address == "-" else address)
    walls[node] = time.perf_counter() - start
print("NODE end", flush=True)
manifest = json.loads((layout.dataset / "manifest.json").read_text())
snapshot = json.loads((layout.snapshot / "ledger.json").read_text())
# the token shards and their manifest; provenance.json hashes the dataset folder, whose manifest names the git commit
tokens = hashes_digest(file_hashes(layout.tokens, exclude=("provenance.json",)))
print("RESULT " + json.dumps({"node_wall_s": walls, "version": manifest["version"], "tokens_hash": tokens,
      "snapshot": {k: snapshot.get(k) for k in ("input", "kept", "dropped", "caps")},
      "ledger": {stage: {k: entry[k] for k in ("input", "kept")} for stage, entry in manifest["ledger"].items()}}))
"""


def repo_name(origin: str) -> str:
    """A GitHub-like owner/name for a machine origin (pypi:numpy -> machine/pypi-numpy)."""
    return "machine/" + re.sub(r"[^A-Za-z0-9._~-]+", "-", origin).strip("-")


def build_input(scratch: Path, mb: float, fmt: str) -> tuple[dict, dict]:
    """(the snapshot source, the corpus description) of ``mb`` MB in ``fmt``, built from bench/scale.py's
    corpus of that size; both kept in ``scratch`` and reused for the same size and format."""
    corpus_folder = scratch / f"corpus-{mb:g}"
    corpus = build_corpus(corpus_folder, int(mb * 1e6))
    folder = scratch / f"{fmt}-{mb:g}"
    source = ({"name": "stack", "kind": "parquet", "preset": "stack-v2", "path": str(folder / "files"),
               "blobs": str(folder / "blobs")} if fmt == "parquet" else
              {"name": "pile", "kind": "corpus", "path": str(folder)})
    described = folder / "input.json"
    if described.is_file() and json.loads(described.read_text()) == corpus:
        return source, corpus
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shards = sorted(corpus_folder.glob("part-*.jsonl.zst"))
    if fmt == "pile":  # shard for shard: the corpus's own shards, meta reduced to the Pile's
        for shard in shards:
            write_records(folder / shard.name, ({"text": r["text"], "meta": {"pile_set_name": r["meta"]["family"]}}
                                                for r in read_records(shard)))
    else:
        write_stack(folder, (r for shard in shards for r in read_records(shard)),
                    min(PARQUET_BYTES, corpus["bytes"] // 4))
    described.write_text(json.dumps(corpus))
    return source, corpus


def write_stack(folder: Path, records, file_bytes: int) -> None:
    """The Stack v2's file-level layout: rows without contents, ``file_bytes`` of content per file."""
    rows, held, number = [], 0, 0

    def flush() -> None:
        nonlocal rows, held, number
        write_parquet(folder / "files" / f"train-{number:05d}.parquet", rows,
                      row_group_size=max(1, math.ceil(len(rows) / ROW_GROUPS)))
        rows, held, number = [], 0, number + 1

    for record in records:
        meta, data = record["meta"], record["text"].encode()
        blob_id = sha1_git(data).hex()
        if not (folder / "blobs" / blob_id[:2] / f"{blob_id}.gz").is_file():
            write_blob(folder / "blobs", data, blob_id, GZIP_FANOUT)
        repo = repo_name(meta["origin"])
        rows.append({"blob_id": blob_id, "path": "/" + meta["path"], "content_id": hashlib.sha1(data).hexdigest(),
                     "detected_licenses": [], "license_type": "no_license", "repo_name": repo,
                     "revision_id": hashlib.sha1(repo.encode()).hexdigest(), "branch_name": "refs/heads/main",
                     "language": meta["language"], "src_encoding": "UTF-8", "is_vendor": False,
                     "is_generated": False, "length_bytes": len(data),
                     "extension": meta["path"].rpartition(".")[2] if "." in meta["path"] else ""})
        held += len(data)
        if held >= file_bytes:
            flush()
    if rows:
        flush()


def make_project(home: Path, source: dict, corpus: dict) -> Path:
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["snapshot"].update(sources=[source], max_total_bytes=2 * corpus["bytes"] + 10**9,
                              max_origin_bytes=2 * corpus["bytes"] + 10**9)
    params["optout"]["registry"] = str(REPO / params["optout"]["registry"])  # one file: the stages' hash names it
    home.mkdir(parents=True)  # the project root: pipeline.paths (relative, as params.yaml gives them) are in it
    (home / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return home / "params.yaml"


def run(name: str, home: Path, source: dict, corpus: dict) -> dict:
    """The six nodes in one process on executor ``name``: its RESULT, node peaks, CPU by role."""
    kind, workers = EXECUTORS[name]
    params_file = make_project(home, source, corpus)
    cluster: list[subprocess.Popen] = []
    address = "-"
    if kind == "dask":
        address, cluster = start_cluster(home, home / "cluster.log")
    try:
        cores = sorted(os.sched_getaffinity(0))[:workers]
        pin = (lambda: os.sched_setaffinity(0, cores)) if kind == "local" else None
        process = subprocess.Popen([sys.executable, "-c", RUN, str(params_file), str(workers), address, *NODES],
                                   cwd=home, env=environment(home), preexec_fn=pin, stdout=subprocess.PIPE,
                                   stderr=open(home / "run.log", "w"), text=True)
        measured = TreePeak(process.pid, *(p.pid for p in cluster))
        output, node, node_peaks = "", None, {}
        for line in process.stdout:
            if line.startswith("CLOCK"):
                measured.mark()
            elif line.startswith("NODE "):
                if node:
                    node_peaks[node] = peak_by_role(measured, process.pid)
                node = line.split()[1]
                measured.reset_peaks()
            output += line
        process.wait()
        tree_peak = measured.stop_mb()
        cpu = cpu_by_role(measured, process.pid)
    finally:
        end_run(home, cluster)
    if process.returncode != 0:
        raise SystemExit(f"{home.name} failed: {(home / 'run.log').read_text()[-3000:]}")
    result = json.loads(output.split("RESULT ", 1)[1])
    mb, walls = corpus["bytes"] / 1e6, result.pop("node_wall_s")
    wall = sum(walls.values())
    return {"wall_s": round(wall, 1), "mb_s_per_core": round(mb / wall / workers, 3),
            "node_wall_s": {n: round(s, 1) for n, s in walls.items()},
            "node_mb_s_per_core": {n: round(mb / s / workers, 3) for n, s in walls.items()},
            "node_process_peak_mb": node_peaks,
            "process_peak_mb": {r: max(p.get(r, 0.0) for p in node_peaks.values())
                                for r in sorted({r for p in node_peaks.values() for r in p})},
            "tree_peak_mb": tree_peak, "cpu_s": cpu, **result}


WORK_ROLES = ("run process", "workers")  # scale.role: the processes that run a node's work


def largest(result: dict, node: str) -> float:
    """The largest peak RSS of a process doing ``node``'s work (not a server beside it)."""
    return max(mb for role, mb in result["node_process_peak_mb"][node].items() if role in WORK_ROLES)


def goals(sizes: dict) -> dict:
    """Speed goals at each size, and the peak growth of the snapshot and assemble nodes' largest
    process from the smallest size to the largest (the run with the most workers measured)."""
    out = {}
    for mb, runs in sizes.items():
        walls = {name: r["wall_s"] for name, r in runs.items()}
        found = {}
        if "local-1" in walls:
            found["local_1_mb_s_per_core"] = {"value": runs["local-1"]["mb_s_per_core"], "goal": ">= 2"}
            if "local-2" in walls:
                found["local_2_speedup"] = {"value": round(walls["local-1"] / walls["local-2"], 2), "goal": ">= 1.8"}
            if "dask-2" in walls:
                found["dask_2_speedup"] = {"value": round(walls["local-1"] / walls["dask-2"], 2), "goal": ">= 1.8"}
        if "local-2" in walls and "dask-2" in walls:
            over = round(walls["dask-2"] / walls["local-2"], 3)
            found["dask_2_wall_over_local_2"] = {"value": over, "goal": "<= 1.1"}
        out[mb] = found
    if len(sizes) > 1:
        small, large = sizes[min(sizes, key=float)], sizes[max(sizes, key=float)]
        for name in (n for n in EXECUTORS if n in small and n in large):
            for node in ("snapshot", "assemble"):
                out[f"{node}_largest_process_growth.{name}"] = {
                    "value": round(largest(large[name], node) / largest(small[name], node), 3), "goal": "<= 1.2"}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, nargs="+", default=[250, 1000], help="input sizes (MB of text)")
    parser.add_argument("--format", choices=("parquet", "pile"), default="parquet")
    parser.add_argument("--runs", nargs="+", choices=tuple(EXECUTORS), default=list(EXECUTORS))
    parser.add_argument("--scratch", type=Path, default=None, help="kept inputs and runs (default: a temp folder)")
    args = parser.parse_args()
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="quarry-dag-scale-"))
    sizes, inputs, floors = {}, {}, Floors()
    for mb in args.mb:
        source, corpus = build_input(scratch, mb, args.format)
        inputs[f"{mb:g}"] = {k: corpus[k] for k in ("bytes", "documents", "shards")}
        runs = {}
        for name in args.runs:
            home = scratch / f"run-{args.format}-{mb:g}-{name}"
            shutil.rmtree(home, ignore_errors=True)  # cold: a fresh project every time
            runs[name] = run(name, home, source, corpus)
            print(json.dumps({f"{mb:g}": {name: runs[name]}}), file=sys.stderr, flush=True)
        sizes[f"{mb:g}"] = runs
        floors.equals(f"{mb:g}.same_version", len({r["version"] for r in runs.values()}) == 1, True)
        floors.equals(f"{mb:g}.same_tokens", len({r["tokens_hash"] for r in runs.values()}) == 1, True)
    floors.emit({"format": args.format, "cpus": os.cpu_count(), "inputs": inputs, "goals": goals(sizes),
                 "sizes": sizes})


if __name__ == "__main__":
    main()

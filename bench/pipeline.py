"""The demo DAG end to end: `dvc repro` of the project's dvc.yaml on the embedded default (this
interpreter's standard library and installed distributions), in a copy of the project in a
temporary folder. Prints JSON: wall time and peak memory (the whole process tree) of the cold
build, the warm no-op repro and the repro after a training-param change; then curation MB/s
with 1 and 2 worker processes (fresh Prefect caches, so every shard is computed).

    python bench/pipeline.py                       # small: 1 MB snapshot, 10 training steps
    python bench/pipeline.py --snapshot-mb 0 --train-steps 0   # the full embedded default

Floors (bench/floors.py): the warm repro runs no stage, and the training-param change re-runs
train but no stage upstream of it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from memory import TreePeak
from floors import Floors
from peers import peer_versions

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def environment(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLFLOW_"))}
    env.update(QUARRY_HOME=str(root), DVC_NO_ANALYTICS="1", PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}")
    env.setdefault("QUARRY_SCANCODE_PYTHON", str(REPO / ".venv-scancode" / "bin" / "python"))
    return env


def measure(root: Path, *command: str) -> dict:
    """Run a command in the project; its wall time, peak tree memory and output tail."""
    start = time.perf_counter()
    with open(root / "bench.log", "a") as log:
        log.write(f"\n$ {' '.join(command)}\n")
        log.flush()
        process = subprocess.Popen(command, cwd=root, env=environment(root), stdout=log, stderr=subprocess.STDOUT)
        peak = TreePeak(process.pid)
        code = process.wait()
    result = {"wall_s": round(time.perf_counter() - start, 1), "peak_mb": peak.stop_mb()}
    if code != 0:
        tail = (root / "bench.log").read_text()[-3000:]
        raise SystemExit(f"{' '.join(command)} failed ({code}):\n{tail}")
    return result


UPSTREAM_OF_TRAIN = ("snapshot", "curate", "assemble", "audit", "tokenizer", "tokenize")


def stages_run(root: Path) -> list[str]:
    """The stages the last command in the project's log ran."""
    log = (root / "bench.log").read_text()
    last = log[log.rindex("$ "):]
    return [line.split("'")[1] for line in last.splitlines() if line.startswith("Running stage '")]


def small_params(snapshot_mb: float, train_steps: int) -> dict:
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    if snapshot_mb:
        cap = int(snapshot_mb * 1e6)
        params["snapshot"]["max_total_bytes"] = cap
        params["snapshot"]["shard_bytes"] = max(cap // 8, 10_000)
    if train_steps:
        params["train"]["overrides"]["max_steps"] = train_steps
        params["finetune"]["overrides"]["max_steps"] = max(train_steps // 2, 1)
    return params


def project_copy(root: Path, params: dict) -> Path:
    root.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("quarry", "tasks", "flows", "data/optout"):  # what dvc.yaml runs and depends on
        shutil.copytree(REPO / folder, root / folder, ignore=ignore)
    for name in ("dvc.yaml", "pyproject.toml", "requirements.lock"):
        shutil.copyfile(REPO / name, root / name)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def snapshot_mb(root: Path, params: dict) -> float:
    from quarry.records import read_records, shard_paths

    folder = root / params["pipeline"]["paths"]["snapshot"] / "shards"
    return sum(len(r["text"].encode()) for s in shard_paths(folder) for r in read_records(s)) / 1e6


def curation_rates(work: Path, built: Path, params: dict, workers: list[int]) -> dict:
    """`quarry flow curate` over the built snapshot in fresh project copies (empty caches)."""
    size = snapshot_mb(built, params)
    rates = {}
    for count in workers:
        root = project_copy(work / f"curate-{count}", params)
        snapshot = params["pipeline"]["paths"]["snapshot"]
        shutil.copytree(built / snapshot, root / snapshot)
        run = measure(root, str(BIN / "quarry"), "flow", "curate", "--workers", str(count))
        rates[f"workers_{count}"] = {**run, "mb_per_s": round(size / run["wall_s"], 3)}
    return {"snapshot_text_mb": round(size, 2), **rates}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot-mb", type=float, default=1.0, help="snapshot text cap (0: params.yaml's)")
    parser.add_argument("--train-steps", type=int, default=10, help="pretraining steps (0: params.yaml's)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="curation worker counts")
    parser.add_argument("--keep", type=Path, default=None, help="build here and keep it (default: a temp dir)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="quarry-bench-pipeline-")) if args.keep is None else args.keep
    try:
        params = small_params(args.snapshot_mb, args.train_steps)
        root = project_copy(work / "demo", params)
        subprocess.run([str(BIN / "dvc"), "init", "--no-scm", "-q"], cwd=root, env=environment(root), check=True)
        dvc = str(BIN / "dvc")
        report: dict = {"snapshot_mb_cap": args.snapshot_mb or None, "cpus": os.cpu_count(),
                        "load_avg_1m": round(os.getloadavg()[0], 1)}
        report["cold"] = measure(root, dvc, "repro")
        report["warm_noop"] = measure(root, dvc, "repro")
        report["warm_noop"]["stages_run"] = stages_run(root)
        steps = params["train"]["overrides"]["max_steps"] + 1
        changed = {**params, "train": {**params["train"], "overrides": {**params["train"]["overrides"],
                                                                         "max_steps": steps}}}
        (root / "params.yaml").write_text(yaml.safe_dump(changed, sort_keys=False))
        report["train_param_change"] = measure(root, dvc, "repro")
        report["train_param_change"]["stages_run"] = stages_run(root)
        report["curation"] = curation_rates(work, root, params, args.workers)
        report["versions"] = peer_versions("prefect", "dvc", "dask", "mlflow")
        rerun = report["train_param_change"]["stages_run"]
        floors = Floors()
        floors.equals("warm_noop.stages_run", report["warm_noop"]["stages_run"], [])
        floors.equals("train_param_change.runs_train", "train" in rerun, True)
        floors.equals("train_param_change.upstream_rerun", [s for s in rerun if s in UPSTREAM_OF_TRAIN], [])
        floors.emit(report)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

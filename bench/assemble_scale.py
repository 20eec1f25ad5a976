"""Assemble at two sizes on 1 and 2 local workers: wall time, MB/s per core and the peak RSS of each
process, side by side in one run, with the same version hash required of every run.

The input is the machine's own code as curated-style shards (bench/scale.py's corpus:
machine_code.documents, 8 MB shards). Goals of the whole-DAG issue for this stage: the largest
process's peak at the larger size <= 1.2x its peak at the smaller one (no process grows with the
data), and 2 workers >= 1.8x one.

    python bench/assemble_scale.py                          # 250 MB and 1,000 MB (about 10 minutes)
    python bench/assemble_scale.py --mb 50 200 --shard-mb 32
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from floors import Floors  # noqa: E402
from memory import TreePeak  # noqa: E402
from scale import build_corpus  # noqa: E402

RUN = """
import json, sys
from pathlib import Path
from quarry.stages.assemble import assemble
src, out, workers, shard_bytes, registry = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
manifest = assemble(src, out, {"assemble": {"shard_bytes": shard_bytes}}, workers=workers, registry=registry)
print(json.dumps({"version": manifest["version"], "shards": sum(len(s["files"]) for s in manifest["splits"].values())}))
"""


def run(src: Path, out: Path, workers: int, shard_bytes: int, registry: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                                        os.environ.get("PYTHONPATH", "")])}
    begun = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", RUN, str(src), str(out), str(workers), str(shard_bytes),
                                str(registry)], stdout=subprocess.PIPE, text=True, env=env)
    sampler = TreePeak(process.pid)
    stdout, _ = process.communicate()
    wall = time.perf_counter() - begun
    tree_mb = sampler.stop_mb()
    if process.returncode:
        raise SystemExit(f"assemble with {workers} worker(s) failed ({process.returncode})")
    peaks = sorted(sampler.process_peaks.values(), reverse=True)
    return {**json.loads(stdout.strip().splitlines()[-1]), "wall_s": round(wall, 1), "tree_peak_mb": tree_mb,
            "largest_process_mb": round(peaks[0] / 1e6, 1) if peaks else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, nargs=2, default=[250, 1000], help="the two input sizes")
    parser.add_argument("--shard-mb", type=int, default=64, help="assemble.shard_bytes in MB")
    parser.add_argument("--scratch", type=Path, default=None, help="kept corpora (default: a temporary folder)")
    args = parser.parse_args()
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="quarry-assemble-scale-"))
    results: dict = {"shard_mb": args.shard_mb, "cores": os.cpu_count(), "sizes": {}}
    for mb in args.mb:
        corpus = build_corpus(scratch / f"corpus-{mb}", mb * 1_000_000)
        runs = {}
        for workers in (1, 2):
            out = scratch / f"out-{mb}-{workers}"
            found = run(scratch / f"corpus-{mb}", out, workers, args.shard_mb * 1_000_000, scratch / "registry")
            found["mb_s_per_core"] = round(corpus["bytes"] / 1e6 / found["wall_s"] / workers, 2)
            runs[f"local-{workers}"] = found
            print(json.dumps({mb: {f"local-{workers}": found}}), file=sys.stderr)
        results["sizes"][str(mb)] = {"corpus": {k: corpus[k] for k in ("bytes", "documents", "shards")}, **runs}
    small, large = (results["sizes"][str(mb)] for mb in args.mb)
    same = all(size["local-1"]["version"] == size["local-2"]["version"] for size in results["sizes"].values())
    results["goals"] = {   # speed and memory: measured, not floors (a busy machine moves them)
        "largest_process_growth": {"value": round(large["local-1"]["largest_process_mb"]
                                                  / small["local-1"]["largest_process_mb"], 3), "goal": "<= 1.2"},
        "local_2_speedup_at_larger": {"value": round(large["local-1"]["wall_s"] / large["local-2"]["wall_s"], 2),
                                      "goal": ">= 1.8"},
    }
    floors = Floors()
    floors.equals("same_version_for_1_and_2_workers", same, True)
    floors.emit(results)


if __name__ == "__main__":
    main()

"""CPU training benchmark: Quarry's full / LoRA / QLoRA recipes vs transformers + PEFT (+ bitsandbytes).

The same tiny Llama (random weights, saved once in the Hugging Face layout), the same batch, side
by side in one invocation. Each measurement runs in its own process so that its peak resident
memory is its own. Prints JSON: per run the step time, tokens/s and peak memory, and Quarry's
speed relative to the peer for each method.

    python bench/train.py                                   # tiny model, batch 8 x 128
    python bench/train.py --shape llama_125m --seq 512      # larger
The GPU version (Llama-3.2-1B shape, batch 4 x 2048) is bench/gpu/train_gpu.py.

No quality floor (bench/floors.py): speed and memory only, and the two sides train on different
batches (token shards, random ids), so no loss compares. It checks that every run was measured.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from floors import Floors
from peers import peer_versions

HERE = Path(__file__).resolve().parent
HARNESS = HERE / "gpu" / "train_gpu.py"


def run_one(plan: str, args, work: Path) -> dict:
    cmd = [sys.executable, str(HARNESS), "--device", "cpu", "--shape", args.shape, "--batch", str(args.batch),
           "--seq", str(args.seq), "--warmup", str(args.warmup), "--steps", str(args.steps), "--work", str(work),
           "--plan", plan, "--run-timeout", str(args.run_timeout)]
    env = {**os.environ, "TRANSFORMERS_VERBOSITY": "error"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.run_timeout + 120)
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"')]  # not the floors
    found = [r for r in rows if r.get("run") == plan]
    if not found:
        return {"error": (done.stderr or done.stdout)[-500:]}
    return {k: v for k, v in found[0].items() if k != "run"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", default="llama_tiny")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--methods", default="full,lora,qlora")
    parser.add_argument("--repeats", type=int, default=3,
                        help="alternate Quarry and peer this many times; the fastest median of each is kept")
    parser.add_argument("--run-timeout", type=int, default=300)
    args = parser.parse_args(argv)
    results: dict[str, dict] = {}
    failed: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # The first run builds the random checkpoint and the data; the rest reuse them.
        for method in args.methods.split(","):
            for repeat in range(args.repeats):
                for side in ("quarry", "peer"):
                    key = f"{side}/{method}/eager"
                    row = run_one(key, args, work)
                    print(json.dumps({"run": key, "repeat": repeat, **row}, sort_keys=True), flush=True)
                    if "error" in row:
                        failed.append(key)
                    best = results.get(key)
                    if "best_tokens_per_s" in row and (best is None or row["best_tokens_per_s"] >
                                                       best.get("best_tokens_per_s", 0)):
                        results[key] = row
                    results.setdefault(key, row)
    summary = {}
    for method in args.methods.split(","):
        ours, peer = results.get(f"quarry/{method}/eager", {}), results.get(f"peer/{method}/eager", {})
        if "best_tokens_per_s" in ours and "best_tokens_per_s" in peer:
            summary[method] = {"quarry_tokens_per_s": ours["best_tokens_per_s"],
                               "peer_tokens_per_s": peer["best_tokens_per_s"],
                               "speedup": round(ours["best_tokens_per_s"] / peer["best_tokens_per_s"], 3),
                               "quarry_peak_gib": ours["peak_gib"], "peer_peak_gib": peer["peak_gib"]}
    floors = Floors(none="speed and memory only: the sides train on different batches, no loss compares")
    floors.equals("runs_failed", failed, [])
    floors.emit({"config": vars(args), "summary": summary, "versions": peer_versions("transformers", "peft")})
    return 0


if __name__ == "__main__":
    sys.exit(main())

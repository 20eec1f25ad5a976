"""Token shards: tokenisation speed against `datasets.map`, loader speed, and training memory.

On real text (this interpreter's standard library sources, cycled to the asked size), with one
byte-level BPE tokenizer trained on a sample of it:

- tokenisation MB/s on one core (tokenizers' Rust thread pool pinned to one thread in both):
  Quarry's shard tokeniser (read jsonl.zst -> encode through the piece cache, cold ->
  .bin/.idx/.docs.jsonl) against `datasets` (load the same shard, then `Dataset.map(batched=True)`
  with the same tokenizer.json as a PreTrainedTokenizerFast, into its Arrow cache); and the
  tokenize stage on the engine (one local worker) over the same text cut into shards, its CPU
  seconds counted over every process it ran;
- loader tokens/s on one core: block-shuffled windows read by memory map and collated;
- peak RSS of the same short training run (`quarry run pretrain` on the token shards) for a
  small and a ten times larger dataset: flat when memory does not depend on the dataset size.

Each measurement runs in its own process. Prints JSON. Floors (bench/floors.py): Quarry's tokens
are the peer's (plus BOS and EOS), from the shard tokeniser and from the stage alike, and the larger run's peak RSS is at most 1.25 times the
smaller's (measured 0.99 at the smoke sizes); a measurement that failed fails its floor.

    python bench/tokens.py                              # 25 MB vs 250 MB
    python bench/tokens.py --small-mb 10 --large-mb 100 # a busy 2-core machine
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# This file's name is the standard library's `tokenize`: keep bench/ off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(REPO))


def bench_module(name: str):
    """A sibling module of bench/ (memory, peers), imported by path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bench_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stdlib_texts():
    root = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(root.rglob("*.py")):
        if "site-packages" in path.parts:
            continue
        try:
            yield path.relative_to(root).as_posix(), path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue


def make_corpus(folder: Path, megabytes: float, shard_mb: float = 32.0) -> dict:
    """Shards of records (meta.split=train) until ``megabytes`` of text, cycling the sources."""
    from quarry.records import RecordWriter

    sources = list(stdlib_texts())
    target, written, shard, docs = int(megabytes * 1e6), 0, 0, 0
    writer, in_shard = None, 0
    cycle = 0
    while written < target:
        for name, text in sources:
            if written >= target:
                break
            if writer is None:
                writer = RecordWriter(folder / f"part-{shard:05d}.jsonl.zst", level=3)
            writer.write({"text": text, "meta": {"id": f"{cycle}:{name}", "split": "train",
                                                 "pile_set_name": "code-python"}})
            size = len(text.encode("utf-8"))
            written, in_shard, docs = written + size, in_shard + size, docs + 1
            if in_shard >= shard_mb * 1e6:
                writer.close()
                writer, in_shard, shard = None, 0, shard + 1
        cycle += 1
    if writer is not None:
        writer.close()
    return {"mb": round(written / 1e6, 1), "documents": docs, "shards": len(list(folder.glob("*.jsonl.zst")))}


def child(code: str, timeout: float, **env: str) -> dict:
    """Run ``code`` in a fresh interpreter (one core for tokenizers and torch); its last JSON line."""
    full_env = {**os.environ, "RAYON_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "true",
                "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", **env}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=full_env, cwd=str(REPO))
    peak = bench_module("memory").TreePeak(proc.pid)
    out, err = proc.communicate(timeout=timeout)
    rss = peak.stop_mb()
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"error": (err or out)[-800:]}
    return {**json.loads(lines[-1]), "peak_rss_mb": rss}


QUARRY_TOKENIZE = """
import json, time
from pathlib import Path
from quarry.training.tokens import TokenShard, TokenizeConfig, shard_encoder, tokenize_shard, tokenizer_spec
src, tok, out = {src!r}, {tok!r}, {out!r}
shard_encoder(tokenizer_spec(tok))  # built once per worker, as the stage does: not timed (nor is the peer's tokenizer)
t = time.perf_counter()
entry = tokenize_shard(TokenShard("train", Path(src), "bench", None), tokenizer_spec(tok), out, TokenizeConfig())
print(json.dumps({{"seconds": time.perf_counter() - t, "tokens": entry["tokens"], "bytes": entry["bytes"],
                  "documents": entry["documents"]}}))
"""

DATASETS_MAP = """
import json, time
import datasets
from transformers import PreTrainedTokenizerFast
datasets.disable_progress_bars()
tok = PreTrainedTokenizerFast(tokenizer_file={tok!r} + "/tokenizer.json")
t = time.perf_counter()
ds = datasets.load_dataset("json", data_files={src!r}, split="train", cache_dir={cache!r})
loaded = time.perf_counter()
out = ds.map(lambda b: {{"input_ids": tok(b["text"], add_special_tokens=False)["input_ids"]}}, batched=True,
             batch_size=512, remove_columns=ds.column_names)
done = time.perf_counter()
n_bytes = sum(len(t.encode("utf-8")) for t in ds["text"])
tokens = sum(len(x) for x in out["input_ids"])
print(json.dumps({{"seconds": done - t, "map_seconds": done - loaded, "tokens": tokens, "bytes": n_bytes}}))
"""

STAGE = """
import json, resource, time
from quarry.stages.tokenize import tokenize_dataset
from quarry.training.tokens import TokenizeConfig
def cpu():
    return sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))
t, c = time.perf_counter(), cpu()
manifest = tokenize_dataset({src!r}, {tok!r}, {out!r}, TokenizeConfig(splits=("train",)), workers=1)
split = manifest["splits"]["train"]
print(json.dumps({{"seconds": time.perf_counter() - t, "cpu_seconds": cpu() - c, "tokens": split["tokens"],
                  "bytes": split["bytes"], "documents": split["documents"], "shards": len(split["shards"])}}))
"""

LOADER = """
import json, time, torch
torch.set_num_threads(1)
from quarry.training.data import EpochSampler
from quarry.training.token_data import TokenShards
data = TokenShards({tokens!r}, "train", {seq})
sampler = EpochSampler(len(data), {batch}, seed=0)
steps = min({steps}, sampler.steps_per_epoch)
t, c = time.perf_counter(), time.process_time()
n = 0
for step in range(steps):
    batch = data.batch(sampler.indices(0, step, 0))
    n += batch["tokens"].numel()
seconds, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({{"tokens_per_s": n / seconds, "tokens_per_cpu_s": n / cpu, "tokens": n, "seconds": seconds,
                  "windows": len(data)}}))
"""

TRAIN = """
import json, time
from quarry.recipes.registry import build_recipe
overrides = ["dataset.path={dataset}", "dataset.tokens={tokens}", "output_dir={out}", "max_steps={steps}",
             "batch_size=8", "dataset.seq_len=256", "mlflow.enabled=false", "progress=false", "save_every_n_steps=0",
             "validation.every_n_steps=0", "tokenizer._component_=quarry.tokenizer.Tokenizer.load",
             "+tokenizer.path={tok}", "model.vocab_size={vocab}"]
t = time.perf_counter()
result = build_recipe("pretrain", "tiny_pretrain", overrides).run()
print(json.dumps({{"seconds": time.perf_counter() - t, "steps": result["steps"]}}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small-mb", type=float, default=25.0)
    parser.add_argument("--large-mb", type=float, default=250.0)
    parser.add_argument("--tokenize-mb", type=float, default=16.0, help="text in the one-shard speed comparison")
    parser.add_argument("--vocab", type=int, default=8192)
    parser.add_argument("--train-steps", type=int, default=30)
    parser.add_argument("--loader-steps", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2, help="processes for tokenising the two datasets")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    args = parser.parse_args(argv)

    from quarry.tokenizer import train_tokenizer
    from quarry.stages.tokenize import tokenize_dataset
    from quarry.training.tokens import TokenizeConfig

    with tempfile.TemporaryDirectory(prefix="quarry-bench-tokenize-", dir=args.work) as tmp:
        work = Path(tmp)
        report: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
                        "versions": bench_module("peers").peer_versions("tokenizers", "datasets", "transformers"),
                        "corpus": "CPython standard library sources, cycled"}
        one = work / "one-shard"
        report["speed_corpus"] = make_corpus(one, args.tokenize_mb, shard_mb=args.tokenize_mb * 2)
        sample = [text for _, text in list(stdlib_texts())[:300]]
        tokenizer = train_tokenizer(sample, vocab_size=args.vocab)
        tok_dir = work / "tokenizer"
        tokenizer.save(tok_dir)
        shard = str(next(one.glob("*.jsonl.zst")))

        ours = child(QUARRY_TOKENIZE.format(src=shard, tok=str(tok_dir), out=str(work / "speed-tokens")), 3600)
        peer = child(DATASETS_MAP.format(src=shard, tok=str(tok_dir), cache=str(work / "hf-cache")), 3600)
        speed = {"quarry_tokenize_shard": ours, "datasets_map": peer}
        for row in (ours, peer):
            if "error" not in row:
                row["mb_per_s_per_core"] = round(row["bytes"] / 1e6 / row["seconds"], 2)
        if "error" not in peer:
            peer["map_only_mb_per_s_per_core"] = round(peer["bytes"] / 1e6 / peer["map_seconds"], 2)
        if "error" not in ours and "error" not in peer:
            speed["same_tokens"] = ours["tokens"] - 2 * ours["documents"] == peer["tokens"]  # ours add BOS + EOS
            speed["quarry_vs_datasets_map"] = round(ours["mb_per_s_per_core"] / peer["mb_per_s_per_core"], 2)
            speed["quarry_vs_datasets_map_only"] = round(ours["mb_per_s_per_core"] / peer["map_only_mb_per_s_per_core"], 2)
        report["tokenize_one_core"] = speed

        # The stage on the engine: the same text in four shards, one local worker.
        stage_corpus = work / "stage-shards"
        make_corpus(stage_corpus, args.tokenize_mb, shard_mb=args.tokenize_mb / 4)
        stage = child(STAGE.format(src=str(stage_corpus), tok=str(tok_dir), out=str(work / "stage-tokens")), 3600)
        if "error" not in stage and "error" not in peer:
            stage["mb_per_s_per_core"] = round(stage["bytes"] / 1e6 / max(stage["seconds"], stage["cpu_seconds"]), 2)
            stage["same_tokens"] = stage["tokens"] - 2 * stage["documents"] == peer["tokens"]
            stage["vs_datasets_map"] = round(stage["mb_per_s_per_core"] / peer["mb_per_s_per_core"], 2)
        report["tokenize_stage_one_worker"] = stage

        runs = {}
        for label, megabytes in (("small", args.small_mb), ("large", args.large_mb)):
            dataset = work / f"data-{label}"
            corpus = make_corpus(dataset, megabytes)
            t = time.perf_counter()
            manifest = tokenize_dataset(dataset, tok_dir, work / f"tokens-{label}", TokenizeConfig(splits=("train",)),
                                        workers=args.workers)
            corpus["tokenize_seconds"] = round(time.perf_counter() - t, 1)
            corpus["tokens"] = manifest["splits"]["train"]["tokens"]
            corpus["token_bytes_on_disk_mb"] = round(sum(p.stat().st_size for p in (work / f"tokens-{label}").rglob("*.bin")) / 1e6, 1)
            train = child(TRAIN.format(dataset=dataset, tokens=work / f"tokens-{label}", out=work / f"run-{label}",
                                       steps=args.train_steps, tok=tok_dir, vocab=tokenizer.vocab_size), 3600,
                          QUARRY_HOME=str(work))
            runs[label] = {"data": corpus, "train_run": train}
        report["training_peak_rss"] = runs
        if all("peak_rss_mb" in r["train_run"] for r in runs.values()):
            report["training_peak_rss"]["large_over_small"] = round(
                runs["large"]["train_run"]["peak_rss_mb"] / runs["small"]["train_run"]["peak_rss_mb"], 3)
        report["loader_one_core"] = child(LOADER.format(tokens=str(work / "tokens-large"), seq=1024, batch=8,
                                                        steps=args.loader_steps), 3600)
    floors = bench_module("floors").Floors()
    floors.equals("tokenize_one_core.same_tokens", speed.get("same_tokens"), True)
    floors.equals("tokenize_stage_one_worker.same_tokens", report["tokenize_stage_one_worker"].get("same_tokens"), True)
    floors.at_most("training_peak_rss.large_over_small", report["training_peak_rss"].get("large_over_small"), 1.25)
    floors.equals("loader_one_core.error", report["loader_one_core"].get("error"), None)
    floors.emit(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

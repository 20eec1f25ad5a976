"""Generation speed: Quarry with the KV cache, Quarry recomputing every step, transformers' generate.

All three decode greedily from the same weights (Quarry saves the checkpoint, transformers loads
it) and the same prompts, in one process, one after the other; the JSON also says whether their
tokens agree. Defaults are small enough for a shared CPU; raise them for a real measurement:

    python bench/generate.py                                   # tiny model, CPU
    python bench/generate.py --preset llama_125m --batch 8 --new-tokens 256 --device cuda

Floors (bench/floors.py): the share of rows whose tokens agree, KV cache against recomputing and
against transformers: 1.0 in float32 (as measured); 0.5 in bfloat16 / float16, where a near-tie
can flip one greedy pick and so the rest of its row.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
import time

import torch
from floors import Floors
from peers import peer_versions


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="llama_tiny", help="quarry.models preset (llama_tiny, llama_125m, ...)")
    parser.add_argument("--vocab-size", type=int, default=None)
    parser.add_argument("--layers", type=int, default=None, help="override the preset's layer count")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--prompt-len", type=int, default=32)
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per method (the median is kept)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def timed(fn, repeats: int, device: torch.device):
    fn()  # warm-up: allocator, kernels, lazy imports
    times, result = [], None
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        result = fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def agreement(a: list[list[int]], b: list[list[int]]) -> float:
    return sum(x == y for x, y in zip(a, b)) / len(a)


def main(argv=None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    from transformers import LlamaForCausalLM

    from quarry.models.generate import generate
    from quarry.models import build_model
    from quarry.models.checkpoint import save_pretrained

    device, dtype = torch.device(args.device), getattr(torch, args.dtype)
    overrides = {k: v for k, v in (("vocab_size", args.vocab_size), ("n_layers", args.layers)) if v}
    torch.manual_seed(args.seed)
    model = build_model(args.preset, **overrides).to(device=device, dtype=dtype).eval()
    with tempfile.TemporaryDirectory() as folder:
        save_pretrained(model, folder)
        hf = LlamaForCausalLM.from_pretrained(folder, dtype=dtype).to(device).eval()

    prompts = torch.randint(0, model.args.vocab_size, (args.batch, args.prompt_len), generator=torch.Generator()
                            .manual_seed(args.seed))
    prompt_lists = prompts.tolist()
    n_new = args.batch * args.new_tokens

    def quarry(use_cache: bool):
        return lambda: generate(model, prompt_lists, max_new_tokens=args.new_tokens, use_cache=use_cache)

    def transformers():
        ids = prompts.to(device)
        with torch.inference_mode():
            out = hf.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=args.new_tokens,
                              min_new_tokens=args.new_tokens, do_sample=False, pad_token_id=0, eos_token_id=None)
        return out[:, args.prompt_len:].tolist()

    results, outputs = {}, {}
    for name, fn in (("quarry_kv_cache", quarry(True)), ("quarry_recompute", quarry(False)),
                     ("transformers_generate", transformers)):
        seconds, outputs[name] = timed(fn, args.repeats, device)
        results[name] = {"seconds": round(seconds, 4), "tokens_per_s": round(n_new / seconds, 1)}
    base = results["quarry_kv_cache"]["tokens_per_s"]
    for name in results:
        results[name]["relative_to_quarry_kv_cache"] = round(results[name]["tokens_per_s"] / base, 3)
    report = {
        "benchmark": "generate",
        "model": {"preset": args.preset, "parameters": model.num_parameters(), "layers": model.args.n_layers,
                  "dim": model.args.dim, "vocab_size": model.args.vocab_size},
        "workload": {"batch": args.batch, "prompt_len": args.prompt_len, "new_tokens": args.new_tokens,
                     "repeats": args.repeats, "decoding": "greedy"},
        "environment": {"device": str(device), "dtype": args.dtype, "threads": args.threads,
                        "torch": torch.__version__, "python": platform.python_version(),
                        "versions": peer_versions("transformers")},
        "results": results,
        # Share of rows whose tokens are identical (bf16 near-ties can flip a greedy pick late in a row).
        "identical_rows": {
            "kv_cache_vs_recompute": agreement(outputs["quarry_kv_cache"], outputs["quarry_recompute"]),
            "kv_cache_vs_transformers": agreement(outputs["quarry_kv_cache"], outputs["transformers_generate"]),
        },
    }
    floors = Floors()
    for pair, share in report["identical_rows"].items():
        floors.at_least(f"identical_rows.{pair}", share, 1.0 if args.dtype == "float32" else 0.5)
    floors.emit(report)
    return report


if __name__ == "__main__":
    main()

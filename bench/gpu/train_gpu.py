"""Training throughput and peak memory on one GPU: Quarry's recipes vs transformers + PEFT.

Llama-3.2-1B shape (random weights), batch 4 x 2048, full / LoRA (r=16, all linear layers) /
QLoRA on an NF4 base with double quantisation (``qlora``) or an LLM.int8 base (``qlora8``,
outlier threshold 6). Quarry runs its real recipes (``recipe.train_step``) with torch.compile
per block and the chunked cross-entropy, reading its batches from memory-mapped token shards
(each Quarry row also reports that loader's own tokens/s); the peer runs three ways: eager,
torch.compile and activation checkpointing. Prints one JSON line per measurement as it goes,
then a JSON summary with the ratios to the eager peer.

    python bench/gpu/train_gpu.py                        # the full comparison (H200)
    python bench/gpu/train_gpu.py --dry-run              # tiny shape on CPU: checks it runs
    python bench/gpu/train_gpu.py --families all         # then each family's published shape (FAMILIES,
                                                         # depth cut to --family-layers), FAMILY_PLAN each
    python bench/gpu/train_gpu.py --families all --dry-run --plan ''   # tiny family shapes on CPU

Each family row is keyed ``<family>:<side>/<method>/<mode>``; the summary compares it with the peer
run on the same family checkpoint.

No quality floor (bench/floors.py): speed and memory only, and the sides train on different
batches (token shards, random ids), so no loss compares. It checks that every run was measured.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))  # floors.py, last so bench/'s scripts shadow no module

import torch  # noqa: E402

# Before the peer imports bitsandbytes: this filters its optional-kernel warning.
import quarry.training.quantize  # noqa: E402,F401

from quarry.models.builders import FAMILY_CONFIGS  # noqa: E402

LORA_R, LORA_ALPHA = 16, 32
FAMILIES = list(FAMILY_CONFIGS)  # Mistral 7B, Qwen2.5 0.5B, Gemma 2B, Gemma 2 2B, Phi-3 mini, StarCoder2 3B


# Essential and cheap first: a run cut short by its time limit still answers the main question.
DEFAULT_PLAN = [
    "quarry/lora/compiled", "peer/lora/eager", "quarry/qlora/compiled", "peer/qlora/eager",
    "quarry/full/compiled", "peer/full/eager", "quarry/lora/eager", "quarry/qlora/eager", "quarry/full/eager",
    "peer/lora/act-ckpt", "peer/qlora/act-ckpt", "quarry/lora/compiled+ckpt", "quarry/qlora/compiled+ckpt",
    "peer/lora/compiled", "peer/qlora/compiled", "peer/full/compiled",
    "quarry/qlora8/compiled", "peer/qlora8/eager", "quarry/qlora8/eager", "peer/qlora8/compiled",
]
QUANTIZED = ("qlora", "qlora8")
# Per family, the essential pairs only: LoRA and QLoRA against PEFT, compiled and eager.
FAMILY_PLAN = ["quarry/lora/compiled", "peer/lora/eager", "quarry/qlora/compiled", "peer/qlora/eager",
               "quarry/lora/eager", "quarry/qlora8/compiled", "peer/qlora8/eager"]
# Tiny overrides of the family presets for --dry-run.
TINY = {"vocab_size": 320, "dim": 64, "intermediate_size": 128, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2,
        "head_dim": 16}


def emit(row: dict, sink: Path | None) -> None:
    line = json.dumps(row, sort_keys=True)
    print(line, flush=True)
    if sink is not None:
        with sink.open("a") as fh:
            fh.write(line + "\n")


def make_inputs(folder: Path, shape: str, n_chars: int, device: str, **overrides) -> tuple[Path, Path]:
    """A random model of a preset (quarry.models.PRESETS, with overrides), built on the device and
    saved in the Hugging Face layout, and a shard of synthetic text."""
    from quarry.models import build_model
    from quarry.models.checkpoint import save_pretrained
    from quarry.records import write_records

    torch.manual_seed(0)
    with torch.device(device):
        model = build_model(shape, **overrides).to(torch.bfloat16).cpu()
    base = folder / "base"
    save_pretrained(model, base)
    del model
    if (folder / "data").is_dir():
        return base, folder / "data"
    rng = random.Random(0)
    words = "def return import class self value for while if else print yield with open read".split()
    docs, total = [], 0
    while total < n_chars:
        text = " ".join(rng.choice(words) for _ in range(rng.randint(200, 600)))
        docs.append({"text": text, "meta": {"id": f"d{len(docs)}", "split": "train"}})
        total += len(text)
    write_records(folder / "data" / "part-00000.jsonl.zst", docs)
    return base, folder / "data"


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def reset_memory(device: str) -> None:
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def peak_gib(device: str) -> float:
    """Peak GPU memory allocated; on CPU the process's peak resident set (one run per process)."""
    if device.startswith("cuda"):
        return torch.cuda.max_memory_allocated() / 2**30
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def timed(step, warmup: int, steps: int, tokens_per_step: int, device: str) -> dict:
    """Median step time after warm-up (robust to a busy shared machine), and peak memory."""
    for _ in range(warmup):
        step()
    sync(device)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        sync(device)
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    return {"step_s": round(seconds, 4), "tokens_per_s": round(tokens_per_step / seconds, 1),
            "best_tokens_per_s": round(tokens_per_step / min(times), 1), "peak_gib": round(peak_gib(device), 2)}


# --- Quarry ----------------------------------------------------------------------------------------
QUARRY_RECIPES = {"full": ("full_finetune", "tiny_full_finetune"), "lora": ("lora_finetune", "tiny_lora"),
                  "qlora": ("qlora_finetune", "tiny_qlora"), "qlora8": ("qlora_finetune", "tiny_qlora")}


def quarry_run(method: str, mode: str, args, base: Path, data: Path, work: Path) -> dict:
    from quarry.recipes.registry import build_recipe

    recipe_name, config = QUARRY_RECIPES[method]
    overrides = {
        "base_model": base, "dataset.path": data, "output_dir": work / f"quarry-{base.parent.name}-{method}-{mode}",
        "dataset.seq_len": args.seq, "batch_size": args.batch, "dtype": "bf16", "device": args.device,
        "compile": str(mode in ("compiled", "compiled+ckpt")).lower(),
        "activation_checkpointing": str(mode in ("act-ckpt", "compiled+ckpt")).lower(),
        "max_steps": args.warmup + args.steps, "mlflow.enabled": "false", "progress": "false",
        "save_every_n_steps": 0, "validation.every_n_steps": 0, "loss.chunk_tokens": args.chunk,
        "dataset.shuffle": "false",
    }
    if method == "qlora8":
        overrides.update({"quantize.mode": "int8", "quantize.threshold": 6.0})
    if method != "full":
        overrides.update({"lora.rank": LORA_R, "lora.alpha": LORA_ALPHA, "lora.target_modules": "all-linear",
                          "lora.dtype": "bf16", "lora.dropout": 0.0})
    if args.device.startswith("cuda"):
        overrides["+optimizer.fused"] = "true"
    recipe = build_recipe(recipe_name, config, [f"{k}={v}" for k, v in overrides.items()])
    reset_memory(args.device)
    recipe.setup()
    reset_memory(args.device)
    steps = iter(range(args.warmup + args.steps))
    result = timed(lambda: recipe.train_step(0, next(steps)), args.warmup, args.steps,
                   args.batch * args.seq, args.device)
    result["loader_tokens_per_s"] = loader_speed(recipe)
    recipe.cleanup()
    return result


def loader_speed(recipe, batches: int = 64) -> float:
    """Tokens/s of the recipe's own data path alone: block-shuffled windows from the token shards."""
    sampler = recipe.sampler
    start = time.perf_counter()
    tokens = 0
    for i in range(batches):
        step = i % sampler.steps_per_epoch
        tokens += recipe.micro_batch(0, step, 0)["tokens"].numel()
    return round(tokens / (time.perf_counter() - start), 1)


# --- transformers + PEFT ---------------------------------------------------------------------------
def peer_run(method: str, mode: str, args, base: Path) -> dict:
    import peft
    import transformers

    kwargs = {"dtype": torch.bfloat16}
    if method in QUANTIZED:
        kwargs["quantization_config"] = transformers.BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
            bnb_4bit_compute_dtype=torch.bfloat16) if method == "qlora" else \
            transformers.BitsAndBytesConfig(load_in_8bit=True, llm_int8_threshold=6.0)
        kwargs["device_map"] = {"": torch.device(args.device).index or 0} if args.device.startswith("cuda") \
            else {"": "cpu"}
    model = transformers.AutoModelForCausalLM.from_pretrained(str(base), **kwargs)
    if method not in QUANTIZED:
        model = model.to(args.device)
    if mode == "act-ckpt":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.enable_input_require_grads()
    if method != "full":
        cfg = peft.LoraConfig(r=LORA_R, lora_alpha=LORA_ALPHA, target_modules="all-linear", lora_dropout=0.0,
                              task_type="CAUSAL_LM")
        model = peft.get_peft_model(model, cfg)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5, fused=args.device.startswith("cuda"))
    forward = torch.compile(model) if mode == "compiled" else model
    gen = torch.Generator().manual_seed(0)
    vocab = model.config.vocab_size

    def step():
        ids = torch.randint(0, min(vocab, 259), (args.batch, args.seq), generator=gen).to(args.device)
        loss = forward(input_ids=ids, labels=ids).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)

    reset_memory(args.device)
    return timed(step, args.warmup, args.steps, args.batch * args.seq, args.device)


class RunTimeout(Exception):
    pass


def _too_long(signum, frame):
    raise RunTimeout("run exceeded --run-timeout")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", default="llama3_2_1b")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=2048)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--chunk", type=int, default=2048, help="tokens per chunk of the chunked cross-entropy")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--plan", default=",".join(DEFAULT_PLAN),
                        help="side/method/mode runs in order (cheap and essential first)")
    parser.add_argument("--out", type=Path, default=None, help="also append the JSON lines to this file")
    parser.add_argument("--work", type=Path, default=None, help="keep the random model and data here, reuse them")
    parser.add_argument("--run-timeout", type=int, default=150, help="seconds one run may take (compile included)")
    parser.add_argument("--dry-run", action="store_true", help="tiny shape on CPU, eager only")
    parser.add_argument("--families", default="", help="also these FAMILIES presets (comma-separated, or 'all')")
    parser.add_argument("--family-plan", default=",".join(FAMILY_PLAN), help="the runs of each family")
    parser.add_argument("--family-layers", type=int, default=4, help="decoder layers of each family model")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGALRM, _too_long)
    if args.dry_run:
        args.shape, args.batch, args.seq, args.warmup, args.steps, args.device = "llama_tiny", 2, 64, 1, 2, "cpu"
        args.plan = ",".join(p for p in args.plan.split(",") if "compiled" not in p)
        args.family_plan = ",".join(p.replace("compiled", "eager") for p in args.family_plan.split(","))
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        parser.error("no CUDA device (use --dry-run on CPU)")
    torch.backends.cuda.matmul.allow_tf32 = True
    plan = [("", *item.split("/")) for item in args.plan.split(",") if item]
    families = list(FAMILIES) if args.families == "all" else [f for f in args.families.split(",") if f]
    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        parser.error(f"unknown families {unknown}; have: {', '.join(FAMILIES)}")
    family_plan = [item.split("/") for item in dict.fromkeys(args.family_plan.split(",")) if item]
    plan += [(f"{family}:", *item) for family in families for item in family_plan]
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        n_chars = (args.warmup + args.steps + 2) * args.batch * (args.seq + 1) + 10_000
        if (work / "base" / "config.json").is_file() and (work / "data").is_dir():
            base, data = work / "base", work / "data"
        else:
            base, data = make_inputs(work, args.shape, n_chars, args.device)
        env = {"torch": torch.__version__, "device": torch.cuda.get_device_name() if args.device.startswith("cuda")
               else "cpu", "shape": args.shape, "batch": args.batch, "seq": args.seq}
        emit({"env": env}, args.out)
        inputs = {"": (base, data)}
        for prefix, side, method, mode in plan:
            key = f"{prefix}{side}/{method}/{mode}"
            signal.alarm(args.run_timeout)
            try:
                if prefix not in inputs:  # the family's checkpoint, beside the shared data
                    family = prefix[:-1]
                    overrides = {"n_layers": args.family_layers, **(TINY if args.dry_run else {})}
                    if args.dry_run and family == "gemma2_2b":
                        overrides["query_scale"] = TINY["head_dim"]
                    inputs[prefix] = make_inputs(work / family, family, n_chars, args.device, **overrides)[0], data
                run_base, run_data = inputs[prefix]
                row = quarry_run(method, mode, args, run_base, run_data, work) if side == "quarry" \
                    else peer_run(method, mode, args, run_base)
            except Exception as exc:  # noqa: BLE001 - report and carry on with the rest
                row = {"error": f"{type(exc).__name__}: {exc}"[:500]}
            finally:
                signal.alarm(0)
            results[key] = row
            emit({"run": key, **row}, args.out)
    summary = {}
    for key, row in results.items():
        prefix, (side, method, mode) = key.rpartition(":")[0], key.rpartition(":")[2].split("/")
        eager = results.get(f"{prefix + ':' if prefix else ''}peer/{method}/eager", {})
        if "tokens_per_s" in row and "tokens_per_s" in eager:
            summary[key] = {"tokens_per_s": row["tokens_per_s"], "peak_gib": row["peak_gib"],
                            "speed_vs_peer_eager": round(row["tokens_per_s"] / eager["tokens_per_s"], 3),
                            "memory_vs_peer_eager": round(row["peak_gib"] / eager["peak_gib"], 3)
                            if eager["peak_gib"] == eager["peak_gib"] else None}
    emit({"summary": summary or results}, args.out)
    from floors import Floors

    floors = Floors(none="speed and memory only: the sides train on different batches, no loss compares")
    floors.equals("runs_failed", sorted(key for key, row in results.items() if "error" in row), [])
    floors.emit({})
    return 0


if __name__ == "__main__":
    sys.exit(main())

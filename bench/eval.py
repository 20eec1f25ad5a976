"""BPB evaluation throughput: Quarry's batched rolling-window scorer against transformers.

Both score the same documents with the same windows on the same checkpoint: Quarry loads it with
quarry.models.checkpoint.load_pretrained and batches windows of many documents; the peer loads
the saved folder with transformers' LlamaForCausalLM and scores one window per forward pass (the
sliding-window recipe of the transformers perplexity guide), summing cross-entropy of the scored
positions. Prints one JSON object: tokens/s of each, the two BPB numbers and their difference.

    python bench/eval.py                       # small: a few minutes on a laptop CPU
    python bench/eval.py --docs 150 --max-chars 16000 --vocab 8192 --dim 768 --layers 12 --heads 12 \
        --context 1024 --stride 512 --batch-size 32 --device cuda     # full size (125M-class model)

Floors (bench/floors.py): both score the same tokens, and their BPB differ by at most 1e-4 in
float32 (measured 4e-8) or 0.05 in bfloat16 (rounding of a different kernel order).
"""

from __future__ import annotations

import argparse
import math
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import torch

from quarry.eval.bpb import rolling_windows, score_documents
from quarry.models import llama_tiny
from quarry.models.checkpoint import load_pretrained, save_pretrained
from quarry.tokenizer import train_tokenizer
from floors import Floors
from peers import peer_versions


def stdlib_documents(n: int, max_chars: int) -> list[tuple[str, str]]:
    """Source files of the running interpreter's standard library: real code, on every machine."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.glob("*.py") if p.stat().st_size > 2000)
    files = files[::max(1, len(files) // n)][:n]  # spread over the alphabet, not just the _private ones
    return [("stdlib-" + ("private" if p.name.startswith("_") else "public"),
             p.read_text(encoding="utf-8", errors="replace")[:max_chars]) for p in files]


def build_checkpoint(folder: Path, docs: list[tuple[str, str]], args) -> None:
    tokenizer = train_tokenizer((text for _, text in docs), vocab_size=args.vocab)
    torch.manual_seed(0)
    model = llama_tiny(vocab_size=tokenizer.vocab_size, dim=args.dim, n_layers=args.layers, n_heads=args.heads,
                       n_kv_heads=max(1, args.heads // 2), intermediate_size=args.dim * 8 // 3,
                       max_seq_len=args.context)
    save_pretrained(model, folder, tokenizer=tokenizer, lineage={"recipe": "bench"})


def transformers_bpb(folder: Path, tokenizer, docs, context: int, stride: int, device: str, dtype) -> dict:
    from transformers import LlamaForCausalLM

    model = LlamaForCausalLM.from_pretrained(folder, dtype=dtype).to(device).eval()
    bits, nbytes, tokens = 0.0, 0, 0
    start = time.perf_counter()
    with torch.inference_mode():
        for _, text in docs:
            ids = tokenizer.encode(text)
            sequence = [tokenizer.bos_id, *ids]
            for w in rolling_windows(len(ids), context, stride):
                inputs = torch.tensor([sequence[w.start:w.end]], device=device)
                logits = model(input_ids=inputs).logits[0, w.score_from - w.start:].float()
                targets = torch.tensor(ids[w.score_from:w.end], device=device)
                bits += float(torch.nn.functional.cross_entropy(logits, targets, reduction="sum")) / math.log(2)
            nbytes += len(text.encode("utf-8"))
            tokens += len(ids)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    return {"bpb": bits / nbytes, "tokens": tokens, "seconds": seconds, "tokens_per_s": tokens / seconds}


def quarry_bpb(folder: Path, tokenizer, docs, context: int, stride: int, batch: int, device: str, dtype) -> dict:
    model = load_pretrained(folder, device=device, dtype=dtype)
    start = time.perf_counter()
    result = score_documents(model, tokenizer, docs, context_len=context, stride=stride, batch_size=batch,
                             device=device)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    total = result.aggregate
    return {"bpb": total.bpb, "tokens": total.tokens, "seconds": seconds, "tokens_per_s": total.tokens / seconds,
            "subsets": {name: round(s.bpb, 6) for name, s in sorted(result.subsets.items())}}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=16)
    parser.add_argument("--max-chars", type=int, default=3000)
    parser.add_argument("--vocab", type=int, default=2048)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--context", type=int, default=256)
    parser.add_argument("--stride", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    args = parser.parse_args(argv)
    dtype = getattr(torch, args.dtype)
    docs = stdlib_documents(args.docs, args.max_chars)
    with tempfile.TemporaryDirectory(prefix="quarry-bench-eval-") as tmp:
        folder = Path(tmp) / "checkpoint"
        build_checkpoint(folder, docs, args)
        from quarry.tokenizer import Tokenizer

        tokenizer = Tokenizer.load(folder)
        ours = quarry_bpb(folder, tokenizer, docs, args.context, args.stride, args.batch_size, args.device, dtype)
        peer = transformers_bpb(folder, tokenizer, docs, args.context, args.stride, args.device, dtype)
    report = {
        "bench": "eval_bpb", "device": args.device, "dtype": args.dtype, "docs": len(docs),
        "bytes": sum(len(t.encode()) for _, t in docs), "context": args.context, "stride": args.stride,
        "model": {"dim": args.dim, "layers": args.layers, "vocab": tokenizer.vocab_size},
        "quarry": ours, "transformers": peer,
        "bpb_abs_diff": abs(ours["bpb"] - peer["bpb"]),
        "speedup": ours["tokens_per_s"] / peer["tokens_per_s"],
    }
    report["versions"] = peer_versions("transformers")
    floors = Floors()
    floors.equals("transformers.tokens", peer["tokens"], ours["tokens"])
    floors.at_most("bpb_abs_diff", report["bpb_abs_diff"], 1e-4 if args.dtype == "float32" else 0.05)
    floors.emit(report)
    return report


if __name__ == "__main__":
    main(sys.argv[1:])

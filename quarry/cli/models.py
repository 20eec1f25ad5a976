"""Model commands: `quarry generate`, `quarry download`, `quarry tokenizer train|encode|decode`,
`quarry tokenize`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console

from quarry.config import with_overrides
from quarry.config.compute import torch_dtype
from quarry.engine import run_local
from quarry.errors import QuarryError
from quarry.config.values import load_params
from quarry.records import atomic_write_bytes
from quarry.stages.tokenizer import TOKENIZER
from quarry.tokenizer import Tokenizer

out = Console()
err = Console(stderr=True)

def _device_and_dtype(device: str | None, dtype: str | None):
    import torch

    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    name = dtype or ("bfloat16" if device.startswith("cuda") else "float32")
    try:
        return torch.device(device), torch_dtype(name)
    except ValueError as exc:
        raise QuarryError(f"--dtype {exc}") from None


def _read_prompts(path: Path) -> list[str]:
    """One prompt per line, or jsonl with a "prompt" (or "text") field per line."""
    if not path.is_file():
        raise QuarryError(f"{path}: no such prompts file")
    prompts = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        if path.suffix == ".jsonl":
            try:
                row = json.loads(line)
                prompts.append(row["prompt"] if "prompt" in row else row["text"])
            except (json.JSONDecodeError, KeyError, TypeError):
                raise QuarryError(f"{path}:{number}: expected a JSON object with a \"prompt\" field") from None
        else:
            prompts.append(line)
    return prompts


class _TextStream:
    """Prints a row's text as tokens arrive, holding back a split multi-byte character."""

    def __init__(self, tokenizer):
        self.tokenizer, self.ids, self.shown = tokenizer, [], 0

    def __call__(self, row: int, token: int) -> None:
        self.ids.append(token)
        text = self.tokenizer.decode(self.ids)
        if not text.endswith("\ufffd"):
            sys.stdout.write(text[self.shown:])
            sys.stdout.flush()
            self.shown = len(text)


def register(app: typer.Typer) -> None:
    @app.command("generate")
    def generate_cmd(
        checkpoint: str = typer.Argument(..., help="A checkpoint folder (or a Hugging Face model id)."),
        prompt: str = typer.Option(None, "--prompt", "-p", help="One prompt; the completion streams to stdout."),
        prompts_file: Path = typer.Option(None, help="Prompts, one per line (or jsonl with a \"prompt\" field)."),
        output: Path = typer.Option(None, help="Write {prompt, completion} jsonl here (default: stdout)."),
        max_new_tokens: int = typer.Option(128, min=1),
        temperature: float = typer.Option(0.0, min=0.0, help="0 decodes greedily."),
        top_k: int = typer.Option(None, min=1),
        top_p: float = typer.Option(None, min=0.0, max=1.0),
        num_beams: int = typer.Option(1, min=1),
        seed: int = typer.Option(None, help="Seed for sampling (same seed, same text)."),
        batch_size: int = typer.Option(8, min=1, help="Prompts generated together (left-padded)."),
        bos: bool = typer.Option(True, help="Start every prompt with the tokenizer's bos token."),
        device: str = typer.Option(None, help="cuda / cpu (default: cuda when available)."),
        dtype: str = typer.Option(None, help="float32 / bfloat16 / float16 (default: bf16 on cuda)."),
    ) -> None:
        """Generate text from a checkpoint for a prompt or a file of prompts."""
        from quarry.models.generate import generate  # torch: only the commands that run a model load it
        from quarry.models.checkpoint import load_pretrained  # torch: as above
        from quarry.models.hub import resolve  # torch (quarry.models): as above

        if (prompt is None) == (prompts_file is None):
            raise QuarryError("give exactly one of --prompt or --prompts-file")
        folder = resolve(checkpoint)
        tokenizer = Tokenizer.load(folder)
        torch_device, torch_dtype = _device_and_dtype(device, dtype)
        model = load_pretrained(folder, device=torch_device, dtype=torch_dtype)
        use_bos = bos and tokenizer.bos_id is not None
        options = dict(max_new_tokens=max_new_tokens, temperature=temperature, top_k=top_k, top_p=top_p,
                       num_beams=num_beams, seed=seed, pad_id=tokenizer.pad_id or 0,
                       stop_tokens=[tokenizer.eos_id] if tokenizer.eos_id is not None else [])
        if prompt is not None:
            sys.stdout.write(prompt)
            generate(model, [tokenizer.encode(prompt, bos=use_bos)], stream=_TextStream(tokenizer), **options)
            sys.stdout.write("\n")
            return
        texts = _read_prompts(prompts_file)
        lines = []
        from rich.progress import Progress

        with Progress(console=err, transient=True) as progress:
            task = progress.add_task("generating", total=len(texts))
            for start in range(0, len(texts), batch_size):
                batch = texts[start:start + batch_size]
                ids = generate(model, [tokenizer.encode(t, bos=use_bos) for t in batch], **options)
                lines += [json.dumps({"prompt": t, "completion": tokenizer.decode(c)}, ensure_ascii=False)
                          for t, c in zip(batch, ids)]
                progress.advance(task, len(batch))
        text = "\n".join(lines) + "\n"
        if output:
            atomic_write_bytes(output, text.encode("utf-8"))
            err.print(f"{len(lines)} completions -> {output}")
        else:
            sys.stdout.write(text)

    @app.command("download")
    def download_cmd(
        repo_id: str = typer.Argument(..., help="A Hugging Face model id (org/name) or a local folder."),
        revision: str = typer.Option(None, help="Branch, tag or commit."),
        cache_dir: Path = typer.Option(None, help="Hub cache folder (default: HF_HOME's)."),
        all_files: bool = typer.Option(False, "--all-files", help="Every file, not only config, weights, tokenizer."),
    ) -> None:
        """Snapshot a model into the local Hub cache (HF_TOKEN, HF_HUB_OFFLINE honoured); print its folder."""
        from quarry.models.hub import download  # torch (quarry.models): only this command loads it

        folder = download(repo_id, revision=revision, cache_dir=cache_dir, allow_patterns=["*"] if all_files else None)
        out.print(str(folder), soft_wrap=True, highlight=False)

    tok = typer.Typer(help="Train and use byte-level BPE tokenizers.", no_args_is_help=True)
    app.add_typer(tok, name="tokenizer")

    @tok.command("train")
    def tokenizer_train(
        dataset: Path = typer.Argument(..., help="A dataset version folder (its train/ split when present)."),
        out_dir: Path = typer.Argument(..., help="Where tokenizer.json and its configs go."),
        params: Path = typer.Option(None, help="params.yaml (default: the project's)."),
        vocab_size: int = typer.Option(None, help="Overrides tokenizer.vocab_size."),
        workers: int = typer.Option(None, help="Processes (default params pipeline.workers); same bytes for any."),
    ) -> None:
        """Train a tokenizer with params.yaml's tokenizer section (on a sample of the train split, or
        the tokenizer.path it names); it records the dataset hash and the sample or source."""
        settings = load_params(params)
        if vocab_size:
            settings = with_overrides(settings, {"tokenizer.vocab_size": vocab_size}, source="--vocab-size")
        made = run_local(TOKENIZER, dataset, out_dir, settings, workers=workers or settings.pipeline.workers)
        out.print(json.dumps({"folder": str(out_dir), "vocab_size": made["vocab_size"],
                              "tokenizer_hash": made["hash"], "dataset_hash": made["dataset_hash"]}))

    @app.command("tokenize")
    def tokenize(
        dataset: Path = typer.Argument(..., help="A dataset version folder."),
        tokenizer_dir: Path = typer.Argument(..., help="A tokenizer folder (tokenizer.json)."),
        out_dir: Path = typer.Argument(..., help="Where the token shards and their manifest go."),
        params: Path = typer.Option(None, help="params.yaml (default: the project's): its tokenize section."),
        workers: int = typer.Option(None, help="Processes (default params pipeline.workers); same bytes for any."),
    ) -> None:
        """Token shards of a dataset version (the DAG's tokenize stage on local processes)."""
        from quarry.stages.tokenize import TOKENIZE, TokenizeArgs  # torch: only tokenizing loads it

        settings = load_params(params)
        manifest = run_local(TOKENIZE, dataset, out_dir, settings, workers=workers or settings.pipeline.workers,
                             args=TokenizeArgs(tokenizer_dir))
        counts = {split: {k: info[k] for k in ("documents", "tokens")} for split, info in manifest["splits"].items()}
        out.print(json.dumps({"folder": str(out_dir), "key": manifest["key"], "splits": counts}))

    @tok.command("encode")
    def tokenizer_encode(
        tokenizer_path: Path = typer.Argument(..., help="A tokenizer.json or a folder with one."),
        text: str = typer.Argument(None, help="Text to encode (default: stdin)."),
        bos: bool = typer.Option(False, help="Prepend the bos token."),
        eos: bool = typer.Option(False, help="Append the eos token."),
    ) -> None:
        """Print the token ids of a text as a JSON list."""
        ids = Tokenizer.load(tokenizer_path).encode(sys.stdin.read() if text is None else text, bos=bos, eos=eos)
        out.print(json.dumps(ids), soft_wrap=True, highlight=False)

    @tok.command("decode")
    def tokenizer_decode(
        tokenizer_path: Path = typer.Argument(..., help="A tokenizer.json or a folder with one."),
        ids: str = typer.Argument(..., help="Token ids as a JSON list, e.g. '[1, 2, 3]'."),
    ) -> None:
        """Print the text of a JSON list of token ids."""
        try:
            values = [int(i) for i in json.loads(ids)]
        except (json.JSONDecodeError, TypeError, ValueError):
            raise QuarryError(f"ids {ids!r}: expected a JSON list of integers") from None
        sys.stdout.write(Tokenizer.load(tokenizer_path).decode(values) + "\n")

"""Tiny real components for the evaluation tests: a byte tokenizer and small causal models."""

from __future__ import annotations

import torch


class ByteTokenizer:
    """One token per UTF-8 byte; BOS is id 256."""

    bos_id = 256
    eos_id = 257
    vocab_size = 258

    def encode(self, text: str, bos: bool = False, eos: bool = False) -> list[int]:
        return [self.bos_id] * bos + list(text.encode("utf-8")) + [self.eos_id] * eos


class UniformByteModel(torch.nn.Module):
    """Equal logits over the 256 byte values, whatever the input."""

    def forward(self, tokens: torch.Tensor, attention_mask=None) -> torch.Tensor:
        return torch.zeros(*tokens.shape, 256)


class BigramModel(torch.nn.Module):
    """Logits depend on the current token only: any window with one token of context scores alike."""

    def __init__(self, vocab: int = 258, seed: int = 0):
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        self.table = torch.nn.Parameter(torch.randn(vocab, vocab, generator=generator) * 2)

    def forward(self, tokens: torch.Tensor, attention_mask=None) -> torch.Tensor:
        return self.table[tokens]


def tiny_llama(vocab: int = 258, seed: int = 0, context: int = 64):
    """A randomly initialised Llama (Quarry's) small enough for CPU tests."""
    from quarry.models import llama_tiny

    torch.manual_seed(seed)
    return llama_tiny(vocab_size=vocab, dim=32, n_layers=2, n_heads=4, n_kv_heads=2, intermediate_size=64,
                      max_seq_len=context).eval()


DOCS = [
    ("python", "def add(a, b):\n    return a + b\n" * 3),
    ("python", "import os\nprint(os.getcwd())\n"),
    ("prose", "The quick brown fox jumps over the lazy dog. Ünïcödé bytes count too — ✓."),
    ("prose", "x"),
    ("prose", ""),
]


# ---------------------------------------------------------------------------------------------
# A small project run through the real stages: git repo -> snapshot -> a curation step ->
# assembled dataset version -> tokenizer -> the pretrain recipe's checkpoints (its starting
# weights and its trained ones), each with the lineage.json the recipe writes.

LICENSE_TEXT = "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy.\n"


def make_git_repo(folder):
    import subprocess

    folder.mkdir(parents=True)
    (folder / "LICENSE").write_text(LICENSE_TEXT)
    (folder / "src").mkdir()
    for i in range(24):
        body = "".join(f"def scale_{i}_{j}(x):\n    return x * {j} + {i}\n\n" for j in range(24))
        (folder / "src" / f"mod_{i}.py").write_text(body)
    (folder / "src" / "tiny.py").write_text("x = 1\n")  # dropped by the curation step
    (folder / "docs").mkdir()
    for i in range(12):
        prose = " ".join(f"Section {i} explains how scale_{i}_{j} multiplies its input by {j}." for j in range(12))
        (folder / "docs" / f"guide_{i}.md").write_text(f"# Guide {i}\n\n{prose}\n")
    git = ["git", "-c", "user.name=Quarry Test", "-c", "user.email=test@example.org"]
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    subprocess.run(["git", "add", "."], cwd=folder, check=True)
    subprocess.run([*git, "commit", "-qm", "initial"], cwd=folder, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, check=True, capture_output=True, text=True)
    return head.stdout.strip()


class DropTinyAndLicense:
    """A curation step: drops files under 40 bytes; records the repository's license."""

    name = "filters"

    def apply(self, record):
        from quarry.curation.steps import Drop

        if len(record["text"]) < 40:
            return Drop("too short")
        meta = {**record["meta"], "license": {"spdx": "MIT", "category": "permissive", "evidence": "LICENSE"}}
        return {**record, "meta": meta}


def build_project(root):
    """Run the stages into ``root`` (a project folder); returns the paths and facts tests check."""
    from quarry.stages.assemble import assemble
    from quarry.ledger import merge_ledgers
    from quarry.records import read_json, shard_paths, write_json
    from quarry.stages.snapshot import run_snapshot
    from quarry.curation.steps import run_step_on_shard
    from quarry.config.training import TokenizerParams
    from quarry.stages.tokenizer import tokenizer_for
    from quarry.recipes.registry import build_recipe

    (root / "params.yaml").write_text("pipeline: {}\n")
    revision = make_git_repo(root / "repo")
    snapshot_dir = root / "data" / "snapshot"
    snapshot = run_snapshot([{"name": "repo", "kind": "git", "path": str(root / "repo")}], snapshot_dir, None)
    curated = root / "data" / "curated"
    ledgers = [run_step_on_shard(DropTinyAndLicense(), shard, curated / shard.name,
                                 rejects=curated / "rejects" / shard.name)
               for shard in shard_paths(snapshot_dir / "shards")]
    write_json(curated / "ledger.json", merge_ledgers("filters", ledgers).to_dict())
    params = {"assemble": {"name": "tiny-code", "splits": {"train": 0.7, "validation": 0.1, "test": 0.2}}}
    dataset = root / "data" / "dataset"
    manifest = assemble(curated, dataset, params, snapshot_manifest=snapshot_dir / "manifest.json",
                        ledgers=[snapshot_dir, curated], registry=root / "data" / "releases")
    tokenizer = tokenizer_for(dataset, root / "models" / "tokenizer", TokenizerParams(vocab_size=300))
    output = root / "models" / "tiny"
    overrides = [f"dataset.path={dataset}", f"output_dir={output}", "dataset.seq_len=32", "batch_size=4",
                 "max_steps=40", "mlflow.enabled=false", "progress=false", "save_every_n_steps=0",
                 "validation.every_n_steps=0", "tokenizer._component_=quarry.tokenizer.Tokenizer.load",
                 f"+tokenizer.path={root / 'models' / 'tokenizer'}", f"model.vocab_size={tokenizer.vocab_size}"]
    start = build_recipe("pretrain", "tiny_pretrain", overrides)
    start.setup()  # the weights the recipe starts from, exported through its own code
    try:
        start.export(start.full_state_dict(), output / "init")
    finally:
        start.cleanup()
    summary = build_recipe("pretrain", "tiny_pretrain", overrides).run()
    final = output / "final"
    lineage = read_json(final / "lineage.json")
    return {"root": root, "revision": revision, "snapshot": snapshot, "manifest": manifest, "dataset": dataset,
            "init": output / "init", "final": final, "summary": summary, "lineage": lineage}

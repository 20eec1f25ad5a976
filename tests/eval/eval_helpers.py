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
# assembled dataset version -> tokenizer -> trained tiny checkpoint with its lineage.json.

LICENSE_TEXT = "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy.\n"


def make_git_repo(folder):
    import subprocess

    folder.mkdir(parents=True)
    (folder / "LICENSE").write_text(LICENSE_TEXT)
    (folder / "src").mkdir()
    for i in range(16):
        body = "".join(f"def scale_{i}_{j}(x):\n    return x * {j} + {i}\n\n" for j in range(24))
        (folder / "src" / f"mod_{i}.py").write_text(body)
    (folder / "src" / "tiny.py").write_text("x = 1\n")  # dropped by the curation step
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
        from quarry.stage import Drop

        if len(record["text"]) < 40:
            return Drop("too short")
        meta = {**record["meta"], "license": {"spdx": "MIT", "category": "permissive", "evidence": "LICENSE"}}
        return {**record, "meta": meta}


def train_tiny(model, tokenizer, texts, steps: int = 60, context: int = 64, seed: int = 0):
    """A plain next-token loop, enough for the loss to fall well below its start."""
    import random

    rng = random.Random(seed)
    stream = [tokenizer.bos_id]
    for text in texts:
        stream += tokenizer.encode(text) + [tokenizer.bos_id]
    torch.manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    model.train()
    for _ in range(steps):
        starts = [rng.randrange(0, max(1, len(stream) - context - 1)) for _ in range(8)]
        batch = torch.tensor([stream[s:s + context + 1] for s in starts])
        logits = model(batch[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    return losses


def build_project(root):
    """Run the stages into ``root`` (a project folder); returns the paths and facts tests check."""
    from quarry.datasets import assemble
    from quarry.hashing import value_hash
    from quarry.ledger import merge_ledgers
    from quarry.models import llama_tiny
    from quarry.models.checkpoint import save_pretrained
    from quarry.records import read_records, shard_paths, write_json
    from quarry.snapshot import run_snapshot
    from quarry.stage import run_step_on_shard
    from quarry.tokenizer import train_from_dataset

    (root / "params.yaml").write_text("pipeline: {}\n")
    revision = make_git_repo(root / "repo")
    snapshot_dir = root / "data" / "snapshot"
    snapshot = run_snapshot([{"name": "repo", "kind": "git", "path": str(root / "repo")}], snapshot_dir, None,
                            progress=False)
    curated = root / "data" / "curated"
    ledgers = [run_step_on_shard(DropTinyAndLicense(), shard, curated / shard.name,
                                 rejects=curated / "rejects" / shard.name)
               for shard in shard_paths(snapshot_dir / "shards")]
    write_json(curated / "ledger.json", merge_ledgers("filters", ledgers).to_dict())
    params = {"assemble": {"name": "tiny-code", "splits": {"train": 0.7, "validation": 0.1, "test": 0.2}}}
    dataset = root / "data" / "dataset"
    manifest = assemble(curated, dataset, params, snapshot_manifest=snapshot_dir / "manifest.json",
                        ledgers=[snapshot_dir, curated], registry=root / "data" / "releases")
    train_texts = [r["text"] for f in manifest["splits"]["train"]["files"] for r in read_records(dataset / f["path"])]
    tokenizer = train_from_dataset(dataset, {"tokenizer": {"vocab_size": 300}})
    torch.manual_seed(0)
    model = llama_tiny(vocab_size=tokenizer.vocab_size, max_seq_len=64)
    config = {"recipe": "pretrain", "model": "llama_tiny", "steps": 60, "lr": 3e-3}
    lineage = {"recipe": "pretrain", "config": config, "config_hash": value_hash(config),
               "dataset": {"path": str(dataset), "version": manifest["version"], "name": manifest["name"]},
               "tokenizer": {"path": str(root / "models" / "tiny" / "final"), "hash": tokenizer.hash},
               "base_model": None, "mlflow_run_id": None, "code_version": "test"}
    init = save_pretrained(model, root / "models" / "tiny" / "init", tokenizer=tokenizer,
                           lineage={**lineage, "recipe": "init"})
    losses = train_tiny(model, tokenizer, train_texts)
    final = save_pretrained(model, root / "models" / "tiny" / "final", tokenizer=tokenizer, lineage=lineage)
    return {"root": root, "revision": revision, "snapshot": snapshot, "manifest": manifest, "dataset": dataset,
            "init": init, "final": final, "losses": losses, "lineage": lineage}

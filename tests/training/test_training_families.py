"""Every recipe on every model family: a tiny transformers checkpoint fine-tuned for two steps.

LoRA, QLoRA (NF4 and int8), full fine-tuning and DPO start from each family's own checkpoint,
train what they should, and export a folder transformers loads as the same family.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import torch
from training_helpers import tiny_overrides

sys.path.insert(0, str(Path(__file__).parents[1] / "models"))
from family_models import FAMILIES, save_hf  # noqa: E402

from quarry.models.checkpoint import load_pretrained  # noqa: E402
from quarry.recipes.registry import build_recipe  # noqa: E402
from quarry.training.lora import LoRALinear  # noqa: E402

NAMES = list(FAMILIES)
RECIPES = {  # recipe, config, extra overrides
    "lora": ("lora_finetune", "tiny_lora", {"activation_checkpointing": "true"}),
    "qlora_nf4": ("qlora_finetune", "tiny_qlora", {}),
    "qlora_int8": ("qlora_finetune", "tiny_qlora", {"quantize.mode": "int8"}),
    "full": ("full_finetune", "tiny_full_finetune", {"dtype": "fp32"}),
}


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("families")
    for name in NAMES:
        save_hf(name, root / name)
    return {name: root / name for name in NAMES}


def _trainable_changed(recipe, before: dict[str, torch.Tensor]) -> bool:
    after = dict(recipe.model.named_parameters())
    return any(not torch.equal(after[n].detach(), before[n]) for n in before)


@pytest.mark.parametrize("kind", list(RECIPES))
@pytest.mark.parametrize("name", NAMES)
def test_recipe_trains_and_exports_the_family(name, kind, checkpoints, dataset_dir, tmp_path):
    recipe_name, config, extra = RECIPES[kind]
    recipe = build_recipe(recipe_name, config, tiny_overrides(
        dataset_dir, tmp_path, base_model=checkpoints[name], max_steps=2, batch_size=2, **extra))
    recipe.setup()
    before = {n: p.detach().clone() for n, p in recipe.model.named_parameters() if p.requires_grad}
    if kind != "full":
        assert before and all(".lora_A." in n or ".lora_B." in n for n in before)
    if kind.startswith("qlora"):
        import bitsandbytes as bnb

        quantized = bnb.nn.Linear4bit if kind == "qlora_nf4" else bnb.nn.Linear8bitLt
        layers = [m for m in recipe.model.modules() if isinstance(m, LoRALinear)]
        assert layers and all(isinstance(m.base_layer, quantized) for m in layers)
        # every projection of the blocks (fused ones included) is quantised and adapted
        assert not [n for n, m in recipe.model.model.layers.named_modules()
                    if type(m) is torch.nn.Linear and not n.endswith(("lora_A", "lora_B"))]
    result = recipe.train()
    assert all(torch.isfinite(torch.tensor(h["loss"])) for h in result["history"])
    assert _trainable_changed(recipe, before)
    exported = load_pretrained(tmp_path / "final")
    assert exported.args.family == load_pretrained(checkpoints[name]).args.family
    if kind != "full":
        adapter = json.loads((tmp_path / "final" / "adapter" / "adapter_config.json").read_text())
        wrapped = {n.split(".")[-1] for n, m in recipe.model.named_modules() if isinstance(m, LoRALinear)}
        assert set(adapter["target_modules"]) == wrapped


@pytest.mark.parametrize("name", NAMES)
def test_dpo_step_on_the_family(name, checkpoints, tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    rows = [{"prompt": f"q{i}: ", "chosen": "def good():\n    return value", "rejected": "lambda bad while"}
            for i in range(4)]
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    recipe = build_recipe("dpo", "tiny_dpo", [
        f"base_model={checkpoints[name]}", f"dataset.path={pairs}", f"output_dir={tmp_path / 'out'}",
        "epochs=1", "batch_size=2", "progress=false", "optimizer.lr=0.003", "dtype=fp32"])
    recipe.setup()
    before = recipe.margins()
    recipe.train()
    assert not torch.equal(recipe.margins(), before)
    assert load_pretrained(tmp_path / "out" / "final").args.family == recipe.model.args.family


@pytest.mark.parametrize("name", ["qwen2", "starcoder2"])
def test_quarry_run_qlora_on_a_checkpoint_folder_with_its_own_tokenizer(name, dataset_dir, tmp_path):
    """The issue's command, through the CLI: QLoRA from a user's Qwen2 / StarCoder2 folder,
    tokenised by the tokenizer.json in that folder; lineage hashes the base model's files."""
    from models_helpers import CORPUS

    from quarry.cli import main
    from quarry.infra.hashing import file_hash, file_hashes
    from quarry.tokenizer import Tokenizer, train_tokenizer

    base = tmp_path / name
    save_hf(name, base)
    train_tokenizer(CORPUS, vocab_size=300).save(base)
    out = tmp_path / "out"
    args = tiny_overrides(dataset_dir, out, base_model=base, max_steps=2, batch_size=2,
                          **{"tokenizer._component_": "quarry.tokenizer.Tokenizer.load", "tokenizer.path": base})
    assert main(["run", "qlora_finetune", "--config", "tiny_qlora", *args]) == 0
    lineage = json.loads((out / "final" / "lineage.json").read_text())
    files = lineage["base_model_files"]
    assert files["model.safetensors"] == file_hash(base / "model.safetensors")
    assert files["tokenizer.json"] == file_hash(base / "tokenizer.json") and "config.json" in files
    assert lineage["tokenizer"]["hash"] == str(Tokenizer.load(base).hash)
    assert Tokenizer.load(out / "final").hash == Tokenizer.load(base).hash
    from quarry.infra.hashing import hashes_digest
    from quarry.datasets.lineage import lineage_chain

    assert lineage_chain(out / "final")["checkpoint"]["base_model_hash"] == hashes_digest(file_hashes(base))
    assert load_pretrained(out / "final").args.family == name
    adapter = json.loads((out / "final" / "adapter" / "adapter_config.json").read_text())
    assert adapter["base_model_name_or_path"] == str(base)


def test_a_tokenizer_larger_than_the_embedding_is_refused(checkpoints, dataset_dir, tmp_path):
    from quarry.errors import ConfigError

    recipe = build_recipe("lora_finetune", "tiny_lora", tiny_overrides(
        dataset_dir, tmp_path, base_model=checkpoints["gemma"], max_steps=1,
        **{"tokenizer._component_": "training_helpers.WideByteTokenizer"}))
    with pytest.raises(ConfigError, match="the tokenizer has 70003 ids but .* embeds only 320"):
        recipe.setup()


def test_the_dag_fine_tune_starts_from_the_users_checkpoint(tmp_path):
    from flows.paths import recipe_paths

    from quarry.config import Params
    from quarry.config.params import with_overrides

    folder = tmp_path / "my-qwen"
    save_hf("qwen2", folder)
    params = with_overrides(Params(), {"finetune.base_model": str(folder)})
    paths = recipe_paths("finetune", params)
    assert paths["base_model"] == paths["tokenizer.path"] == str(folder)
    assert recipe_paths("finetune", Params())["base_model"] != str(folder)


@pytest.mark.slow  # two fresh interpreters importing torch and bitsandbytes: ~15 s
def test_bitsandbytes_optional_kernel_warning_is_filtered_alone():
    """bitsandbytes warns at import that the optional ``kernels`` package is missing (on CPUs with
    AVX512-BF16); importing it through quarry.training.quantize drops that line and no other."""
    import subprocess

    def stderr(code: str) -> str:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                              timeout=120).stderr

    plain = stderr("import bitsandbytes")
    if "kernels-community" not in plain:
        pytest.skip("this CPU's bitsandbytes backend does not look for the optional kernel")
    ours = stderr("import logging, quarry.training.quantize, bitsandbytes; "
                  "logging.getLogger('bitsandbytes.backends.cpu.ops').warning('other warnings still show')")
    assert "kernels-community" not in ours and "other warnings still show" in ours


@pytest.fixture
def one_rank_group(tmp_path):
    """A real (gloo) process group of one rank: FSDP2 shards over it as over many."""
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'rendezvous'}", rank=0, world_size=1)
    yield
    dist.destroy_process_group()


@pytest.mark.parametrize("name", NAMES)
def test_fsdp2_and_activation_checkpointing_wrap_every_family_block(name, checkpoints, one_rank_group):
    from torch.distributed.fsdp import FSDPModule

    from quarry.training.distributed import checkpoint_blocks, shard_model
    from quarry.training.losses import CausalLMHead

    reference = load_pretrained(checkpoints[name]).train()
    model = load_pretrained(checkpoints[name]).train()
    checkpoint_blocks(model)
    head = shard_model(model, CausalLMHead(model))
    assert all(isinstance(block, FSDPModule) for block in model.layers) and isinstance(head, FSDPModule)
    ids = torch.randint(0, 256, (2, 16), generator=torch.Generator().manual_seed(5))
    labels = torch.roll(ids, -1, dims=1)
    expected = CausalLMHead(reference)(ids, labels)
    expected.backward()
    loss = head(ids, labels)
    loss.backward()
    assert torch.allclose(loss, expected, atol=1e-5)
    grads = {n: p.grad for n, p in reference.named_parameters()}
    for param_name, param in model.named_parameters():
        grad = param.grad.full_tensor() if hasattr(param.grad, "full_tensor") else param.grad
        assert torch.allclose(grad, grads[param_name], atol=1e-5), param_name


@pytest.mark.slow
@pytest.mark.parametrize("name", ["phi3", "gemma2"])
def test_two_rank_fsdp_lora_on_a_family_matches_single_process(name, checkpoints, dataset_dir, tmp_path):
    from test_training_fsdp import _torchrun
    from safetensors.torch import load_file

    settings = {"max_steps": 2, "device": "cpu", "base_model": checkpoints[name], "dtype": "fp32",
                "lora.dtype": "fp32", "activation_checkpointing": "true"}
    build_recipe("lora_finetune", "tiny_lora", tiny_overrides(dataset_dir, tmp_path / "one", batch_size=4,
                                                              **settings)).run()
    _torchrun("lora_finetune", "tiny_lora", tiny_overrides(dataset_dir, tmp_path / "two", batch_size=2, **settings))
    one = load_file(str(tmp_path / "one" / "final" / "adapter" / "adapter_model.safetensors"))
    two = load_file(str(tmp_path / "two" / "final" / "adapter" / "adapter_model.safetensors"))
    assert one.keys() == two.keys() and one
    for key in one:
        assert torch.allclose(one[key], two[key], atol=1e-5, rtol=1e-4), key


def test_the_dag_fine_tune_takes_a_hub_id_from_the_local_cache(dataset_dir, tmp_path, monkeypatch):
    """finetune.base_model as a hub id (offline: its snapshot in the Hugging Face cache): the
    recipe gets the snapshot folder as base model and tokenizer, and trains on it."""
    import huggingface_hub.constants
    from flows.paths import recipe_paths
    from models_helpers import CORPUS

    from quarry.config import Params
    from quarry.config.params import with_overrides
    from quarry.tokenizer import train_tokenizer

    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--acme--tiny-qwen2"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    save_hf("qwen2", snapshot)
    train_tokenizer(CORPUS, vocab_size=300).save(snapshot)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    paths = recipe_paths("finetune", with_overrides(Params(), {"finetune.base_model": "acme/tiny-qwen2"}))
    assert paths["base_model"] == paths["tokenizer.path"] == str(snapshot)
    overrides = {key: paths[key] for key in ("base_model", "tokenizer.path")}
    recipe = build_recipe("lora_finetune", "dag_lora", tiny_overrides(
        dataset_dir, tmp_path / "out", max_steps=1, batch_size=2, **overrides,
        **{"mlflow.enabled": "false", "dataset.subset": "null"}))
    recipe.run()
    assert load_pretrained(tmp_path / "out" / "final").args.family == "qwen2"


def test_a_tokenizer_other_than_the_models_own_is_said_once(dataset_dir, tmp_path):
    import warnings

    from models_helpers import CORPUS

    from quarry.tokenizer import train_tokenizer

    base = tmp_path / "qwen2"
    save_hf("qwen2", base)
    train_tokenizer(CORPUS, vocab_size=300).save(base)
    other = build_recipe("lora_finetune", "tiny_lora", tiny_overrides(dataset_dir, tmp_path / "a", base_model=base,
                                                                       max_steps=1, batch_size=2))
    with pytest.warns(UserWarning, match="ships its own tokenizer.json, but this run tokenises with "
                                         "quarry.training.data.ByteTokenizer") as caught:
        other.run()
    assert len([w for w in caught if "ships its own" in str(w.message)]) == 1  # not again at export
    own = build_recipe("lora_finetune", "tiny_lora", tiny_overrides(
        dataset_dir, tmp_path / "b", base_model=base, max_steps=1, batch_size=2,
        **{"tokenizer._component_": "quarry.tokenizer.Tokenizer.load", "tokenizer.path": base}))
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*ships its own tokenizer")
        own.run()

"""FSDP2 on two CPU ranks (gloo, launched by torchrun): same result as one process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch
from local_servers import free_port
from training_helpers import tiny_overrides, weights

from quarry.training.distributed import torchrun_command
from quarry.recipes.registry import build_recipe


def _torchrun(recipe: str, config: str, overrides: list[str]) -> None:
    cmd = torchrun_command(recipe, ["--config", config, *overrides], nproc_per_node=2, master_port=free_port())
    cmd.remove("--standalone")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-4000:]


@pytest.mark.slow
def test_two_rank_fsdp_matches_single_process(dataset_dir, tmp_path):
    settings = {"max_steps": 3, "save_every_n_steps": 2, "device": "cpu"}
    single = build_recipe("pretrain", "tiny_pretrain",
                          tiny_overrides(dataset_dir, tmp_path / "one", batch_size=4, **settings))
    single.run()
    # Two ranks with 2 sequences each see the same 4 sequences per step as the single process.
    _torchrun("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, tmp_path / "two", batch_size=2, **settings))
    one, two = weights(tmp_path / "one" / "final"), weights(tmp_path / "two" / "final")
    assert one.keys() == two.keys()
    for name in one:
        assert torch.allclose(one[name], two[name], atol=1e-5, rtol=1e-4), name
    assert (tmp_path / "two" / "step-2" / "state.pt").is_file()
    assert {p.name for p in (tmp_path / "two" / "step-2").iterdir()} >= {"rng-rank0.pt", "rng-rank1.pt"}


@pytest.mark.slow
def test_two_rank_qlora_keeps_4bit_base_replicated(dataset_dir, base_checkpoint, tmp_path):
    settings = {"max_steps": 3, "device": "cpu", "base_model": base_checkpoint, "optimizer.lr": 0.01}
    single = build_recipe("qlora_finetune", "tiny_qlora",
                          tiny_overrides(dataset_dir, tmp_path / "one", batch_size=4, **settings))
    single.run()
    _torchrun("qlora_finetune", "tiny_qlora",
              tiny_overrides(dataset_dir, tmp_path / "two", batch_size=2, **settings))
    from safetensors.torch import load_file

    one = load_file(str(tmp_path / "one" / "final" / "adapter" / "adapter_model.safetensors"))
    two = load_file(str(tmp_path / "two" / "final" / "adapter" / "adapter_model.safetensors"))
    assert one.keys() == two.keys() and one
    for name in one:
        assert torch.allclose(one[name].float(), two[name].float(), atol=2e-2), name

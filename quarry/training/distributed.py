"""One recipe, one device or many: process group setup, FSDP2 sharding, activation checkpointing.

Under torchrun every rank runs the same recipe; ``fully_shard`` is applied per transformer block
and then to the root, with a mixed-precision policy from the config. QLoRA's 4-bit base weights
are passed as ``ignored_params``: bitsandbytes' Params4bit loses its quantisation state when FSDP
turns it into a DTensor shard, so the frozen 4-bit base stays whole on every rank (it is small)
while the trainable adapters, their gradients and the optimizer state are sharded.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.checkpoint import checkpoint


@dataclass(frozen=True)
class DistInfo:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    device: torch.device = torch.device("cpu")

    @property
    def distributed(self) -> bool:
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def select_device(name: str = "auto", local_rank: int = 0) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(name)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
    return device


def init_distributed(device: str = "auto") -> DistInfo:
    """Join the process group torchrun set up (WORLD_SIZE > 1); a single process otherwise."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    dev = select_device(device, local_rank)
    if world > 1 and not dist.is_initialized():
        dist.init_process_group("nccl" if dev.type == "cuda" else "gloo")
    rank = dist.get_rank() if dist.is_initialized() else 0
    return DistInfo(rank, dist.get_world_size() if dist.is_initialized() else 1, local_rank, dev)


def all_reduce_sum(value: torch.Tensor) -> torch.Tensor:
    if dist.is_initialized() and dist.get_world_size() > 1:
        value = value.clone()
        dist.all_reduce(value)
    return value


def barrier() -> None:
    if dist.is_initialized():
        dist.barrier()


def shard_model(model: nn.Module, root: nn.Module, *, param_dtype: torch.dtype | None = None,
                reduce_dtype: torch.dtype | None = torch.float32, reshard_after_forward: bool = True,
                ignored_params: set[nn.Parameter] | None = None) -> nn.Module:
    """FSDP2: ``fully_shard`` every transformer block of ``model``, then ``root`` (the module
    whose forward runs the model and its loss: embeddings, final norm and head are gathered then)."""
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    policy = MixedPrecisionPolicy(param_dtype=param_dtype, reduce_dtype=reduce_dtype)
    ignored = ignored_params or None
    for block in model.layers:
        fully_shard(block, mp_policy=policy, reshard_after_forward=reshard_after_forward, ignored_params=ignored)
    fully_shard(root, mp_policy=policy, reshard_after_forward=reshard_after_forward, ignored_params=ignored)
    return root


def checkpoint_blocks(model: nn.Module) -> None:
    """Recompute each transformer block's activations in backward (module names unchanged)."""
    for block in model.layers:
        forward = block.forward
        block.forward = functools.partial(checkpoint, forward, use_reentrant=False)


def compile_blocks(model: nn.Module) -> None:
    """torch.compile each block: the repeated unit, so one graph compiles and is reused."""
    for block in model.layers:
        block.compile()


def torchrun_command(recipe: str, args: list[str], *, nproc_per_node: int, nnodes: int = 1,
                     node_rank: int | None = None, rdzv_endpoint: str | None = None,
                     rdzv_id: str | None = None, master_port: int | None = None) -> list[str]:
    """``python -m torch.distributed.run ... -m quarry.recipes.launch <recipe> <args>``."""
    cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={nproc_per_node}",
           f"--nnodes={nnodes}"]
    if node_rank is not None:
        cmd.append(f"--node-rank={node_rank}")
    if rdzv_endpoint:
        cmd += ["--rdzv-backend=c10d", f"--rdzv-endpoint={rdzv_endpoint}"]
    elif nnodes == 1:
        cmd.append("--standalone")
    if rdzv_id:
        cmd.append(f"--rdzv-id={rdzv_id}")
    if master_port is not None:
        cmd.append(f"--master-port={master_port}")
    return cmd + ["-m", "quarry.recipes.launch", recipe, *args]

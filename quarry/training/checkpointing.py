"""Resumable training state every N steps, and exact resume after a kill.

``<output_dir>/step-N/`` holds everything that decides what happens next: the trainable weights
(consolidated from FSDP shards into one full state dict), the optimizer and scheduler state, the
gradient scaler, the data position (epoch, step within it) and every rank's RNG states. It is
written to ``step-N.tmp`` and renamed when complete, so a kill mid-save leaves the previous
checkpoint as the latest valid one.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import numpy as np
import torch
from torch import nn

from quarry.records import JsonDict, write_json
from quarry.training.distributed import DistInfo, barrier

STEP_DIR = re.compile(r"^step-(\d+)$")
COMPLETE = "meta.json"


def rng_state() -> JsonDict:
    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: JsonDict) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _options(trainable_only: bool):
    from torch.distributed.checkpoint.state_dict import StateDictOptions

    return StateDictOptions(full_state_dict=True, cpu_offload=True, ignore_frozen_params=trainable_only)


def trainable_names(model: nn.Module) -> set[str]:
    return {name for name, p in model.named_parameters() if p.requires_grad}


def save_training_state(output_dir: Path, step: int, model: nn.Module, optimizer: torch.optim.Optimizer,
                        extra: JsonDict, dist_info: DistInfo, *, trainable_only: bool = False,
                        keep_last: int | None = None, lineage: JsonDict | None = None) -> Path:
    """Collective: every rank calls it; rank 0 writes the consolidated state, and ``lineage`` as
    lineage.json (so `quarry lineage` and `quarry whois` see intermediate checkpoints too)."""
    from torch.distributed.checkpoint.state_dict import get_state_dict

    model_sd, optim_sd = get_state_dict(model, optimizer, options=_options(trainable_only))
    if trainable_only:
        keep = trainable_names(model)
        model_sd = {k: v for k, v in model_sd.items() if k in keep}
    final = Path(output_dir) / f"step-{step}"
    tmp = Path(output_dir) / f"step-{step}.tmp"
    if dist_info.is_main:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        torch.save({"model": model_sd, "optimizer": optim_sd, **extra}, tmp / "state.pt")
    barrier()
    torch.save(rng_state(), tmp / f"rng-rank{dist_info.rank}.pt")
    barrier()
    if dist_info.is_main:
        meta = {"step": step, "world_size": dist_info.world_size, "trainable_only": trainable_only,
                "data_position": extra.get("data_position")}
        if lineage is not None:
            write_json(tmp / "lineage.json", lineage)
        (tmp / COMPLETE).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        shutil.rmtree(final, ignore_errors=True)
        tmp.rename(final)
        if keep_last:
            for old in list_checkpoints(output_dir)[:-keep_last]:
                shutil.rmtree(old, ignore_errors=True)
    barrier()
    return final


def list_checkpoints(output_dir: Path) -> list[Path]:
    """Complete step-N folders, oldest first."""
    folder = Path(output_dir)
    if not folder.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in folder.iterdir()
             if (m := STEP_DIR.match(p.name)) and (p / COMPLETE).is_file()]
    return [p for _, p in sorted(found)]


def latest_checkpoint(output_dir: Path) -> Path | None:
    found = list_checkpoints(output_dir)
    return found[-1] if found else None


def load_training_state(folder: Path, model: nn.Module, optimizer: torch.optim.Optimizer,
                        dist_info: DistInfo) -> JsonDict:
    """Restore weights, optimizer and this rank's RNG; returns the rest (scheduler, data position...)."""
    from torch.distributed.checkpoint.state_dict import set_state_dict

    meta = json.loads((folder / COMPLETE).read_text())
    state = torch.load(folder / "state.pt", map_location="cpu", weights_only=False)
    set_state_dict(model, optimizer, model_state_dict=state.pop("model"),
                   optim_state_dict=state.pop("optimizer"), options=_options(meta["trainable_only"]))
    rng_file = folder / f"rng-rank{dist_info.rank}.pt"
    if meta["world_size"] == dist_info.world_size and rng_file.is_file():
        set_rng_state(torch.load(rng_file, map_location="cpu", weights_only=False))
    return state

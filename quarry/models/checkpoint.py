"""Checkpoints in the Hugging Face layout: config.json + model.safetensors (sharded when large).

transformers loads what ``save_pretrained`` writes and ``load_pretrained`` loads what transformers
writes, for every family in quarry.models.families; the state_dict keys are identical, so the
conversion is the config alone.
Every saved folder also carries the tokenizer and ``lineage.json`` (where the weights came from).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from quarry.infra.atomic import current_umask, temp_beside
from quarry.errors import QuarryError
from quarry.models import families
from quarry.models.hub import resolve
from quarry.models.llama import ModelArgs, Transformer
from quarry.records import JsonDict, read_json, write_json

CONFIG = "config.json"
SINGLE = "model.safetensors"
INDEX = "model.safetensors.index.json"
LINEAGE = "lineage.json"
DEFAULT_MAX_SHARD = "5GB"

_DTYPE_NAMES = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16"}


def config_to_hf(args: ModelArgs, *, dtype: torch.dtype = torch.float32, bos_id: int | None = None,
                 eos_id: int | None = None, pad_id: int | None = None) -> JsonDict:
    """A transformers config dict of the model's family (see quarry.models.families)."""
    return {**families.config_to_hf(args), "bos_token_id": bos_id, "eos_token_id": eos_id, "pad_token_id": pad_id,
            "torch_dtype": _DTYPE_NAMES.get(dtype, "float32"), "use_cache": True}


def config_from_hf(config: JsonDict) -> ModelArgs:
    """ModelArgs from a transformers config.json of a supported family; an error naming the
    model_type or key that Quarry does not implement, before any weight is read."""
    try:
        return families.args_from_hf(config)
    except (ValueError, TypeError) as exc:
        raise QuarryError(f"config.json: {exc}") from None


def parse_size(size: int | str) -> int:
    """'5GB' / '500MB' / 1_000_000 -> bytes (decimal units, as transformers uses)."""
    if isinstance(size, int):
        return size
    text = size.strip().upper()
    for unit, scale in (("GIB", 2**30), ("MIB", 2**20), ("KIB", 2**10), ("GB", 10**9), ("MB", 10**6),
                        ("KB", 10**3), ("B", 1)):
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * scale)
    return int(text)


def _plan_shards(tensors: dict[str, torch.Tensor], max_bytes: int) -> list[dict[str, torch.Tensor]]:
    shards: list[dict[str, torch.Tensor]] = [{}]
    filled = 0
    for name, tensor in tensors.items():
        size = tensor.numel() * tensor.element_size()
        if shards[-1] and filled + size > max_bytes:
            shards.append({})
            filled = 0
        shards[-1][name] = tensor
        filled += size
    return shards


def _save_safetensors(tensors: dict[str, torch.Tensor], path: Path) -> None:
    fd, tmp = temp_beside(path)
    os.close(fd)
    try:
        save_file(tensors, tmp, metadata={"format": "pt"})
        os.chmod(tmp, 0o666 & ~current_umask())  # safetensors writes its file 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_pretrained(model: Transformer, folder: str | os.PathLike, *, tokenizer=None,
                    lineage: dict | None = None, max_shard_size: int | str = DEFAULT_MAX_SHARD) -> Path:
    """Write config.json, the weights (one file, or shards + index json), tokenizer, lineage.json."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = model.state_dict()
    if model.args.tie_embeddings:
        state.pop("lm_head.weight", None)  # the same storage as the embedding; HF drops it too
    tensors = {k: v.detach().to("cpu").contiguous() for k, v in state.items()}
    dtype = next(iter(tensors.values())).dtype
    shards = _plan_shards(tensors, parse_size(max_shard_size))
    names = ([SINGLE] if len(shards) == 1 else
             [f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors" for i in range(len(shards))])
    for old in folder.glob("model*.safetensors*"):
        if old.name not in names:
            old.unlink()  # leftovers of an earlier save with a different sharding
    for name, shard in zip(names, shards):
        _save_safetensors(shard, folder / name)
    if len(shards) > 1:
        total = sum(t.numel() * t.element_size() for t in tensors.values())
        weight_map = {key: name for name, shard in zip(names, shards) for key in shard}
        write_json(folder / INDEX, {"metadata": {"total_size": total}, "weight_map": weight_map})
    ids = {}
    if tokenizer is not None:
        tokenizer.save(folder)
        ids = {"bos_id": tokenizer.bos_id, "eos_id": tokenizer.eos_id, "pad_id": tokenizer.pad_id}
    write_json(folder / CONFIG, config_to_hf(model.args, dtype=dtype, **ids))
    write_json(folder / LINEAGE, lineage or {})
    return folder


def _weight_files(folder: Path) -> list[Path]:
    if (folder / INDEX).is_file():
        weight_map = read_json(folder / INDEX)["weight_map"]
        return [folder / name for name in sorted(set(weight_map.values()))]
    if (folder / SINGLE).is_file():
        return [folder / SINGLE]
    found = sorted(folder.glob("*.safetensors"))
    if not found:
        raise QuarryError(f"{folder}: no model.safetensors or {INDEX}")
    return found


def load_state_dict(folder: str | os.PathLike, device=None) -> dict[str, torch.Tensor]:
    """Every tensor of a safetensors checkpoint; HF base-model keys gain the ``model.`` prefix."""
    state = {}
    for path in _weight_files(Path(folder)):
        with safe_open(path, framework="pt", device=str(device or "cpu")) as fh:
            for key in fh.keys():
                name = key if key.startswith(("model.", "lm_head.")) else f"model.{key}"
                state[name] = fh.get_tensor(key)
    return state


def load_config(folder: str | os.PathLike) -> ModelArgs:
    path = Path(folder) / CONFIG
    if not path.is_file():
        raise QuarryError(f"{folder}: not a model folder (no {CONFIG})")
    try:
        return config_from_hf(json.loads(path.read_text(encoding="utf-8")))
    except json.JSONDecodeError as exc:
        raise QuarryError(f"{path}: invalid JSON: {exc}") from None


def load_pretrained(folder: str | os.PathLike, device=None, dtype: torch.dtype | None = None) -> Transformer:
    """A Transformer from a folder that Quarry or transformers saved (or a hub id, see hub.resolve)."""
    folder = resolve(folder)
    args = load_config(folder)
    state = load_state_dict(folder, device)
    if args.tie_embeddings:
        state.pop("lm_head.weight", None)
    with torch.device("meta"):
        model = Transformer(args)
    if dtype is not None:
        state = {k: v.to(dtype) for k, v in state.items()}
    missing, unexpected = model.load_state_dict(state, strict=False, assign=True)
    missing = [k for k in missing if not (args.tie_embeddings and k == "lm_head.weight")]
    if missing or unexpected:
        raise QuarryError(f"{folder}: weights do not match config.json "
                          f"(missing {missing[:3]}, unexpected {unexpected[:3]})")
    model.tie_weights()
    return model.eval()


def load_lineage(folder: str | os.PathLike) -> dict:
    path = Path(folder) / LINEAGE
    return read_json(path) if path.is_file() else {}

"""Scoring for the evaluate stage (quarry.stages.evaluate): a checkpoint's BPB on each shard of a
dataset's test split, the report built from the shards' totals, bpb.json and plots written and
logged to MLflow with the checkpoint's lineage, the checkpoint optionally registered."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from quarry import tracking
from quarry.eval.bpb import BpbResult, score_records
from quarry.config import compute
from quarry.config.training import EvaluateParams
from quarry.errors import ConfigError, QuarryError
from quarry.eval.plots import bpb_bar_chart, loss_curve
from quarry.datasets.lineage import checkpoint_hash, lineage_chain, lineage_summary, split_shards
from quarry.models.checkpoint import load_pretrained
from quarry.models.hub import resolve
from quarry.records import JsonDict, Record, read_json, read_records, shard_paths, write_json
from quarry.tokenizer import Tokenizer
from quarry.training.config import instantiate
from quarry.training.lora import apply_lora, load_adapter, merge_lora

LOSS_KEYS = ("loss", "train_loss", "train/loss")


def pick_device(name: str | None) -> str:
    import torch

    if name in (None, "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def load_for_eval(checkpoint: str | os.PathLike, device: str = "cpu", dtype: str = "float32"):
    """(model, tokenizer) of a checkpoint folder in Hugging Face layout (any supported family)."""
    try:
        torch_dtype = compute.torch_dtype(dtype)
    except ValueError as exc:
        raise ConfigError(f"params evaluate.dtype: {exc}") from None
    folder = Path(checkpoint)
    if (folder / "config.json").is_file():
        model, base = load_pretrained(folder, device=device, dtype=torch_dtype), None
    else:
        model, base = load_adapter_checkpoint(folder, device, torch_dtype)
    with_tokenizer = next((f for f in (folder, base) if f is not None and (f / "tokenizer.json").is_file()), None)
    tokenizer = Tokenizer.load(with_tokenizer) if with_tokenizer else recipe_tokenizer(folder)
    if getattr(tokenizer, "vocab_size", 0) > model.args.vocab_size:
        raise QuarryError(f"{checkpoint}: its tokenizer has {tokenizer.vocab_size} ids, the model embeds only "
                          f"{model.args.vocab_size}")
    if getattr(tokenizer, "bos_id", None) is None:
        raise QuarryError(f"{checkpoint}: its tokenizer has no BOS token; BPB conditions the first token on it")
    return model, tokenizer


def load_adapter_checkpoint(folder: Path, device: str, dtype):
    """(model with the adapter merged in, base model folder) of a LoRA checkpoint exported without
    merging: ``folder/adapter`` (PEFT layout) over the base model its lineage names."""
    adapter = folder / "adapter"
    if not (adapter / "adapter_config.json").is_file():
        raise QuarryError(f"{folder}: not a checkpoint (no config.json, no adapter/adapter_config.json)")
    config = read_json(adapter / "adapter_config.json")
    lineage = read_json(folder / "lineage.json") if (folder / "lineage.json").is_file() else {}
    base_ref = lineage.get("base_model") or config.get("base_model_name_or_path")
    if not base_ref:
        raise QuarryError(f"{adapter}: the adapter does not name its base model")
    base = Path(resolve(base_ref))
    model = load_pretrained(base, device=device, dtype=dtype)
    apply_lora(model, rank=int(config["r"]), alpha=float(config["lora_alpha"]),
               target_modules=config["target_modules"])
    load_adapter(model, adapter)
    return merge_lora(model).eval(), base


def recipe_tokenizer(checkpoint: str | os.PathLike):
    """The tokenizer a checkpoint without tokenizer.json was trained with: the component its
    recipe config names (a byte tokenizer needs no file)."""
    lineage_path = Path(checkpoint) / "lineage.json"
    node = ((read_json(lineage_path) if lineage_path.is_file() else {}).get("config") or {}).get("tokenizer")
    if not node:
        raise QuarryError(f"{checkpoint}: no tokenizer.json, and no tokenizer in its lineage.json's recipe config")
    return instantiate(node)


def evaluation_shards(data: str | os.PathLike, split: str = "test") -> list[Path]:
    """The shards to score, in order: one split of a dataset version (a folder with manifest.json,
    or with a ``<split>/`` folder), or every shard of any other jsonl / jsonl.zst file or folder."""
    data = Path(data)
    if not data.exists():
        raise QuarryError(f"{data}: no such file or folder to evaluate on")
    if (data / "manifest.json").is_file():
        shards = split_shards(data, split)
        splits = read_json(data / "manifest.json").get("splits") or {}
        if split not in splits:
            raise QuarryError(f"{data}: no split '{split}'; splits: {', '.join(splits)}")
        return shards
    folder = data / split if (data / split).is_dir() else data
    return [shard for shard in shard_paths(folder) if "rejects" not in shard.parts]


def shard_records(shard: str | os.PathLike, subsets: list[str] | None = None,
                  max_docs: int | None = None) -> Iterator[Record]:
    """The records of one shard to score: those of ``subsets`` (all when None), at most ``max_docs``."""
    wanted = set(subsets) if subsets else None
    count = 0
    for record in read_records(shard):
        if max_docs is not None and count >= max_docs:
            return
        if wanted is not None and (record.get("meta") or {}).get("pile_set_name") not in wanted:
            continue
        count += 1
        yield record


def evaluation_records(data: str | os.PathLike, split: str = "test", subsets: list[str] | None = None,
                       max_docs: int | None = None) -> Iterator[Record]:
    """The records ``evaluation_shards`` holds, in order (``max_docs`` over all of them)."""
    left = max_docs
    for shard in evaluation_shards(data, split):
        for record in shard_records(shard, subsets, left):
            if left is not None:
                left -= 1
            yield record
        if left is not None and left <= 0:
            return


def context_of(model: Any, configured: int | None) -> int:
    if configured:
        return int(configured)
    args = getattr(model, "args", None) or getattr(model, "config", None)
    for name in ("max_seq_len", "max_position_embeddings"):
        if getattr(args, name, None):
            return int(getattr(args, name))
    raise ConfigError("params evaluate.context_len: the model does not say its context length; set it")


def _scoring_setup(checkpoint: str | os.PathLike, cfg: EvaluateParams):
    device = pick_device(cfg.device)
    model, tokenizer = load_for_eval(checkpoint, device, cfg.dtype)
    context = context_of(model, cfg.context_len)
    options = {"context_len": context, "stride": cfg.stride or max(1, context // 2),
               "batch_size": cfg.batch_size, "device": device}
    return model, tokenizer, options


def score_shard(checkpoint: str | os.PathLike, shard: str | os.PathLike, cfg: EvaluateParams = EvaluateParams(),
                max_docs: int | None = None) -> JsonDict:
    """BPB totals of one shard (a BpbResult dict): the unit the evaluate stage maps.
    ``merge_shards`` adds the shards of a split back into one result."""
    model, tokenizer, options = _scoring_setup(checkpoint, cfg)
    return score_records(model, tokenizer, shard_records(shard, cfg.subsets, max_docs), **options).to_dict()


def document_limits(shards: list[Path], subsets: list[str] | None, max_docs: int | None) -> list[int | None]:
    """How many documents each shard may score so that the first ``max_docs`` of the split are."""
    if max_docs is None:
        return [None] * len(shards)
    limits, left = [], max_docs
    for shard in shards:
        take = sum(1 for _ in shard_records(shard, subsets, left)) if left else 0
        limits.append(take)
        left -= take
    return limits


def merge_shards(results: list[JsonDict]) -> BpbResult:
    """One result from per-shard results, added in the order given."""
    merged = BpbResult(context_len=results[0]["context_len"] if results else 0,
                       stride=results[0]["stride"] if results else 0)
    for result in results:
        merged.merge(BpbResult.from_dict(result))
    return merged


def build_report(result: BpbResult, checkpoint: str | os.PathLike, data: str | os.PathLike,
                 split: str, subsets: list[str] | None = None) -> JsonDict:
    manifest_path = Path(data) / "manifest.json"
    manifest = read_json(manifest_path) if manifest_path.is_file() else {}
    body = result.to_dict()
    report = {"checkpoint": {"path": str(checkpoint), "hash": checkpoint_hash(Path(checkpoint))},
              "dataset": {"path": str(data), "version": manifest.get("version"), "split": split},
              "bpb": body["aggregate"]["bpb"], **body}  # bpb: the headline number (byte-weighted aggregate)
    if unscored := unscored_subsets(manifest, split, body["subsets"], subsets):
        report["unscored"] = unscored
    return report


def unscored_subsets(manifest: JsonDict, split: str, scored: JsonDict, wanted: list[str] | None) -> dict[str, str]:
    """Subsets of the dataset version the report has no BPB for, and why (the Pile reports every one)."""
    composition = manifest.get("composition") or {}
    in_split = (composition.get("by_split_and_subset") or {}).get(split) or {}
    missing = {}
    for subset in sorted(composition.get("by_subset") or {}):
        if subset in scored or (wanted and subset not in wanted):
            continue
        missing[subset] = (f"no document in the {split} split" if not in_split.get(subset, {}).get("documents")
                           else "not reached within evaluate.max_docs")
    return missing


def checkpoint_label(checkpoint: str | os.PathLike) -> str:
    """A checkpoint's name for people: its run folder for a recipe's ``final/``."""
    path = Path(checkpoint)
    return path.parent.name if path.name == "final" else path.name


def publish_report(report: JsonDict, checkpoint: str | os.PathLike, out_dir: str | os.PathLike,
                   cfg: EvaluateParams = EvaluateParams(), *, track: bool | None = None) -> JsonDict:
    """Write the report and its plot into ``out_dir`` and, unless disabled, log them to MLflow."""
    if not report["aggregate"]["docs"]:
        where = report.get("dataset") or {}
        raise QuarryError(f"{where.get('path', checkpoint)}: no documents to score in the "
                          f"{where.get('split', 'selected')} split (is the dataset too small for its split fractions?)")
    out_dir = Path(out_dir)
    write_json(out_dir / "bpb.json", report)
    plots = [bpb_bar_chart(report, out_dir / "bpb.png", title=f"bits per byte: {checkpoint_label(checkpoint)}")]
    if not (cfg.mlflow if track is None else track):
        return report
    run_id = log_report(report, checkpoint, plots, out_dir, cfg)
    return {**report, "mlflow_run_id": run_id}


def log_report(report: JsonDict, checkpoint: str | os.PathLike, plots: list[Path], out_dir: Path,
               cfg: EvaluateParams) -> str:
    """Log the report to the checkpoint's training run (or a new run linked to it)."""
    chain = lineage_chain(checkpoint)
    training_run = chain["checkpoint"].get("mlflow_run_id")
    if tracking.run_exists(training_run):
        for key in LOSS_KEYS:
            history = tracking.metric_history(training_run, key)
            if history:
                plots.append(loss_curve(history, out_dir / "loss.png",
                                        title=f"training {key}: {checkpoint_label(checkpoint)}"))
                break
    settings_logged = cfg.model_dump(include={"split", "context_len", "stride", "batch_size", "dtype"})
    settings_logged["context_len"] = report["context_len"]
    settings_logged["stride"] = report["stride"]
    run_id = tracking.log_evaluation(report, training_run_id=training_run, run_name=f"eval {checkpoint_label(checkpoint)}",
                                     experiment=cfg.experiment, artifacts=[*plots, out_dir / "bpb.json"],
                                     lineage=chain, lineage_summary=lineage_summary(chain),
                                     dataset_hash=report["dataset"]["version"],
                                     dataset_path=report["dataset"]["path"], settings=settings_logged)
    if cfg.register_model:
        tracking.register_checkpoint(Path(checkpoint), cfg.register_model, run_id=run_id, lineage=lineage_summary(chain))
    return run_id

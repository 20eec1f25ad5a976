"""Bits per byte cross-checked with lm-evaluation-harness, the number users cite.

The checkpoint is exported as a Hugging Face folder; each subset of the split becomes a local
lm-eval task (JSONL, ``loglikelihood_rolling``, ``bits_per_byte``) and lm-eval's ``hf`` model scores
it with ``max_length`` = Quarry's context. lm-eval's rolling windows do not overlap (each new
window predicts ``max_length`` tokens, conditioned on the tokens before them in that window), which
is Quarry's ``stride = context_len``; the first token is conditioned on BOS in both. Both figures
and their difference are reported per subset.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from quarry.eval.bpb import DEFAULT_SUBSET, score_records
from quarry.errors import QuarryError
from quarry.config.training import EvaluateParams
from quarry.eval.scoring import context_of, evaluation_records, load_for_eval, pick_device
from quarry.models.checkpoint import save_pretrained
from quarry.records import JsonDict


def lm_eval_version() -> str:
    try:
        from importlib.metadata import version

        return version("lm_eval")
    except Exception:  # noqa: BLE001 - PackageNotFoundError, or a broken install
        raise QuarryError("--cross-check lm-eval needs lm-evaluation-harness: pip install -e .[eval]") from None


def task_name(subset: str) -> str:
    return "quarry_bpb_" + re.sub(r"[^0-9A-Za-z]+", "_", subset).strip("_").lower()


def write_tasks(documents: dict[str, list[str]], folder: Path) -> dict[str, str]:
    """One lm-eval task per subset (its documents as JSONL); returns {subset: task name}."""
    import json

    import yaml

    names = {}
    for subset, texts in sorted(documents.items()):
        name = names[subset] = task_name(subset)
        data = folder / f"{name}.jsonl"
        data.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts), encoding="utf-8")
        task = {"task": name, "dataset_path": "json",
                "dataset_kwargs": {"data_files": {"test": str(data)}, "cache_dir": str(folder / "hf-datasets")},
                "test_split": "test", "output_type": "loglikelihood_rolling",
                "doc_to_text": "", "doc_to_target": "text",
                "metric_list": [{"metric": "bits_per_byte", "aggregation": "bits_per_byte",
                                 "higher_is_better": False}]}
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(task, sort_keys=False), encoding="utf-8")
    return names


def run_lm_eval(hf_folder: Path, tasks_dir: Path, tasks: list[str], *, context_len: int, batch_size: int,
                device: str, dtype: str) -> dict[str, float]:
    """lm-eval's bits_per_byte of each task."""
    import lm_eval
    from lm_eval.tasks import TaskManager

    results = lm_eval.simple_evaluate(
        model="hf", model_args={"pretrained": str(hf_folder), "dtype": dtype, "max_length": context_len},
        tasks=tasks, task_manager=TaskManager(include_path=str(tasks_dir)), batch_size=batch_size,
        device=device, log_samples=False)
    return {task: float(results["results"][task]["bits_per_byte,none"]) for task in tasks}


def cross_check(checkpoint: str | os.PathLike, data: str | os.PathLike, cfg: EvaluateParams = EvaluateParams(),
                *, work_dir: str | os.PathLike | None = None) -> JsonDict:
    """Quarry's BPB and lm-eval's per subset on the same documents, context and windows."""
    version = lm_eval_version()
    device = pick_device(cfg.device)
    model, tokenizer = load_for_eval(checkpoint, device, cfg.dtype)
    if not hasattr(tokenizer, "save"):
        raise QuarryError(f"{checkpoint}: lm-eval needs a Hugging Face tokenizer (tokenizer.json); "
                          f"this checkpoint's is {type(tokenizer).__name__}")
    context = context_of(model, cfg.context_len)
    records = list(evaluation_records(data, cfg.split, cfg.subsets, cfg.max_docs))
    if not records:
        raise QuarryError(f"{data}: no documents in split '{cfg.split}' to cross-check")
    ours = score_records(model, tokenizer, records, context_len=context, stride=context,
                         batch_size=cfg.batch_size, device=device)
    documents: dict[str, list[str]] = {}
    for record in records:
        documents.setdefault((record.get("meta") or {}).get("pile_set_name") or DEFAULT_SUBSET, []).append(record["text"])
    with tempfile.TemporaryDirectory(prefix="quarry-lm-eval-", dir=work_dir) as tmp:
        hf_folder, tasks_dir = Path(tmp) / "hf", Path(tmp) / "tasks"
        tasks_dir.mkdir()
        save_pretrained(model.float().cpu(), hf_folder, tokenizer=tokenizer)
        names = write_tasks(documents, tasks_dir)
        theirs = run_lm_eval(hf_folder, tasks_dir, list(names.values()), context_len=context,
                             batch_size=cfg.batch_size, device=device, dtype=cfg.dtype)
    subsets = {}
    for subset, name in names.items():
        q, l = ours.subsets[subset].bpb, theirs[name]
        subsets[subset] = {"quarry": q, "lm_eval": l, "difference": l - q, "docs": ours.subsets[subset].docs}
    return {"checkpoint": str(checkpoint), "dataset": str(data), "split": cfg.split, "context_len": context,
            "stride": context, "lm_eval_version": version, "subsets": subsets,
            "max_abs_difference": max(abs(s["difference"]) for s in subsets.values())}

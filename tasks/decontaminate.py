"""Decontamination as cached Prefect tasks:

    eval_items_task (per shard: its test-split n-grams) -> build_eval_index_task (once, adds the
    eval files) -> decontaminate_shard_task (per shard)
"""

from __future__ import annotations

from pathlib import Path

from quarry.curate.decontaminate import (
    DecontaminationConfig,
    EvalIndex,
    decontaminate_shard,
    eval_file_items,
    resolve_eval_file,
    test_split_items,
)
from tasks.caching import cached_task


def _config(params: dict) -> DecontaminationConfig:
    return DecontaminationConfig.from_params(params)


@cached_task(task_run_name="eval n-grams {src.name}")
def eval_items_task(src: Path, params: dict) -> list:
    """(label, n-gram hashes) of the shard's documents in the held-out test split."""
    config = _config(params)
    return test_split_items(str(src), config) if config.test_split is not None else []


@cached_task(task_run_name="eval index")
def build_eval_index_task(items: list, eval_files: list[Path], index_dir: str, params: dict) -> str:
    """Write the evaluation n-gram index (test-split items plus eval files) into ``index_dir``."""
    config = _config(params)
    all_items = list(items)
    for path in eval_files:
        all_items.extend(eval_file_items(resolve_eval_file(path), config))
    folder = Path(index_dir)
    folder.mkdir(parents=True, exist_ok=True)
    EvalIndex.build(all_items, config).save(folder)
    return str(folder)


@cached_task(task_run_name="decontaminate {src.name}")
def decontaminate_shard_task(src: Path, dst: str, index_dir: Path, params: dict, rejects: str) -> dict:
    """Drop or flag one shard's contaminated documents; returns its ledger and matches."""
    ledger, matches = decontaminate_shard(src, Path(dst), EvalIndex.load(index_dir), _config(params),
                                          rejects=Path(rejects))
    return {"ledger": ledger.to_dict(), "matches": matches}

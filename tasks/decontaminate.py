"""Decontamination as cached Prefect tasks:

    eval_items_task (per shard: its test-split n-grams) -> build_eval_index_task (once, adds the
    eval files) -> scan_shard_task (per shard: overlaps) -> decide_task (once: drops n-grams common
    in training, decides) -> apply_shard_task (per shard: drop or flag, matches for the report)
"""

from __future__ import annotations

from pathlib import Path

from prefect import unmapped

from quarry.curate.decontaminate import (
    REPORT,
    STAGE,
    DecontaminationConfig,
    EvalIndex,
    ShardHits,
    apply_shard,
    contamination_report,
    decide,
    eval_file_items,
    scan_shard,
    test_split_items,
)
from quarry.parallel import input_shards, relative_name
from quarry.records import write_json
from tasks.caching import cached_task
from tasks.shards import map_shard_stage


def _config(params: dict) -> DecontaminationConfig:
    return DecontaminationConfig.from_params(params)


@cached_task(task_run_name="eval n-grams {src.name}")
def eval_items_task(src: Path, params: dict) -> list:
    """(label, n-gram hashes, window) of the shard's documents in the held-out test split."""
    config = _config(params)
    return test_split_items(str(src), config) if config.test_split is not None else []


@cached_task(task_run_name="eval index")
def build_eval_index_task(items: list, eval_files: list[Path], index_dir: str, params: dict) -> str:
    """Write the evaluation n-gram index (test-split items plus eval files) into ``index_dir``."""
    config = _config(params)
    all_items = list(items)
    for path in eval_files:
        all_items.extend(eval_file_items(path, config))
    folder = Path(index_dir)
    folder.mkdir(parents=True, exist_ok=True)
    EvalIndex.build(all_items, config).save(folder)
    return str(folder)


@cached_task(task_run_name="decontaminate scan {src.name}")
def scan_shard_task(src: Path, index_dir: Path, params: dict) -> ShardHits:
    return scan_shard(src, EvalIndex.load(index_dir), _config(params))


@cached_task(task_run_name="decontaminate decide")
def decide_task(hits: list, index_dir: Path, params: dict) -> tuple[list[dict], int]:
    """Per shard (in order), row -> decision; and the n-grams ignored as common in training."""
    return decide(hits, EvalIndex.load(index_dir), _config(params))


@cached_task(outputs=("dst", "rejects"), task_run_name="decontaminate {src.name}")
def apply_shard_task(src: Path, dst: str, decisions: dict, params: dict, rejects: str) -> dict:
    """Drop or flag one shard's contaminated documents; returns its ledger and matches."""
    ledger, matches = apply_shard(src, Path(dst), decisions, _config(params), rejects=Path(rejects))
    return {"ledger": ledger.to_dict(), "matches": matches}


def decontaminate_with_tasks(src_dir: Path, dst_dir: Path, params: dict) -> dict:
    """Test-split n-grams per shard, one index, a scan per shard, one decision over all hits, then
    one task per shard applying it; writes ledger.json and the report of matches, returns the ledger."""
    src_dir, dst_dir = Path(src_dir), Path(dst_dir)
    config = _config(params)
    shards = input_shards(src_dir)
    items = [item for f in eval_items_task.map(shards, unmapped(params)) for item in f.result()]
    index_dir = Path(build_eval_index_task(items, [Path(p) for p in config.eval_files],
                                           str(dst_dir.parent / f".{dst_dir.name}-index"), params))
    hits = [f.result() for f in scan_shard_task.map(shards, unmapped(index_dir), unmapped(params))]
    decided, train_common = decide_task(hits, index_dir, params)
    decisions = dict(zip((relative_name(s, src_dir) for s in shards), decided))
    ledger, results = map_shard_stage(apply_shard_task, STAGE, src_dir, dst_dir, ledger_of=lambda r: r["ledger"],
                                      per_shard=lambda name: {"decisions": decisions[name]}, params=params)
    matches = [m for r in results for m in r["matches"]]
    report = contamination_report(config, EvalIndex.load(index_dir), train_common, matches)
    ledger["contamination"] = {key: value for key, value in report.items() if key != "matches"}
    write_json(dst_dir / REPORT, report)
    write_json(dst_dir / "ledger.json", ledger)
    return ledger

"""The decontamination stage: test-split n-grams and a split census per shard -> the stratified
splits (recorded for assembly) and one evaluation index -> overlaps per shard -> how common each
index n-gram is in training, over all shards (common ones are boilerplate) -> per shard, the
decision and drop or flag, with a report of every match."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from quarry.config import Params
from quarry.curation.decontaminate.overlap import (
    REPORT,
    STAGE,
    DecontaminationConfig,
    EvalIndex,
    ShardHits,
    TrainCounts,
    Verdicts,
    apply_shard,
    contamination_report,
    decide_shard,
    eval_file_items,
    moved_test_items,
    scan_shard,
    test_split_items,
)
from quarry.engine import Global, GlobalJob, ItemJob, Map, ShardJob, Stage, WorkItem, per_process
from quarry.infra.hashing import file_hash, tree_hash
from quarry.records import atomic_write_bytes, write_json
from quarry.splits import SPLITS_FILE, SplitCensus, Splits, stratify, write_record


def eval_items_phase(job: ShardJob, config: DecontaminationConfig) -> dict:
    """The shard's test-split items (their n-grams) in the shard's work folder - together they are
    far larger than a task result should be (110 MiB of Dask graph on 250 MB of code) - and its
    split census (a few ids per subset)."""
    items, census = test_split_items(str(job.src), config)
    target = Path(job.work) / "eval_items.pickle"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(pickle.dumps(items, protocol=5))
    return {"items": target, "census": census.to_dict()}


def index_phase(job: GlobalJob, config: DecontaminationConfig) -> dict:
    """The stratified splits over every shard's census, then the index of the test split's items
    (those by hash, and those stratification moved in) and of the benchmark files."""
    found = job.results["eval_items"]
    census = SplitCensus.merged(SplitCensus.from_dict(shard["census"]) for shard in found)
    splits = Splits(config.fractions, stratify(census, config.fractions, config.stratify))
    items = [item for shard in found for item in pickle.loads(Path(shard["items"]).read_bytes())]
    items.extend(moved_test_items(census, splits, config))
    for name in config.eval_files:
        items.extend(eval_file_items(name, config))
    folder = Path(job.work)
    folder.mkdir(parents=True, exist_ok=True)
    EvalIndex.build(items, config).save(folder)
    # the folder by name and its digest: every scan task's cache key covers the index by its
    # digest, not by hashing the folder again
    return {"index": str(folder), "digest": tree_hash(folder), "moved": dict(splits.moved),
            "census": census.counts}


def _index(built: dict) -> EvalIndex:
    return per_process(("eval-index", str(built["index"]), built["digest"]), lambda: EvalIndex.load(Path(built["index"])))


def scan_shard_phase(job: ShardJob, config: DecontaminationConfig) -> Path:
    """The shard's overlaps with the index, in its work folder (a file, like the eval items: the
    decision reads every shard's, and results travel through the task runner)."""
    target = Path(job.work) / "hits.pickle"
    target.parent.mkdir(parents=True, exist_ok=True)
    splits = Splits(config.fractions, job.inputs["index"]["moved"])
    target.write_bytes(pickle.dumps(scan_shard(job.src, _index(job.inputs["index"]), config, splits), protocol=5))
    return target


def _hits(path: Path) -> ShardHits:
    return pickle.loads(Path(path).read_bytes())


SHARDS_PER_COUNT = 1000   # shards whose hits one counting partition sums (an index-sized array each)


def counting_phase(job: GlobalJob, config: DecontaminationConfig) -> dict:
    """The shards' hits in ranges, one counting partition each (a list of its shards' files)."""
    hits = [str(found) for found in job.results["scan"]]
    folder = Path(job.work).parent / "count"
    items = []
    for start in range(0, len(hits), SHARDS_PER_COUNT):
        part = len(items)
        listed, out = folder / f"{part:05d}.hits.json", folder / f"{part:05d}.counts.npz"
        atomic_write_bytes(listed, orjson.dumps(hits[start:start + SHARDS_PER_COUNT]), durable=False)
        items.append(WorkItem(f"shards {start + 1}-{min(start + SHARDS_PER_COUNT, len(hits))}",
                              {"hits": str(listed), "out": str(out)}, (str(out),)))
    return {"items": items}


def count_phase(job: ItemJob, config: DecontaminationConfig) -> dict:
    """How many training documents of a range of shards hold each index n-gram."""
    index = _index(job.inputs["index"])
    counts = TrainCounts.of(map(_hits, orjson.loads(Path(job.item["hits"]).read_bytes())), index)
    counts.save(Path(job.item["out"]))
    return {"counts": job.item["out"]}


def common_phase(job: GlobalJob, config: DecontaminationConfig) -> dict:
    """The counts of every range summed: which index n-grams are common in training; the verdicts
    every shard's decision needs go to a file (index-sized, too large for a result)."""
    index = _index(job.results["index"])
    counts = TrainCounts(np.zeros(len(index.hashes), dtype=np.int64))
    for found in job.results["count"]:
        counts.merge(TrainCounts.load(Path(found["counts"])))
    verdicts = Verdicts.of(counts, index, config)
    folder = Path(job.work)
    folder.mkdir(parents=True, exist_ok=True)
    verdicts.save(folder / "verdicts.npz")
    return {"verdicts": str(folder / "verdicts.npz"), "digest": file_hash(folder / "verdicts.npz"),
            "ignored_common_in_train": verdicts.ignored_common}


def apply_shard_phase(job: ShardJob, config: DecontaminationConfig) -> dict:
    found, index = job.inputs["common"], _index(job.inputs["index"])
    verdicts = per_process(("eval-verdicts", found["verdicts"], found["digest"]),
                           lambda: Verdicts.load(Path(found["verdicts"])))
    decisions = decide_shard(_hits(job.inputs["scan"]), index, verdicts, config)
    ledger, matches = apply_shard(job.src, Path(job.dst), decisions, config, rejects=Path(job.rejects))
    return {"ledger": ledger.to_dict(), "matches": matches}


def decontaminate_finish(job: GlobalJob, config: DecontaminationConfig) -> dict:
    results = job.results
    matches = [match for result in results["apply"] for match in result["matches"]]
    report = contamination_report(config, _index(results["index"]), results["common"]["ignored_common_in_train"],
                                  matches)
    write_json(Path(job.dst) / REPORT, report)
    write_record(Path(job.dst) / SPLITS_FILE, config.fractions, config.stratify, results["index"]["moved"],
                 results["index"]["census"])
    return {"contamination": {key: value for key, value in report.items() if key != "matches"}}


DECONTAMINATE = Stage(STAGE, folder="decontaminated", config=DecontaminationConfig.from_params,
                      finish=decontaminate_finish, phases=(
                          Map("eval_items", eval_items_phase),
                          Global("index", index_phase),
                          Map("scan", scan_shard_phase),
                          Global("counting", counting_phase, inline=True),
                          Map("count", count_phase, over="counting", cached=False),
                          Global("common", common_phase),
                          Map("apply", apply_shard_phase, writes=True),
                      ))


def decontaminate_with(**overrides: Any) -> Stage:
    """The stage with command-line values for config keys (``test_split``, ``eval_files`` added to
    those of params, ``action``...); None means not given."""
    def config(params: Params) -> DecontaminationConfig:
        return DecontaminationConfig.from_params(params).with_overrides(**overrides)

    return dataclasses.replace(DECONTAMINATE, config=config)

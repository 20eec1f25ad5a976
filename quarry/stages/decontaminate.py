"""The decontamination stage: test-split n-grams and a split census per shard -> the stratified
splits (recorded for assembly) and one evaluation index -> overlaps per shard -> how common each
index n-gram is in training, over all shards (common ones are boilerplate) -> per shard, the
decision and drop or flag, with a report of every match."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass
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
from quarry.engine import Global, GlobalJob, ItemJob, Map, Plan, ShardJob, Stage, WorkItem, Written, per_process
from quarry.infra.hashing import file_hash, tree_hash
from quarry.records import atomic_write_bytes, write_json
from quarry.splits import SPLITS_FILE, SplitCensus, Splits, stratify, write_record


@dataclass(frozen=True)
class ShardEvalItems:
    items: Path        # the shard's test-split items, pickled in its work folder
    census: dict       # its split census (SplitCensus.to_dict)


@dataclass(frozen=True)
class BuiltIndex:
    """The evaluation index's folder and digest, and the splits stratification chose."""

    index: str
    digest: str
    moved: dict
    census: dict


@dataclass(frozen=True)
class CountWork:
    hits: str          # the file listing the range's hits files
    out: str


@dataclass(frozen=True)
class CommonNgrams:
    """Which index n-grams are common in training (a file, index-sized), and how many were ignored."""

    verdicts: str
    digest: str
    ignored_common_in_train: int


@dataclass(frozen=True, kw_only=True)
class Decontaminated(Written):
    matches: list


def eval_items_phase(job: ShardJob, config: DecontaminationConfig) -> ShardEvalItems:
    """The shard's test-split items (their n-grams) in the shard's work folder - together they are
    far larger than a task result should be (110 MiB of Dask graph on 250 MB of code) - and its
    split census (a few ids per subset)."""
    items, census = test_split_items(str(job.src), config)
    target = Path(job.work) / "eval_items.pickle"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(pickle.dumps(items, protocol=5))
    return ShardEvalItems(target, census.to_dict())


def index_phase(job: GlobalJob, config: DecontaminationConfig) -> BuiltIndex:
    """The stratified splits over every shard's census, then the index of the test split's items
    (those by hash, and those stratification moved in) and of the benchmark files."""
    found = job.each(EVAL_ITEMS)
    census = SplitCensus.merged(SplitCensus.from_dict(shard.census) for shard in found)
    splits = Splits(config.fractions, stratify(census, config.fractions, config.stratify))
    items = [item for shard in found for item in pickle.loads(Path(shard.items).read_bytes())]
    items.extend(moved_test_items(census, splits, config))
    for name in config.eval_files:
        items.extend(eval_file_items(name, config))
    folder = Path(job.work)
    folder.mkdir(parents=True, exist_ok=True)
    EvalIndex.build(items, config).save(folder)
    # the folder by name and its digest: every scan task's cache key covers the index by its
    # digest, not by hashing the folder again
    return BuiltIndex(str(folder), tree_hash(folder), dict(splits.moved), census.counts)


def _index(built: BuiltIndex) -> EvalIndex:
    return per_process(("eval-index", built.index, built.digest), lambda: EvalIndex.load(Path(built.index)))


def scan_shard_phase(job: ShardJob, config: DecontaminationConfig) -> Path:
    """The shard's overlaps with the index, in its work folder (a file, like the eval items: the
    decision reads every shard's, and results travel through the task runner)."""
    target = Path(job.work) / "hits.pickle"
    target.parent.mkdir(parents=True, exist_ok=True)
    built = job.input(INDEX)
    splits = Splits(config.fractions, built.moved)
    target.write_bytes(pickle.dumps(scan_shard(job.src, _index(built), config, splits), protocol=5))
    return target


def _hits(path: Path) -> ShardHits:
    return pickle.loads(Path(path).read_bytes())


SHARDS_PER_COUNT = 1000   # shards whose hits one counting partition sums (an index-sized array each)


def counting_phase(job: GlobalJob, config: DecontaminationConfig) -> Plan:
    """The shards' hits in ranges, one counting partition each (a list of its shards' files)."""
    hits = [str(found) for found in job.each(SCAN)]
    folder = Path(job.work).parent / "count"
    items = []
    for start in range(0, len(hits), SHARDS_PER_COUNT):
        part = len(items)
        listed, out = folder / f"{part:05d}.hits.json", folder / f"{part:05d}.counts.npz"
        atomic_write_bytes(listed, orjson.dumps(hits[start:start + SHARDS_PER_COUNT]), durable=False)
        items.append(WorkItem(f"shards {start + 1}-{min(start + SHARDS_PER_COUNT, len(hits))}",
                              CountWork(str(listed), str(out)), (str(out),)))
    return Plan(items=items)


def count_phase(job: ItemJob, config: DecontaminationConfig) -> str:
    """How many training documents of a range of shards hold each index n-gram (a file, returned)."""
    work: CountWork = job.item
    counts = TrainCounts.of(map(_hits, orjson.loads(Path(work.hits).read_bytes())), _index(job.input(INDEX)))
    counts.save(Path(work.out))
    return work.out


def common_phase(job: GlobalJob, config: DecontaminationConfig) -> CommonNgrams:
    """The counts of every range summed: which index n-grams are common in training; the verdicts
    every shard's decision needs go to a file (index-sized, too large for a result)."""
    index = _index(job.of(INDEX))
    counts = TrainCounts(np.zeros(len(index.hashes), dtype=np.int64))
    for found in job.each(COUNT):
        counts.merge(TrainCounts.load(Path(found)))
    verdicts = Verdicts.of(counts, index, config)
    folder = Path(job.work)
    folder.mkdir(parents=True, exist_ok=True)
    verdicts.save(folder / "verdicts.npz")
    return CommonNgrams(str(folder / "verdicts.npz"), file_hash(folder / "verdicts.npz"), verdicts.ignored_common)


def apply_shard_phase(job: ShardJob, config: DecontaminationConfig) -> Decontaminated:
    common, index = job.input(COMMON), _index(job.input(INDEX))
    verdicts = per_process(("eval-verdicts", common.verdicts, common.digest), lambda: Verdicts.load(Path(common.verdicts)))
    decisions = decide_shard(_hits(job.input(SCAN)), index, verdicts, config)
    ledger, matches = apply_shard(job.src, Path(job.dst), decisions, config, rejects=Path(job.rejects))
    return Decontaminated(ledger=ledger.to_dict(), matches=matches)


def decontaminate_finish(job: GlobalJob, config: DecontaminationConfig) -> dict:
    built = job.of(INDEX)
    matches = [match for result in job.each(APPLY) for match in result.matches]
    report = contamination_report(config, _index(built), job.of(COMMON).ignored_common_in_train, matches)
    write_json(Path(job.dst) / REPORT, report)
    write_record(Path(job.dst) / SPLITS_FILE, config.fractions, config.stratify, built.moved, built.census)
    return {"contamination": {key: value for key, value in report.items() if key != "matches"}}


EVAL_ITEMS = Map("eval_items", eval_items_phase, ShardEvalItems)
INDEX = Global("index", index_phase, BuiltIndex)
SCAN = Map("scan", scan_shard_phase, Path)                  # the shard's hits file
COUNTING = Global("counting", counting_phase, Plan, inline=True)
COUNT = Map("count", count_phase, str, over="counting", cached=False)   # a range's counts file
COMMON = Global("common", common_phase, CommonNgrams)
APPLY = Map("apply", apply_shard_phase, Decontaminated, writes=True)
DECONTAMINATE = Stage(STAGE, folder="decontaminated", config=DecontaminationConfig.from_params,
                      finish=decontaminate_finish, phases=(EVAL_ITEMS, INDEX, SCAN, COUNTING, COUNT, COMMON, APPLY))


def decontaminate_with(**overrides: Any) -> Stage:
    """The stage with command-line values for config keys (``test_split``, ``eval_files`` added to
    those of params, ``action``...); None means not given."""
    def config(params: Params) -> DecontaminationConfig:
        return DecontaminationConfig.from_params(params).with_overrides(**overrides)

    return dataclasses.replace(DECONTAMINATE, config=config)

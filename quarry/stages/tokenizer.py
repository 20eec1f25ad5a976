"""The tokenizer stage: the DAG's tokenizer of a dataset version (its input folder).

A trained tokenizer learns from a deterministic sample of the train split (quarry.datasets.sample).
The plan turns the byte budget into rates by subset (from the version's manifest) and lists the
split's shards; a map takes each shard's sampled texts into a file of the stage's work folder
(keyed on the shard's content, kept for the next run's cache hits); the finish trains on those
files in shard order, so tokenizer.json is the same bytes for any worker count and executor, and
saves it with its lineage. With ``tokenizer.path`` (a model's own tokenizer) the plan lists
nothing and the finish takes that one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from quarry.config import Params
from quarry.config.training import TokenizerParams
from quarry.datasets.sample import (SampleCount, SamplePlan, describe, plan_sample, sample_shard, sampled_texts,
                                    split_folder, split_shards)
from quarry.engine import Global, GlobalJob, ItemJob, Map, Plan, Stage, WorkItem, run_local
from quarry.errors import QuarryError
from quarry.records import JsonDict, relative_name
from quarry.tokenizer import Tokenizer, dataset_hash, given_tokenizer, train_tokenizer

STAGE = "tokenizer"
SPLIT = "train"


@dataclass(frozen=True, kw_only=True)
class SamplePlanned(Plan):
    sample: SamplePlan | None   # None: a given tokenizer, nothing to sample (and no items)


@dataclass(frozen=True)
class ShardSample:
    shard: Path        # a record shard of the split: its content keys the map's cache
    plan: SamplePlan
    texts: str         # where the texts it takes go


@dataclass(frozen=True)
class ShardSampled:
    texts: str
    count: SampleCount


def plan_phase(job: GlobalJob, section: TokenizerParams) -> SamplePlanned:
    dataset = Path(job.src)
    if not dataset.is_dir():
        raise QuarryError(f"{dataset}: no such dataset folder")
    if section.path:
        return SamplePlanned(sample=None, items=[])
    plan = plan_sample(dataset, SPLIT, section.sample_mb)
    texts = Path(job.work).parent / "texts"
    items = []
    for shard in split_shards(dataset, plan.split):
        name = relative_name(shard, split_folder(dataset, plan.split))
        out = str(texts / f"{name.replace('/', '__')}.texts.jsonl.zst")
        items.append(WorkItem(name, ShardSample(shard, plan, out), (out,), shard.stat().st_size))
    return SamplePlanned(sample=plan, items=items)


def sample_phase(job: ItemJob, section: TokenizerParams) -> ShardSampled:
    work: ShardSample = job.item
    return ShardSampled(work.texts, sample_shard(work.shard, work.plan, work.texts))


def train_finish(job: GlobalJob, section: TokenizerParams) -> JsonDict:
    """The tokenizer, trained on the shards' samples in shard order (or the given one), saved."""
    planned = job.of(PLAN)
    if planned.sample is None:
        tokenizer = given_tokenizer(section.path, job.src)
    else:
        sampled = job.each(SAMPLE)
        tokenizer = train_tokenizer(sampled_texts(s.texts for s in sampled), vocab_size=section.vocab_size,
                                    special_tokens=section.special_tokens.model_dump(),
                                    dataset_hash=dataset_hash(job.src), min_frequency=section.min_frequency)
        tokenizer.origin = {"sample": describe(planned.sample, SampleCount.summed(s.count for s in sampled))}
    tokenizer.save(job.dst)
    return {"hash": tokenizer.hash, "vocab_size": tokenizer.vocab_size, "dataset_hash": tokenizer.dataset_hash}


# The plan reads the manifest and lists the shards (bookkeeping, uncached); a shard's sample is
# keyed on its content and the plan's rates. Its texts stay in the work folder for the next run.
PLAN = Global("plan", plan_phase, SamplePlanned, cached=False, inline=True)
SAMPLE = Map("sample", sample_phase, ShardSampled, over="plan")
TOKENIZER = Stage(STAGE, folder="", config=lambda params: params.tokenizer, finish=train_finish, reads_shards=False,
                  phases=(PLAN, SAMPLE))


def tokenizer_for(dataset: str | os.PathLike, out_dir: str | os.PathLike,
                  section: TokenizerParams = TokenizerParams(), *, workers: int = 1) -> Tokenizer:
    """The DAG's tokenizer of ``dataset`` saved in ``out_dir``, on local processes: the one
    ``tokenizer.path`` names, else one trained on a sample of the train split."""
    run_local(TOKENIZER, Path(dataset), Path(out_dir), Params(tokenizer=section), workers=workers)
    return Tokenizer.load(out_dir)

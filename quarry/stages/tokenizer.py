"""The tokenizer stage: the DAG's tokenizer of a dataset version (its input folder).

A trained tokenizer learns from a deterministic sample of the train split (quarry.datasets.sample).
The plan turns the byte budget into rates by subset (from the version's manifest) and lists the
split's shards; a map takes each shard's sampled texts into a file of the stage's work folder
(keyed on the shard's content, kept for the next run's cache hits); a global phase learns from
those files in shard order (keyed on their hashes), so tokenizer.json is the same bytes for any
worker count and executor; the finish saves it with its lineage. With ``tokenizer.path`` (a
model's own tokenizer) the plan lists nothing, nothing is learnt and the finish takes that one.
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
from quarry.infra.hashing import file_hash
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
    sha256: str        # the texts file's: what learning from it is keyed on


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


def sample_phase(job: ItemJob, _: None) -> ShardSampled:
    work: ShardSample = job.item
    count = sample_shard(work.shard, work.plan, work.texts)
    return ShardSampled(work.texts, count, file_hash(work.texts))


def learn_phase(job: GlobalJob, section: TokenizerParams) -> str:
    """The tokenizer trained on the shards' samples in shard order, saved in the phase's folder
    ("": a given tokenizer, nothing to learn). Keyed on the samples' content and the section, so
    a run over unchanged data finds it learnt (about a minute at 256 MB)."""
    planned = job.of(PLAN)
    if planned.sample is None:
        return ""
    sampled = job.each(SAMPLE)
    tokenizer = train_tokenizer(sampled_texts(s.texts for s in sampled), vocab_size=section.vocab_size,
                                special_tokens=section.special_tokens.model_dump(),
                                dataset_hash=dataset_hash(job.src), min_frequency=section.min_frequency)
    tokenizer.origin = {"sample": describe(planned.sample, SampleCount.summed(s.count for s in sampled))}
    tokenizer.save(job.work)
    return job.work


def save_finish(job: GlobalJob, section: TokenizerParams) -> JsonDict:
    """The learnt tokenizer, or the given one (read here, by path, on every run), saved."""
    learnt = job.of(LEARN)
    tokenizer = Tokenizer.load(learnt) if learnt else given_tokenizer(section.path, job.src)
    tokenizer.save(job.dst)
    return {"hash": tokenizer.hash, "vocab_size": tokenizer.vocab_size, "dataset_hash": tokenizer.dataset_hash}


# The plan reads the manifest and lists the shards (bookkeeping, uncached); a shard's sample is
# keyed on its content and the plan's rates alone (a new vocabulary size samples nothing again),
# the learning on the samples' hashes and the section. Both stay in the work folder for the next run.
PLAN = Global("plan", plan_phase, SamplePlanned, cached=False, inline=True)
SAMPLE = Map("sample", sample_phase, ShardSampled, over="plan", needs_config=False)
LEARN = Global("learn", learn_phase, str)
TOKENIZER = Stage(STAGE, folder="", config=lambda params: params.tokenizer, finish=save_finish, reads_shards=False,
                  phases=(PLAN, SAMPLE, LEARN))


def tokenizer_for(dataset: str | os.PathLike, out_dir: str | os.PathLike,
                  section: TokenizerParams = TokenizerParams(), *, workers: int = 1) -> Tokenizer:
    """The DAG's tokenizer of ``dataset`` saved in ``out_dir``, on local processes: the one
    ``tokenizer.path`` names, else one trained on a sample of the train split."""
    run_local(TOKENIZER, Path(dataset), Path(out_dir), Params(tokenizer=section), workers=workers)
    return Tokenizer.load(out_dir)

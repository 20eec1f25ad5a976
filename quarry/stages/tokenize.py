"""The tokenize stage: plan the token shards of a dataset version, its input folder (one per
record shard of each split), tokenise each (a map), write the manifest over all of them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from quarry.config import Params
from quarry.engine import Global, GlobalJob, ItemJob, Map, Plan, Stage, WorkItem, run_local
from quarry.paths import state_dir
from quarry.records import JsonDict
from quarry.datasets.reader import dataset_version
from quarry.training.tokens import (MANIFEST, TokenizeConfig, TokenShard, cache_key, load_tokenizer, plan, read_manifest,
                                    shard_files, tokenize_shard, tokenizer_spec, write_manifest)

STAGE = "tokenize"


@dataclass(frozen=True)
class TokenizeArgs:
    tokenizer: Path | dict  # a tokenizer folder (keyed by its content), or a config node naming a component


@dataclass(frozen=True, kw_only=True)
class TokenPlan(Plan):
    token_shards: list[TokenShard]   # items: one each, in the same order


@dataclass(frozen=True)
class TokenWork:
    shard: TokenShard
    tokenizer: Path | dict
    out_dir: str


def plan_phase(job: GlobalJob, config: TokenizeConfig) -> TokenPlan:
    args: TokenizeArgs = job.args
    shards = plan(job.src, config)
    items = [WorkItem(shard.name, TokenWork(shard, args.tokenizer, job.dst), tuple(map(str, shard_files(job.dst, shard))))
             for shard in shards]
    return TokenPlan(token_shards=shards, items=items)


def shard_phase(job: ItemJob, config: TokenizeConfig) -> dict:
    work: TokenWork = job.item
    return tokenize_shard(work.shard, tokenizer_spec(work.tokenizer), work.out_dir, config)


def manifest_finish(job: GlobalJob, config: TokenizeConfig) -> dict:
    args: TokenizeArgs = job.args
    return write_manifest(job.dst, job.src, tokenizer_spec(args.tokenizer), config, job.of(PLAN).token_shards,
                          job.each(SHARDS))


# The plan reads the dataset's manifest by path (uncached, cheap); a shard is keyed on its record
# shard's and the tokenizer's content.
PLAN = Global("plan", plan_phase, TokenPlan, cached=False)
SHARDS = Map("shards", shard_phase, dict, over="plan")   # a token shard's entry in the manifest
TOKENIZE = Stage(STAGE, folder="", config=TokenizeConfig.from_params, finish=manifest_finish, reads_shards=False,
                 keeps_work=False, phases=(PLAN, SHARDS))


def tokenize_dataset(dataset: str | os.PathLike, tokenizer: JsonDict | str | os.PathLike,
                     out_dir: str | os.PathLike, config: TokenizeConfig = TokenizeConfig(), *,
                     workers: int = 1) -> JsonDict:
    """Token shards of ``dataset`` in ``out_dir`` on local processes; returns the manifest.
    ``tokenizer``: a tokenizer folder, or a config node naming a tokenizer component."""
    tokenizer = tokenizer if isinstance(tokenizer, dict) else Path(tokenizer)
    return run_local(TOKENIZE, Path(dataset), Path(out_dir), Params(tokenize=config), workers=workers,
                     args=TokenizeArgs(tokenizer))


def cached_tokens(dataset: str | os.PathLike, tokenizer_cfg: JsonDict, config: TokenizeConfig,
                  cache_root: str | os.PathLike | None = None) -> Path:
    """Token shards of ``dataset`` in the project cache (.quarry/tokens/<key>), tokenised on the
    first call; the folder appears complete or not at all (the stage's output is swapped in whole)."""
    spec = tokenizer_spec(tokenizer_cfg)
    key = cache_key(dataset_version(dataset), str(load_tokenizer(spec).hash), config)
    folder = (Path(cache_root) if cache_root else state_dir() / "tokens") / key[:24]
    if not ((folder / MANIFEST).is_file() and read_manifest(folder)["key"] == key):
        tokenize_dataset(dataset, tokenizer_cfg, folder, config)
    return folder

"""Prefect tasks of the tokenize stage: one cached task per record shard (keyed on the shard's
and the tokenizer's content and the params); the flow then writes the manifest over all of them."""

from __future__ import annotations

from pathlib import Path

from quarry.training.tokens import ShardJob, TokenizeConfig, shard_files, tokenize_shard, tokenizer_spec
from tasks.caching import cached_task


@cached_task(outputs=("bin_file", "idx_file", "docs_file"), task_run_name="tokenize {name}")
def tokenize_shard_task(source: Path, tokenizer: Path, split: str, name: str, split_filter: str | None,
                        out_dir: str, config: dict, bin_file: Path, idx_file: Path, docs_file: Path) -> dict:
    """The three ``*_file`` arguments are the files the shard writes: the cache checks them."""
    job = ShardJob(split, source, name, split_filter)
    return tokenize_shard(job, tokenizer_spec(tokenizer), out_dir, TokenizeConfig(**config))


def shard_calls(jobs: list[ShardJob], tokenizer_dir: str, out_dir: str, config: TokenizeConfig) -> list[dict]:
    settings = {"splits": list(config.splits), "subset": config.subset, "batch_size": config.batch_size}
    return [{"source": job.source, "tokenizer": Path(tokenizer_dir), "split": job.split, "name": job.name,
             "split_filter": job.split_filter, "out_dir": out_dir, "config": settings,
             **dict(zip(("bin_file", "idx_file", "docs_file"), shard_files(out_dir, job)))} for job in jobs]

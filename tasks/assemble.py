"""Prefect tasks of the assemble stage: one cached task per split, then one that publishes.

A split task writes into its own work folder beside the dataset. Its cache key covers the task
code, the content of the source shards and params, and the content of that work folder; while
the folder is missing there is no key, so a deleted or half-written output is always rebuilt and
a cache hit always means the split's shards are on disk as they were written.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE, TASK_SOURCE, CachePolicy

from quarry.datasets.build import Plan, load_parent, plan, publish, staging_dir, tokenizer_id
from quarry.datasets.mixture import Mixture
from quarry.datasets.shards import write_split
from tasks.caching import ContentInputs, cached_task


@dataclass
class WhenOutputPresent(CachePolicy):
    """Content cache key, or none at all while the task's output folder does not exist."""

    output: str = "work"
    exclude: tuple[str, ...] = ("tokenizer",)

    def compute_key(self, task_ctx, inputs: dict[str, Any], flow_parameters: dict[str, Any], **kwargs) -> str | None:
        path = (inputs or {}).get(self.output)
        if path is None or not Path(path).exists():
            return None
        policy = TASK_SOURCE + ContentInputs(exclude=list(self.exclude))
        return policy.compute_key(task_ctx, inputs, flow_parameters, **kwargs)


def work_root(out_dir: Path) -> Path:
    return out_dir.parent / f".{out_dir.name}.splits"


@cached_task(cache_policy=WhenOutputPresent(), task_run_name="assemble {split}")
def assemble_split(sources: list[Path], work: Path, split: str, mixture: dict, options: dict,
                   tokenizer_key: str | None = None, tokenizer=None) -> dict:
    """Write one split's shards (and its rejects) under ``work``; returns files, composition, ledger.
    The tokenizer object is not hashed for the cache key; ``tokenizer_key`` (its id) is."""
    shutil.rmtree(work, ignore_errors=True)
    return write_split(sources, work, split, Mixture(**mixture), **options, tokenizer=tokenizer)


@task(task_run_name="publish {out_dir.name}", cache_policy=NO_CACHE)
def publish_version(out_dir: Path, params: dict, build: Plan, results: list[dict], *, snapshot_manifest=None,
                    ledgers: list = (), optout_registry_hash: str | None = None, tokenizer=None,
                    parent: str | None = None) -> dict:
    """Link every split's shards into a staging folder and publish it as the dataset version."""
    parent_info = load_parent(parent)
    staging = staging_dir(out_dir)
    root = work_root(out_dir)
    for result in results:
        work = root / result["split"]
        for path in sorted(p for p in work.rglob("*") if p.is_file()):
            target = staging / path.relative_to(work)
            target.parent.mkdir(parents=True, exist_ok=True)
            _link_or_copy(path, target)
    return publish(staging, out_dir, params, build, results, snapshot_manifest=snapshot_manifest, ledgers=ledgers,
                   optout_registry_hash=optout_registry_hash, tokenizer=tokenizer, parent=parent_info)


def assemble_tasks(src_dir: Path, out_dir: Path, params: dict, *, tokenizer=None, **publish_options) -> dict:
    """Run the stage as tasks (call inside a flow): the splits in parallel, then publish."""
    build = plan(src_dir, params)
    options = {k: v for k, v in build.split_options().items() if k != "tokenizer"}
    mixture = {"epochs": build.mixture.epochs, "fractions": build.mixture.fractions}
    futures = [assemble_split.submit(build.sources, work_root(out_dir) / split, split, mixture, options,
                                     tokenizer_id(tokenizer), tokenizer) for split in build.mixture.fractions]
    results = [future.result() for future in futures]
    return publish_version(out_dir, params, build, results, tokenizer=tokenizer, **publish_options)


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)

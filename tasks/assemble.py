"""Prefect tasks of the assemble stage: one cached task per split, then one that publishes.

A split task writes into its own work folder beside the dataset, which it declares as its output:
its cache key covers the task code, the content of the source shards and params (the folder by
name only), and ``run_verified`` rebuilds a hit whose folder was deleted or changed since, so a
cache hit always means the split's shards are on disk as they were written.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from prefect import task
from prefect.cache_policies import NO_CACHE, TASK_SOURCE

from quarry.datasets.build import Plan, load_parent, plan, publish, staging_dir, tokenizer_id
from quarry.datasets.mixture import Mixture
from quarry.datasets.shards import write_split
from tasks.caching import ContentInputs, cached_task, run_verified


def work_root(out_dir: Path) -> Path:
    return out_dir.parent / f".{out_dir.name}.splits"


# The tokenizer object is not hashed for the cache key; ``tokenizer_key`` (its id) is.
@cached_task(outputs=("work",), cache_policy=TASK_SOURCE + ContentInputs(exclude=["tokenizer"]),
             task_run_name="assemble {split}")
def assemble_split(sources: list[Path], work: str, split: str, mixture: dict, options: dict,
                   tokenizer_key: str | None = None, tokenizer=None) -> dict:
    """Write one split's shards (and its rejects) under ``work``; returns files, composition, ledger."""
    shutil.rmtree(work, ignore_errors=True)
    return write_split(sources, Path(work), split, Mixture(**mixture), **options, tokenizer=tokenizer)


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
    results = run_verified(assemble_split, [
        {"sources": build.sources, "work": str(work_root(out_dir) / split), "split": split, "mixture": mixture,
         "options": options, "tokenizer_key": tokenizer_id(tokenizer), "tokenizer": tokenizer}
        for split in build.mixture.fractions])
    return publish_version(out_dir, params, build, results, tokenizer=tokenizer, **publish_options)


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)

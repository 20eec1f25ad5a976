"""The assemble stage: plan the version (its source shards, the mixture), write each split (a
map over the splits, each into its own work folder), publish the version (manifest, datacard,
SHA256SUMS, the release registry) from the splits' shards."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quarry.config import Params
from quarry.datasets.build import Plan as BuildPlan, load_parent, plan, publish, staging_dir, tokenizer_id
from quarry.datasets.mixture import Mixture
from quarry.datasets.shards import STAGE, write_split
from quarry.engine import Global, GlobalJob, ItemJob, Keyed, Map, Plan, Stage, WorkItem, run_local
from quarry.curation.licenses.texts import standard_texts
from quarry.records import JsonDict


@dataclass(frozen=True)
class AssembleArgs:
    snapshot_manifest: str | dict | None = None     # the snapshot's manifest (for its id)
    ledgers: tuple = ()                            # upstream ledger.json files (or their folders), or dicts
    optout_registry_hash: str | None = None
    tokenizer: Any = None                          # adds token counts to the composition
    parent: str | None = None                      # the previous version (hash, label, folder)
    registry: str | None = None                    # the release registry (default: the project's)
    register: bool = True


@dataclass(frozen=True, kw_only=True)
class VersionPlan(Plan):
    """The version's source shards and mixture (items: one split each)."""

    build: BuildPlan


@dataclass(frozen=True)
class SplitWork:
    """One split to write into its own work folder."""

    sources: list
    split: str
    mixture: dict            # Mixture's fields (epochs, fractions, moved)
    options: dict            # write_split's shard-format keywords
    tokenizer: Keyed
    work: str


def assemble_config(params: Params) -> Params:
    return params  # the whole params: the manifest's params hash covers every curation section


def plan_phase(job: GlobalJob, params: Params) -> VersionPlan:
    args: AssembleArgs = job.args or AssembleArgs()
    build = plan(Path(job.src), params.assemble)
    options = {k: v for k, v in build.split_options().items() if k != "tokenizer"}
    mixture = {"epochs": build.mixture.epochs, "fractions": build.mixture.fractions, "moved": build.mixture.moved}
    tokenizer = Keyed(tokenizer_id(args.tokenizer), args.tokenizer)
    splits = Path(job.work).parent / "splits"
    items = [WorkItem(split, SplitWork(build.sources, split, mixture, options, tokenizer, str(splits / split)),
                      (str(splits / split),))
             for split in build.mixture.fractions]
    return VersionPlan(build=build, items=items)


def split_phase(job: ItemJob, params: Params) -> dict:
    """Write one split's shards (and its rejects) under its work folder; returns files, composition, ledger."""
    work: SplitWork = job.item
    shutil.rmtree(work.work, ignore_errors=True)
    return write_split(work.sources, Path(work.work), work.split, Mixture(**work.mixture), **work.options,
                       tokenizer=work.tokenizer.value)


def publish_finish(job: GlobalJob, params: Params) -> dict:
    """Link every split's shards into a staging folder and publish it as the dataset version."""
    args: AssembleArgs = job.args or AssembleArgs()
    out_dir = Path(job.dst)
    parent = load_parent(args.parent, args.registry)  # read before out_dir is replaced
    staging = staging_dir(out_dir)
    version = job.of(PLAN)
    for item in version.items:
        work = Path(item.value.work)
        for path in sorted(p for p in work.rglob("*") if p.is_file()):
            target = staging / path.relative_to(work)
            target.parent.mkdir(parents=True, exist_ok=True)
            _link_or_copy(path, target)
    return publish(staging, out_dir, params, version.build, job.each(SPLITS),
                   snapshot_manifest=args.snapshot_manifest, ledgers=args.ledgers,
                   optout_registry_hash=args.optout_registry_hash, tokenizer=args.tokenizer, parent=parent,
                   registry=args.registry, register=args.register, license_texts=standard_texts)


# The plan reads the curated folder by path (uncached); a split is keyed on the content of its
# source shards, the mixture and the shard format.
PLAN = Global("plan", plan_phase, VersionPlan, cached=False)
SPLITS = Map("splits", split_phase, dict, over="plan")   # write_split's files, composition and ledger
ASSEMBLE = Stage(STAGE, folder="", config=assemble_config, finish=publish_finish, reads_shards=False, staged=False,
                 phases=(PLAN, SPLITS))


def assemble(src_dir: str | os.PathLike, out_dir: str | os.PathLike, params: Params | dict | None, *, workers: int = 1,
             **args: Any) -> JsonDict:
    """Assemble the curated shards of ``src_dir`` into a dataset version at ``out_dir`` on local
    processes (``args``: the fields of AssembleArgs); returns its manifest."""
    if "ledgers" in args:
        args["ledgers"] = tuple(args["ledgers"])
    for key in ("registry", "parent"):
        if args.get(key) is not None:
            args[key] = os.fspath(args[key])
    return run_local(ASSEMBLE, Path(src_dir), Path(out_dir), params, workers=workers, args=AssembleArgs(**args))


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)

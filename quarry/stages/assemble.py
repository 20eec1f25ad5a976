"""The assemble stage: plan the version (its source shards, the mixture) from every input shard's
census (a map: no process reads the whole input); scatter every input shard into sorted runs per
split (a map over the shards, shared out across workers); write each output shard from its key
range of every run (a map over the splits' partitions); take the origins' licence and NOTICE files
out of the snapshot (a map over its shards, as runs by origin hash); write the attribution bundle's
parts (a map over partitions of the origin-hash space: each reads its range of every shard's credits
and of those files); publish the version (manifest, datacard, SHA256SUMS, the bundle joined from
its parts, the release registry) from the partitions' shards. Every worker writes its share of
every split and of the bundle, and the bytes are the same for any worker count
(quarry.datasets.shards, quarry.datasets.attribution)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quarry.config import Params
from quarry.datasets.attribution import (HELD_BYTES, BundlePart, join_parts, partition_credits, partition_files,
                                         shard_attribution_files, write_part)
from quarry.datasets.changelog import index_of_files
from quarry.datasets.build import (CensusNeeds, Plan as BuildPlan, ShardCensus, census_needs, load_parent, plan, publish,
                                   shard_census, staging_dir, tokenizer_id)
from quarry.datasets.composition import Composition
from quarry.datasets.mixture import Mixture
from quarry.datasets.shards import STAGE, ShardScatter, scatter_shard, shard_count, shard_name, write_partition
from quarry.errors import QuarryError
from quarry.engine import Global, GlobalJob, ItemJob, Keyed, Map, Plan, Private, ShardJob, Stage, WorkItem, run_local
from quarry.engine.output import link_or_copy
from quarry.engine.partitions import Runs, partition_count, partition_items, run_files
from quarry.curation.licenses.texts import standard_texts
from quarry.snapshot.listing import FILE_LISTS
from quarry.ledger import merge_ledgers
from quarry.records import JsonDict, RecordWriter, read_json, read_records


@dataclass(frozen=True)
class AssembleArgs:
    snapshot_manifest: str | dict | None = None     # the snapshot's manifest (for its id)
    ledgers: tuple = ()                            # upstream ledger.json files (or their folders), or dicts
    optout_registry_hash: str | None = None
    tokenizer: Any = None                          # adds token counts to the composition
    parent: str | None = None                      # the previous version (hash, label, folder)
    registry: str | None = None                    # the release registry (default: the project's)
    register: bool = True


@dataclass(frozen=True)
class Mixing:
    """What every input shard's scatter needs: the splits, the mixture, the order."""

    splits: tuple[str, ...]
    mixture: dict            # Mixture's fields (epochs, fractions, moved)
    shuffle: bool
    level: int


@dataclass(frozen=True)
class SnapshotShard:
    """A snapshot shard whose attribution files the release bundles."""

    shard: Path        # its content (and its file list's) keys the map's cache
    file_list: Path    # its records' metadata, in the same order: which of them to read
    runs: str          # where their lines go, by origin hash


@dataclass(frozen=True)
class BundleWork:
    """Partition ``part`` of ``parts`` of the origin-hash space: its part of the attribution bundle."""

    part: int
    parts: int
    credits: tuple[str, ...]   # every input shard's credit runs
    files: tuple[str, ...]     # every snapshot shard's attribution file runs
    out: str


@dataclass(frozen=True)
class PartitionWork:
    """One output shard to write: its split's partition ``part`` of ``parts`` (0: source order) of the runs."""

    split: str
    part: int
    parts: int
    runs: tuple[str, ...]
    out: str
    level: int
    threads: int
    tokenizer: Keyed


def assemble_config(params: Params) -> Params:
    return params  # the whole params: the manifest's params hash covers every curation section


@dataclass(frozen=True)
class VersionPlan(Private):
    """The version's source shards and mixture: what the publication reads (no scatter's key covers
    every source)."""

    build: BuildPlan


def needs_phase(job: GlobalJob, params: Params) -> CensusNeeds:
    """Whether the plan needs bytes per subset and a split census (reads the curated folder by path)."""
    return census_needs(Path(job.src), params.assemble)


def census_phase(job: ShardJob, params: Params) -> ShardCensus:
    return shard_census(job.src, params.assemble, job.input(NEEDS))


def plan_phase(job: GlobalJob, params: Params) -> VersionPlan:
    """The version's source shards and mixture, from the shards' censuses."""
    return VersionPlan(plan(Path(job.src), params.assemble, job.each(CENSUS)))


def mixing_phase(job: GlobalJob, params: Params) -> Mixing:
    mixture = job.of(PLAN).build.mixture
    return Mixing(tuple(mixture.fractions), {"epochs": mixture.epochs, "fractions": mixture.fractions,
                                             "moved": mixture.moved}, params.assemble.shuffle, params.assemble.zstd_level)


def scatter_phase(job: ShardJob, params: Params) -> ShardScatter:
    mixing = job.input(MIXING)
    shutil.rmtree(job.work, ignore_errors=True)
    return scatter_shard(job.src, Path(job.work), list(mixing.splits), Mixture(**mixing.mixture),
                         shuffle=mixing.shuffle, level=mixing.level)


def partitions_phase(job: GlobalJob, params: Params) -> Plan:
    """Each split's output shards: N key ranges for a split of N times shard_bytes at most, or a
    shard per input and pass in source order."""
    args: AssembleArgs = job.args or AssembleArgs()
    section = params.assemble
    scattered = job.each(SCATTER)
    tokenizer = Keyed(tokenizer_id(args.tokenizer), args.tokenizer)
    folder = Path(job.work).parent / "partitions"
    items = []
    for index, split in enumerate(job.of(MIXING).splits):
        parts = [shard.splits[index] for shard in scattered]
        if section.shuffle:
            count = shard_count(sum(part.bytes for part in parts), section.shard_bytes)
            runs = tuple(run for part in parts for run in part.runs)
            groups = [(j, count, runs) for j in range(count)]
        else:  # a shard per input and pass: pass-major, the inputs in order
            passes = max((len(part.runs) for part in parts), default=0)
            ordered = [part.runs[p] for p in range(passes) for part in parts if p < len(part.runs)]
            groups = [(j, 0, (run,)) for j, run in enumerate(ordered)]
        for j, count, runs in groups:
            out = folder / split / f"{j:05d}.jsonl.zst"
            items.append(WorkItem(f"{split} {j + 1}/{len(groups)}",
                                  PartitionWork(split, j, count, runs, str(out), section.zstd_level,
                                                section.zstd_threads, tokenizer), (str(out),)))
    return Plan(items=items)


def partition_phase(job: ItemJob, params: Params) -> JsonDict:
    work: PartitionWork = job.item
    Path(work.out).parent.mkdir(parents=True, exist_ok=True)
    Path(work.out).unlink(missing_ok=True)
    return write_partition(list(work.runs), work.part, work.parts, Path(work.out), level=work.level,
                           threads=work.threads, tokenizer=work.tokenizer.value)


def snapshot_shards_phase(job: GlobalJob, _: Params) -> Plan:
    """The snapshot's shards with their file lists (none without a snapshot folder beside its manifest)."""
    manifest = (job.args or AssembleArgs()).snapshot_manifest
    if not isinstance(manifest, (str, os.PathLike)) or not Path(manifest).is_file():
        return Plan(items=[])
    folder, found = Path(manifest).parent, Path(job.work).parent / "attribution"
    listed = read_json(manifest)
    shards, lists = listed.get("shards") or [], listed.get("file_lists") or []
    if len(lists) != len(shards):
        raise QuarryError(f"{manifest}: {len(shards)} shards but {len(lists)} file lists; snapshot it again")
    outs = [str(found / f"{number:05d}") for number in range(len(shards))]
    return Plan(items=[WorkItem(shard["name"], SnapshotShard(folder / "shards" / shard["name"],
                                                             folder / FILE_LISTS / listing["name"], out),
                                tuple(map(str, run_files(out))), shard.get("bytes", 0))
                       for shard, listing, out in zip(shards, lists, outs)])


def attribution_phase(job: ItemJob, _: None) -> Runs:
    work: SnapshotShard = job.item
    return Runs(work.runs, shard_attribution_files(work.shard, work.file_list, work.runs))


def bundle_parts_phase(job: GlobalJob, params: Params) -> Plan:
    """The bundle's partitions of the origin-hash space: as many as keep each within
    ``assemble.partition_mb`` of the credits and files it reads (or ``assemble.partitions``)."""
    credits, found = job.each(SCATTER), job.each(ATTRIBUTION)
    total = sum(shard.credits.bytes for shard in credits) + sum(shard.bytes for shard in found)
    parts = partition_count(total * HELD_BYTES, params.assemble.partition_mb, params.assemble.partitions)
    runs = tuple(shard.credits.runs for shard in credits), tuple(shard.runs for shard in found)
    return Plan(items=partition_items(Path(job.work).parent / "bundle", parts,
                                      lambda part, out: BundleWork(part, parts, *runs, str(out)),
                                      lambda out: [out], label="attribution"))   # its folder: files/, index, NOTICE


def bundle_phase(job: ItemJob, _: None) -> BundlePart:
    work: BundleWork = job.item
    shutil.rmtree(work.out, ignore_errors=True)
    credits = partition_credits(work.credits, work.part, work.parts)
    files = partition_files(work.files, work.part, work.parts, {origin for origin, _ in credits})
    return write_part(Path(work.out), credits, files, standard_texts)


def publish_finish(job: GlobalJob, params: Params) -> dict:
    """Link every split's shards (in partition order, numbered anew) and its rejects into a staging
    folder and publish it as the dataset version."""
    args: AssembleArgs = job.args or AssembleArgs()
    out_dir = Path(job.dst)
    parent = load_parent(args.parent, args.registry)  # read before out_dir is replaced
    staging = staging_dir(out_dir)
    splits = job.of(MIXING).splits
    written = list(zip((item.value for item in job.of(PARTITIONS).items), job.each(PARTITION)))
    results = []
    for index, split in enumerate(splits):
        files, composition = [], Composition(with_tokens=args.tokenizer is not None)
        for work, shard in ((w, s) for w, s in written if w.split == split):
            composition.merge(shard["composition"])
            if shard["path"] is None:
                continue
            name = shard_name(len(files))
            (staging / split).mkdir(parents=True, exist_ok=True)
            link_or_copy(Path(shard["path"]), staging / split / name)
            files.append({"path": f"{split}/{name}", "records": shard["records"], "bytes": shard["bytes"]})
        parts = [shard.splits[index] for shard in job.each(SCATTER)]
        _gather_rejects([Path(part.rejects) for part in parts], staging / "rejects" / f"{split}.jsonl.zst",
                        params.assemble.zstd_level)
        results.append({"split": split, "files": files, "composition": composition.to_dict(),
                        "ledger": merge_ledgers(STAGE, [part.ledger for part in parts]).to_dict()})
    return publish(staging, out_dir, params, job.of(PLAN).build, results,
                   snapshot_manifest=args.snapshot_manifest, ledgers=args.ledgers,
                   optout_registry_hash=args.optout_registry_hash, tokenizer=args.tokenizer, parent=parent,
                   registry=args.registry, register=args.register,
                   bundle=lambda folder: join_parts(folder, job.each(BUNDLE), standard_texts),
                   index=index_of_files(shard.index for shard in job.each(SCATTER)))


def _gather_rejects(parts: list[Path], target: Path, level: int) -> None:
    """The inputs' rejects of one split, in input order, as one file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with RecordWriter(target, level=level, validate=False) as writer:
        for part in parts:
            for record in read_records(part, require_text=False):
                writer.write(record)


# What the plan needs and the plan read the curated folder by path (uncached); a shard's census and
# scatter are keyed on its content (and the mixture); the partitions read runs named by path
# (uncached, as dedup's partitions).
NEEDS = Global("needs", needs_phase, CensusNeeds, cached=False, inline=True)
CENSUS = Map("census", census_phase, ShardCensus)
PLAN = Global("plan", plan_phase, VersionPlan, cached=False)
MIXING = Global("mixing", mixing_phase, Mixing, inline=True)
SCATTER = Map("scatter", scatter_phase, ShardScatter)
PARTITIONS = Global("partitions", partitions_phase, Plan, inline=True)
PARTITION = Map("partition", partition_phase, dict, over="partitions", cached=False)   # one output shard
# The snapshot's shards are listed from its manifest (uncached); a shard's attribution files are keyed
# on its content and its file list's; the bundle's partitions read runs named by path (uncached)
SNAPSHOT_SHARDS = Global("listing", snapshot_shards_phase, Plan, cached=False, inline=True)
ATTRIBUTION = Map("attribution", attribution_phase, Runs, over="listing", needs_config=False)
BUNDLE_PARTS = Global("bundle-parts", bundle_parts_phase, Plan, inline=True)
BUNDLE = Map("bundle", bundle_phase, BundlePart, over="bundle-parts", cached=False, needs_config=False)
ASSEMBLE = Stage(STAGE, folder="", config=assemble_config, finish=publish_finish, staged=False,
                 phases=(NEEDS, CENSUS, PLAN, MIXING, SCATTER, PARTITIONS, PARTITION, SNAPSHOT_SHARDS, ATTRIBUTION,
                         BUNDLE_PARTS, BUNDLE))


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

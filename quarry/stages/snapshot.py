"""The snapshot stage: plan the origins of every source (a map over its parts, a corpus's shards
and a table's files each, spooling the plans and their heads to disk; then the caps in one process
over the heads, streamed, writing the capped ones in batches), snapshot each batch of origins (a
map over them), cut the records into shards by their line lengths and write each shard and its
file list (a map over them), then rejects, origin lists, ledger and manifest, one origin at a time."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from quarry.config import Params
from quarry.config.snapshot import SnapshotParams
from quarry.engine import Global, GlobalJob, ItemJob, Map, Plan, Stage, WorkItem, run_local
from quarry.records import JsonDict
from quarry.snapshot.driver import (STAGE, CapReport, HeadBatch, cache_root, capped_batches, describe_caps, finalize,
                                   process_batch, processed_origins, shard_layout, spool_unit, write_shard)
from quarry.snapshot.listing import FILE_LISTS, file_list_name
from quarry.snapshot.process import cached_summary
from quarry.snapshot.sources import plan_unit, planning_units
from quarry.snapshot.spool import Span, Spool


@dataclass(frozen=True)
class SnapshotArgs:
    sources: tuple[dict, ...] | None = None   # None: params snapshot.sources
    cache_dir: str | None = None              # processed origins (default: the project's cache)


@dataclass(frozen=True, kw_only=True)
class SnapshotPlan(Plan):
    """Every origin's capped plan, as batches of heads on disk (items: a batch each), and what the
    finish needs to seal them."""

    sources: list[dict]
    batches: list[HeadBatch]
    cache_dir: str
    caps: CapReport


@dataclass(frozen=True)
class OriginWork:
    """A batch of origins to snapshot, where processed origins are kept and where the batch's
    totals go."""

    batch: HeadBatch
    cache_dir: str
    results: str


def named_sources(listed: list[dict]) -> list[dict]:
    return [{"name": source.get("name") or source["kind"], **source} for source in listed]


@dataclass(frozen=True, kw_only=True)
class PlanningUnits(Plan):
    """The sources as named (items: the parts planned apart, ``planning_units``)."""

    sources: list[dict]


@dataclass(frozen=True)
class PlanningUnit:
    source: dict
    index: int                 # the source's place in the list
    unit: str | None
    staging: str               # where an archive extracts
    spool: str                 # where its planned origins are written
    heads: str                 # and their heads, in origin order


def units_phase(job: GlobalJob, cfg: SnapshotParams) -> PlanningUnits:
    args: SnapshotArgs = job.args or SnapshotArgs()
    # the sources as params.yaml gives them: an absent key and `lock: null` differ to a source
    given = list(args.sources) if args.sources is not None else cfg.as_dict()["sources"]
    sources = named_sources(given)
    staging = str(Path(job.work).parent / "extracted")
    units = [(index, source, unit) for index, source in enumerate(sources) for unit in planning_units(source)]
    spools = [(str(Path(job.work) / f"{number:06d}.plans"), str(Path(job.work) / f"{number:06d}.heads"))
              for number in range(len(units))]
    items = [WorkItem(f"{source['name']} {unit or ''}".strip(), PlanningUnit(source, index, unit, staging, spool, heads),
                      (spool, heads), Path(unit).stat().st_size if unit else 0)
             for (spool, heads), (index, source, unit) in zip(spools, units)]
    return PlanningUnits(sources=sources, items=items)


def scan_phase(job: ItemJob, cfg: SnapshotParams) -> int:
    """A part's planned origins, spooled, their heads written in origin order: how many."""
    unit: PlanningUnit = job.item
    Path(unit.staging).mkdir(parents=True, exist_ok=True)
    return spool_unit(plan_unit(unit.source, unit.unit, cfg, Path(unit.staging)), Path(unit.spool), Path(unit.heads))


def plan_phase(job: GlobalJob, cfg: SnapshotParams) -> SnapshotPlan:
    """Every origin's capped plan, from the parts' heads, in batches."""
    args: SnapshotArgs = job.args or SnapshotArgs()
    units = job.of(UNITS)
    unit_heads: list[list[Path]] = [[] for _ in units.sources]
    for item in units.items:
        unit_heads[item.value.index].append(Path(item.value.heads))
    batches, caps = capped_batches(units.sources, unit_heads, cfg, Path(job.work))
    cache_dir = str(args.cache_dir or cache_root())
    results = Path(job.work) / "processed"
    totals = [str(results / f"{number:06d}.totals") for number in range(len(batches))]
    items = [WorkItem(f"origins {number + 1}/{len(batches)}", OriginWork(batch, cache_dir, path), (path,), batch.bytes)
             for number, (batch, path) in enumerate(zip(batches, totals))]
    return SnapshotPlan(sources=units.sources, batches=batches, cache_dir=cache_dir, caps=caps, items=items)


def origin_phase(job: ItemJob, cfg: SnapshotParams) -> dict:
    """A batch of origins processed (or found in the cache): their sums (``process_batch``)."""
    work: OriginWork = job.item
    return process_batch(work.batch, cfg, Path(work.cache_dir), Path(work.results))


@dataclass(frozen=True)
class ShardWork:
    """One shard to write: where its pieces of the processed origins are spooled, and where those
    origins are kept."""

    pieces: Span
    cache_dir: str
    path: str
    file_list: str


def layout_phase(job: GlobalJob, cfg: SnapshotParams) -> Plan:
    cache_dir = job.of(PLAN).cache_dir
    shards = shard_layout(processed_origins(job.each(ORIGINS)), cfg.shard_bytes,
                          lambda key: cached_summary(Path(cache_dir), key)["line_bytes"])
    work = []
    with Spool(Path(job.work) / "layout.pieces") as spool:
        for number, pieces in enumerate(shards):
            name = f"part-{number:05d}.jsonl.zst"
            path, file_list = str(Path(job.dst) / "shards" / name), str(Path(job.dst) / FILE_LISTS / file_list_name(number))
            work.append((ShardWork(spool.frame(pieces), cache_dir, path, file_list), sum(p.length for p in pieces)))
    return Plan(items=[WorkItem(f"shard {number + 1}/{len(work)}", shard, (shard.path, shard.file_list), size)
                       for number, (shard, size) in enumerate(work)])


def shard_phase(job: ItemJob, cfg: SnapshotParams) -> dict:
    work: ShardWork = job.item
    return write_shard(work.pieces.read(), Path(work.cache_dir), Path(work.path), Path(work.file_list))


def snapshot_finish(job: GlobalJob, cfg: SnapshotParams) -> dict:
    plan = job.of(PLAN)
    manifest = finalize(cfg, plan.sources, plan.batches, job.each(ORIGINS), Path(job.dst), job.each(SHARDS), plan.caps,
                        Path(plan.cache_dir))
    # the run's summary (and the flow's result) says what the caps left out; the manifest stays as sealed
    return {**manifest, "notice": describe_caps(plan.caps)}


# Uncached phases: a plan names files by path, and an origin's reuse is process_origin's own
# cache, keyed on the content of every selected file.
UNITS = Global("units", units_phase, PlanningUnits, inline=True)
SCAN = Map("scan", scan_phase, int, over="units", cached=False)            # a part's planned origins, spooled
PLAN = Global("plan", plan_phase, SnapshotPlan, inline=True)    # the caps: bookkeeping over the parts' plans
ORIGINS = Map("origins", origin_phase, dict, over="plan", cached=False)   # a processed batch's sums
LAYOUT = Global("layout", layout_phase, Plan, inline=True)
SHARDS = Map("shards", shard_phase, dict, over="layout", cached=False)     # a written shard's and its file list's entries
SNAPSHOT = Stage(STAGE, folder="", config=lambda params: params.snapshot, finish=snapshot_finish, reads_shards=False,
                 keeps_work=False, phases=(UNITS, SCAN, PLAN, ORIGINS, LAYOUT, SHARDS))


def run_snapshot(sources: list[dict] | None, out_dir: Path, params: Params | dict | None = None, *, workers: int = 1,
                 cache_dir: Path | None = None) -> JsonDict:
    """Snapshot ``sources`` (default: params `snapshot.sources`) into ``out_dir`` on local processes;
    returns the manifest.

    Writes ``out_dir/shards/part-NNNNN.jsonl.zst``, each shard's file list in
    ``out_dir/files/part-NNNNN.files.zst`` (JSON lines), ``out_dir/manifest.json`` (whose
    ``snapshot_id`` is the hash of its own content), the origins' entries in
    ``out_dir/origins/part-NNNNN.origins.zst`` (listing.snapshot_origins), ``out_dir/ledger.json``
    and ``out_dir/rejects/rejects.jsonl.zst`` (every refused file with its origin, path and reason).
    """
    args = SnapshotArgs(tuple(sources) if sources is not None else None, str(cache_dir) if cache_dir else None)
    result = run_local(SNAPSHOT, None, out_dir, params, workers=workers, args=args)
    return {key: value for key, value in result.items() if key != "notice"}

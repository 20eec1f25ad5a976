"""The snapshot stage: plan the origins of every source (a map over its parts, a corpus's shards
and a table's files each, spooling the plans to disk; then the caps in one process over the origins' heads), snapshot
each origin (a map over them), cut the records into shards by their line lengths and write each
shard and its file list (a map over them), then rejects, ledger and manifest, one origin at a time."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from quarry.config import Params
from quarry.config.snapshot import SnapshotParams
from quarry.engine import Global, GlobalJob, ItemJob, Map, Plan, Stage, WorkItem, run_local
from quarry.records import JsonDict
from quarry.snapshot.driver import (STAGE, CapReport, Piece, cache_root, capped_heads, describe_caps, finalize,
                                   shard_layout, write_shard)
from quarry.snapshot.listing import FILE_LISTS, file_list_name
from quarry.snapshot.process import cached_summary, origin_totals, process_origin
from quarry.snapshot.sources import plan_unit, planning_units
from quarry.snapshot.spool import OriginHead, spool_plans


@dataclass(frozen=True)
class SnapshotArgs:
    sources: tuple[dict, ...] | None = None   # None: params snapshot.sources
    cache_dir: str | None = None              # processed origins (default: the project's cache)


@dataclass(frozen=True, kw_only=True)
class SnapshotPlan(Plan):
    """Every origin's capped plan, as its head (items: an origin each), and what the finish needs to
    seal them."""

    sources: list[dict]
    heads: list[OriginHead]
    cache_dir: str
    caps: CapReport


@dataclass(frozen=True)
class OriginWork:
    """One origin to snapshot: where its plan is spooled, and where processed origins are kept."""

    head: OriginHead
    cache_dir: str


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


def units_phase(job: GlobalJob, cfg: SnapshotParams) -> PlanningUnits:
    args: SnapshotArgs = job.args or SnapshotArgs()
    # the sources as params.yaml gives them: an absent key and `lock: null` differ to a source
    given = list(args.sources) if args.sources is not None else cfg.as_dict()["sources"]
    sources = named_sources(given)
    staging = str(Path(job.work).parent / "extracted")
    units = [(index, source, unit) for index, source in enumerate(sources) for unit in planning_units(source)]
    spools = [str(Path(job.work) / f"{number:06d}.plans") for number in range(len(units))]
    items = [WorkItem(f"{source['name']} {unit or ''}".strip(), PlanningUnit(source, index, unit, staging, spool),
                      (spool,), Path(unit).stat().st_size if unit else 0)
             for spool, (index, source, unit) in zip(spools, units)]
    return PlanningUnits(sources=sources, items=items)


def scan_phase(job: ItemJob, cfg: SnapshotParams) -> list:
    """A part's planned origins, spooled: their heads."""
    unit: PlanningUnit = job.item
    Path(unit.staging).mkdir(parents=True, exist_ok=True)
    return spool_plans(plan_unit(unit.source, unit.unit, cfg, Path(unit.staging)), Path(unit.spool))


def plan_phase(job: GlobalJob, cfg: SnapshotParams) -> SnapshotPlan:
    """Every origin's capped plan, from the parts' heads."""
    args: SnapshotArgs = job.args or SnapshotArgs()
    units = job.of(UNITS)
    planned: list[list] = [[] for _ in units.sources]
    for item, heads in zip(units.items, job.each(SCAN)):
        planned[item.value.index].extend(heads)
    heads, caps = capped_heads(units.sources, planned, cfg, Path(job.work) / "capped.plans")
    cache_dir = str(args.cache_dir or cache_root())
    items = [WorkItem(head.origin, OriginWork(head, cache_dir), size=head.bytes) for head in heads]
    return SnapshotPlan(sources=units.sources, heads=heads, cache_dir=cache_dir, caps=caps, items=items)


def origin_phase(job: ItemJob, cfg: SnapshotParams) -> dict:
    """One origin processed (or found in the cache): its totals (``origin_totals``)."""
    work: OriginWork = job.item
    return origin_totals(process_origin(work.head.plan(), cfg, Path(work.cache_dir)))


@dataclass(frozen=True)
class ShardWork:
    """One shard to write: its pieces of the processed origins, and where they are kept."""

    pieces: tuple[Piece, ...]
    cache_dir: str
    path: str
    file_list: str


def layout_phase(job: GlobalJob, cfg: SnapshotParams) -> Plan:
    cache_dir = job.of(PLAN).cache_dir
    shards = shard_layout(job.each(ORIGINS), cfg.shard_bytes,
                          lambda key: cached_summary(Path(cache_dir), key)["line_bytes"])
    items = []
    for number, pieces in enumerate(shards):
        name = f"part-{number:05d}.jsonl.zst"
        path, file_list = str(Path(job.dst) / "shards" / name), str(Path(job.dst) / FILE_LISTS / file_list_name(number))
        items.append(WorkItem(f"shard {number + 1}/{len(shards)}", ShardWork(tuple(pieces), cache_dir, path, file_list),
                              (path, file_list), sum(piece.length for piece in pieces)))
    return Plan(items=items)


def shard_phase(job: ItemJob, cfg: SnapshotParams) -> dict:
    work: ShardWork = job.item
    return write_shard(list(work.pieces), Path(work.cache_dir), Path(work.path), Path(work.file_list))


def snapshot_finish(job: GlobalJob, cfg: SnapshotParams) -> dict:
    plan = job.of(PLAN)
    manifest = finalize(cfg, plan.sources, plan.heads, job.each(ORIGINS), Path(job.dst), job.each(SHARDS), plan.caps,
                        Path(plan.cache_dir))
    # the run's summary (and the flow's result) says what the caps left out; the manifest stays as sealed
    return {**manifest, "notice": describe_caps(plan.caps)}


# Uncached phases: a plan names files by path, and an origin's reuse is process_origin's own
# cache, keyed on the content of every selected file.
UNITS = Global("units", units_phase, PlanningUnits, inline=True)
SCAN = Map("scan", scan_phase, list, over="units", cached=False)           # a part's planned origins' heads
PLAN = Global("plan", plan_phase, SnapshotPlan, inline=True)    # the caps: bookkeeping over the parts' plans
ORIGINS = Map("origins", origin_phase, dict, over="plan", cached=False)   # one processed origin's totals
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
    ``snapshot_id`` is the hash of its own content), ``out_dir/ledger.json`` and
    ``out_dir/rejects/rejects.jsonl.zst`` (every refused file with its origin, path and reason).
    """
    args = SnapshotArgs(tuple(sources) if sources is not None else None, str(cache_dir) if cache_dir else None)
    result = run_local(SNAPSHOT, None, out_dir, params, workers=workers, args=args)
    return {key: value for key, value in result.items() if key != "notice"}

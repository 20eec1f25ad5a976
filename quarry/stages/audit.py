"""The audit stage: `quarry audit` (quarry.datasets.audit) as maps partitioned by origin.

A map over the snapshot's shards writes each origin's files (survey, file statements, licence and
NOTICE texts) sorted by a hash of the origin, and a map over the dataset's shards each document's
entry (where it comes from, its recorded license, its secret shapes) the same way
(quarry.engine.partitions). The check runs as a map over partitions of that hash space: each reads
its origins' documents and files from every shard's runs, re-derives their licenses (its own
ScanCode worker, no shared cache: the audit is independent of the stage it checks) and writes its
violations in report order; the finish merges them into the report. No process holds every
document or every file of the snapshot.
"""

from __future__ import annotations

import heapq
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import orjson

from quarry.config import Params, as_params
from quarry.config.curation import LicensesParams
from quarry.curation.licenses.cache import CachedDetector
from quarry.curation.licenses.policy import LicensePolicy
from quarry.curation.licenses.shards import stage_shards
from quarry.curation.optout import OptOut, Registry, load_registry, registry_path_from
from quarry.datasets import attribution
from quarry.datasets.audit import OriginFiles, check_origins, document_entry, origin_files, report, violation_order
from quarry.datasets.reader import dataset_shards
from quarry.datasets.versions import locate
from quarry.engine import (Executor, Global, GlobalJob, ItemJob, LocalExecutor, Map, Plan, ShardJob, Stage, WorkItem,
                           run_stage)
from quarry.engine.partitions import Runs, partition_count, partition_items, read_part, run_files, text_key, write_runs
from quarry.engine.state import provide
from quarry.errors import QuarryError
from quarry.records import JsonDict, atomic_write_bytes, json_bytes, read_records, write_json
from quarry.stages.licenses import process_detector

STAGE = "audit"
HELD_BYTES = 3   # what a partition holds per byte of runs read: the parsed entries, their surveys' findings


@dataclass(frozen=True)
class AuditArgs:
    dataset: str                      # the version (or folder of shards) audited
    snapshot: str                     # the snapshot it was built from, as the report names it
    registry: tuple[OptOut, ...]      # the opt-out registry's entries, as they are now
    registry_hash: str
    bundle: str | None                # the version's ATTRIBUTION folder (None: not a version)
    out: str | None                   # where the report goes (audit.json)


@dataclass(frozen=True)
class DatasetShard:
    shard: Path    # its content keys the map's cache
    runs: str      # where its documents' entries go


@dataclass(frozen=True, kw_only=True)
class CheckPlan(Plan):
    parts: int


@dataclass(frozen=True)
class OriginPartition:
    part: int
    parts: int
    runs: str                         # the file listing every shard's runs, snapshot's and dataset's
    out: str                          # its violations (jsonl, in report order)
    registry: tuple[OptOut, ...]
    bundle: str | None


@dataclass(frozen=True)
class Checked:
    violations: str
    documents: int


def _detector_key(batch_size: int) -> tuple:
    return ("audit-scancode", int(batch_size))


def detector(config: LicensesParams) -> CachedDetector:
    """This process's ScanCode worker for the audit, with no cache shared with the licenses stage."""
    return process_detector(_detector_key(config.batch_size), None, config.batch_size)


def use_detector(found: CachedDetector, batch_size: int) -> None:
    """Serve the audit's checks that run in this process from ``found`` (left open)."""
    provide(_detector_key(batch_size), found)


def snapshot_phase(job: ShardJob, config: LicensesParams) -> Runs:
    """One snapshot shard's files, by origin hash."""
    prefix = str(Path(job.work) / "files")
    written = write_runs(prefix, ((text_key(origin), json_bytes([origin, files.to_dict()]))
                                  for origin, files in origin_files(read_records(job.src), config.header_lines).items()))
    return Runs(prefix, written)


def listing_phase(job: GlobalJob, _: LicensesParams) -> Plan:
    """The dataset's shards, each a job of the documents map."""
    args: AuditArgs = job.args
    folder = Path(job.work).parent / "documents"
    items = []
    for i, shard in enumerate(dataset_shards(args.dataset)):
        runs = str(folder / f"{i:06d}-runs")
        items.append(WorkItem(f"documents {shard.parent.name}/{shard.name}", DatasetShard(shard, runs),
                              tuple(map(str, run_files(runs))), shard.stat().st_size))
    return Plan(items=items)


def documents_phase(job: ItemJob, _: None) -> Runs:
    """One dataset shard's documents (``document_entry``: their secret shapes found here), by origin hash."""
    work: DatasetShard = job.item
    entries = (document_entry(record) for record in read_records(work.shard))
    return Runs(work.runs, write_runs(work.runs, ((text_key(e["origin"]), json_bytes(e)) for e in entries)))


def plan_phase(job: GlobalJob, config: LicensesParams) -> CheckPlan:
    """How many partitions check, from the runs' size; every shard's runs listed once in a file."""
    args: AuditArgs = job.args
    snapshot, documents = job.each(SNAPSHOT), job.each(DOCUMENTS)
    work = Path(job.work)
    runs = work / "runs.json"
    atomic_write_bytes(runs, orjson.dumps({"snapshot": [r.runs for r in snapshot],
                                           "documents": [r.runs for r in documents]}), durable=False)
    total = sum(r.bytes for r in (*snapshot, *documents))
    parts = partition_count(total * HELD_BYTES, config.partition_mb, config.partitions)
    items = partition_items(work.parent / "check", parts,
                            lambda part, out: OriginPartition(part, parts, str(runs), f"{out}.violations.jsonl",
                                                              args.registry, args.bundle),
                            lambda out: [f"{out}.violations.jsonl"], label="partition")
    return CheckPlan(parts=parts, items=items)


def check_phase(job: ItemJob, config: LicensesParams) -> Checked:
    """The violations of one partition's documents, against their origins' files merged in shard order."""
    item: OriginPartition = job.item
    runs = orjson.loads(Path(item.runs).read_bytes())
    documents = [orjson.loads(data) for prefix in runs["documents"] for _, data in read_part(prefix, item.part, item.parts)]
    origins = {document["origin"] for document in documents}
    snapshot: dict[str, OriginFiles] = {}
    for prefix in runs["snapshot"]:  # in shard order: one origin may span shards
        for _, data in read_part(prefix, item.part, item.parts):
            origin, files = orjson.loads(data)
            if origin in origins:
                snapshot.setdefault(origin, OriginFiles()).merge(OriginFiles.from_dict(files))
    violations = check_origins(documents, snapshot, LicensePolicy.from_section(config.policy),
                               Registry(list(item.registry)), detector(config),
                               Path(item.bundle) if item.bundle else None)
    atomic_write_bytes(item.out, b"".join(orjson.dumps(v) + b"\n" for v in violations), durable=False)
    return Checked(item.out, len(documents))


def _violations(path: str) -> Iterator[JsonDict]:
    with open(path, "rb") as fh:
        for line in fh:
            yield orjson.loads(line)


def report_finish(job: GlobalJob, _: LicensesParams) -> JsonDict:
    """The report: the partitions' violations merged in report order; written where args say."""
    args: AuditArgs = job.args
    checked = job.each(CHECK)
    violations = list(heapq.merge(*(_violations(part.violations) for part in checked), key=violation_order))
    found = report(args.dataset, args.snapshot, sum(part.documents for part in checked), args.registry_hash,
                   violations)
    if args.out is not None:
        write_json(args.out, found)
    return found


# The documents map is keyed on each dataset shard's content; the listing, the plan and the check
# read files named by path (uncached): the report always reflects the registry and snapshot of now.
SNAPSHOT = Map("snapshot", snapshot_phase, Runs)
LISTING = Global("listing", listing_phase, Plan, cached=False, inline=True)
DOCUMENTS = Map("documents", documents_phase, Runs, over="listing", needs_config=False)
PLAN = Global("plan", plan_phase, CheckPlan, cached=False, inline=True)
CHECK = Map("check", check_phase, Checked, over="plan", cached=False)
AUDIT = Stage(STAGE, folder="", config=lambda params: params.licenses, finish=report_finish, staged=False,
              keeps_work=False, phases=(SNAPSHOT, LISTING, DOCUMENTS, PLAN, CHECK))


def run_audit(dataset: str | os.PathLike, snapshot_dir: str | os.PathLike, params: Params | dict | None,
              out: str | os.PathLike | None = None, *, registry: Registry | None = None,
              registry_path: str | os.PathLike | None = None, executor: Executor | None = None,
              workers: int = 1) -> JsonDict:
    """Audit ``dataset`` against the snapshot at ``snapshot_dir`` with the opt-out registry given (or
    read from ``registry_path``, or params ``optout.registry``) and write the report to ``out``
    (audit.json) if given; returns it. Runs on ``executor`` (the DAG's), else on ``workers`` local
    processes. Scratch goes beside ``out`` (a path every worker sees), else to a temporary folder."""
    typed = as_params(params)
    registry = registry if registry is not None else load_registry(registry_path or registry_path_from(typed))
    manifest, data, _ = locate(dataset)  # a version (a manifest) ships its attribution bundle; a stage's folder none
    snapshot = Path(snapshot_dir)
    shards = next((folder for folder in (snapshot / "shards", snapshot) if stage_shards(folder)), None)
    if shards is None:
        raise QuarryError(f"{snapshot}: no snapshot shards there to audit against (`quarry flow snapshot` makes them)")
    args = AuditArgs(str(dataset), str(snapshot_dir), tuple(registry.entries), registry.hash,
                     str(Path(data) / attribution.FOLDER) if manifest is not None and data is not None else None,
                     os.fspath(out) if out is not None else None)
    with _scratch(out) as scratch, (nullcontext(executor) if executor is not None else LocalExecutor(workers)) as runner:
        return run_stage(AUDIT, shards, scratch / "report", typed, runner, args=args, work_dir=scratch / "work",
                         keep_work=False).result


@contextmanager
def _scratch(out: str | os.PathLike | None) -> Iterator[Path]:
    """The run's scratch folder, removed after: beside ``out`` (a path every worker sees), else temporary."""
    if out is None:
        with tempfile.TemporaryDirectory(prefix="quarry-audit-") as scratch:
            yield Path(scratch)
        return
    scratch = Path(out).parent / f".{Path(out).name}.work"
    try:
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

"""The licenses stage: a survey map, a decision partitioned by origin, an assigning map.

The survey reads each shard once (in parallel across workers): it collects each origin's
license-bearing files at any depth (quarry.curation.licenses.governance) and sends the shard's texts
(file-level statements, license files, manifests, notices) to ScanCode through the shared
content-hash cache, then writes its part of every origin's survey sorted by a hash of the origin
(quarry.engine.partitions). The decision runs as a map over partitions of that hash space: each
merges its origins' parts in shard order (one origin may span shards) and decides their
governance, its texts already answered, and hands every shard the governance of the origins it
holds; no process holds every origin. The assigning map gives each record the license of its
nearest governing scope and applies the policy; ``repo_licenses.json`` is the partitions' parts
merged in origin order.
"""

from __future__ import annotations

import atexit
import heapq
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from quarry.config.curation import LicensesParams
from quarry.engine import Global, GlobalJob, ItemJob, Map, PerShard, Plan, ShardJob, Stage, Written, per_process
from quarry.engine.partitions import (Decided, SliceWriter, partition_count, partition_items, read_part, route_slices,
                                      routed_slices, slice_files, text_key, write_runs)
from quarry.engine.state import provide
from quarry.curation.licenses.cache import CachedDetector, default_cache_dir
from quarry.curation.licenses.governance import OriginSurvey
from quarry.curation.licenses.repository import Surveys, add_record, detect_repo_licenses
from quarry.curation.licenses.shards import STAGE, file_statement, license_shard
from quarry.records import atomic_write_bytes, json_bytes, read_records, write_json_pairs

REPO_LICENSES = "repo_licenses.json"
SURVEY_BYTES = 3   # what a partition holds per byte of survey read: the parsed surveys, their texts' findings


@dataclass(frozen=True)
class SurveyRuns:
    """One shard's survey: its runs by origin hash, their bytes, how many origins."""

    runs: str
    bytes: int
    origins: int


@dataclass(frozen=True, kw_only=True)
class DecisionPlan(Plan):
    """How many partitions decide (items: one each), and the surveys' size."""

    parts: int
    survey_mb: float


@dataclass(frozen=True)
class OriginPartition:
    part: int
    parts: int
    runs: str      # the file listing every shard's survey runs
    out: str


@dataclass(frozen=True, kw_only=True)
class Governed(Decided):
    """One partition's governance: per shard (slices) and in origin order (``origins``)."""

    origins: str
    governed: int
    peak_mb: float


def _detector_key(batch_size: int) -> tuple:
    return ("scancode", str(default_cache_dir()), int(batch_size))


def process_detector(key: Hashable, cache_dir: Path | None, batch_size: int) -> CachedDetector:
    """This process's detector under ``key``: one ScanCode worker (and index) per process, started
    on a miss and closed when the process exits."""
    def build() -> CachedDetector:
        opened = CachedDetector(cache_dir, batch_size=batch_size)
        atexit.register(opened.close)
        return opened

    return per_process(key, build)


def detector(config: LicensesParams) -> CachedDetector:
    """This process's detector for the license phases, answers cached by content across runs."""
    return process_detector(_detector_key(config.batch_size), default_cache_dir(), config.batch_size)


def use_detector(found: CachedDetector, batch_size: int) -> None:
    """Serve the license phases that run in this process from ``found`` (left open)."""
    provide(_detector_key(batch_size), found)


def survey_shard_phase(job: ShardJob, config: LicensesParams) -> SurveyRuns:
    """One shard's part of every origin's survey (license-bearing files at any depth, folders,
    reserved-rights markings). ScanCode reads its texts here, in parallel across shards: the
    file-level statements, and the license files, manifests and notices of the shard's part of each
    origin (the decision then finds them in the cache; a notice read here may turn out moot when the
    origin's license file lies in another shard). The parts go to the shard's work folder sorted by
    origin hash, for the partitions of the decision to read: they hold license texts, too large to
    travel as a result."""
    surveys: Surveys = {}
    statements: set[str] = set()
    held: set[str] = set()
    for record in read_records(job.src):
        statement = file_statement(record["text"], config.header_lines)
        add_record(surveys, record, statement)
        if isinstance(origin := (record.get("meta") or {}).get("origin"), str):
            held.add(origin)
        if statement:
            statements.add(statement)
    detector(config).detect(sorted(statements))
    detect_repo_licenses(surveys, detector(config))
    # the records the survey passes over (standalone, path-less) take their origin's governance
    # too, as one process gives it: an empty part names the shard among the origin's holders
    for origin in held - surveys.keys():
        surveys[origin] = OriginSurvey()
    prefix = str(Path(job.work) / "survey")
    written = write_runs(prefix, ((text_key(origin), json_bytes([origin, survey.to_dict()]))
                                  for origin, survey in surveys.items()))
    return SurveyRuns(prefix, written, len(surveys))


def plan_phase(job: GlobalJob, config: LicensesParams) -> DecisionPlan:
    """How many partitions decide, from the surveys' size; the shards' survey files are listed once
    in a file every partition reads (a list of every shard would travel with each partition)."""
    surveys = job.each(SURVEY)
    work = Path(job.work)
    runs = work / "runs.json"
    atomic_write_bytes(runs, orjson.dumps([survey.runs for survey in surveys]), durable=False)
    total = sum(survey.bytes for survey in surveys)
    parts = partition_count(total * SURVEY_BYTES, config.partition_mb, config.partitions)
    items = partition_items(work.parent / "decide", parts,
                            lambda part, out: OriginPartition(part, parts, str(runs), str(out)),
                            lambda out: [*slice_files(out), f"{out}.origins.jsonl"], label="partition")
    return DecisionPlan(parts=parts, survey_mb=round(total / 1e6, 3), items=items)


def decide_partition_phase(job: ItemJob, config: LicensesParams) -> Governed:
    """The governance of the origins in one partition of the origin-hash space: their surveys merged
    in shard order, decided, then written per shard (the origins each shard holds) and in origin
    order (for the stage's repo_licenses.json)."""
    item: OriginPartition = job.item
    runs = orjson.loads(Path(item.runs).read_bytes())
    surveys: Surveys = {}
    held_in: dict[str, list[int]] = {}
    read = 0
    for shard, prefix in enumerate(runs):  # in shard order: one origin may span shards
        for _, data in read_part(prefix, item.part, item.parts):
            origin, part = orjson.loads(data)
            read += len(data)
            if origin in surveys:
                surveys[origin].merge(OriginSurvey.from_dict(part))
            else:
                surveys[origin] = OriginSurvey.from_dict(part)
            held_in.setdefault(origin, []).append(shard)
    governance = detect_repo_licenses(surveys, detector(config))
    del surveys
    out = Path(item.out)
    by_shard: dict[int, list[str]] = {}
    for origin, shards in held_in.items():
        if origin in governance:
            for shard in shards:
                by_shard.setdefault(shard, []).append(origin)
    with SliceWriter(out, len(runs)) as slices:
        for shard in sorted(by_shard):
            slices.add(shard, orjson.dumps({origin: governance[origin] for origin in sorted(by_shard[shard])}))
        digest = slices.close()
    origins = Path(f"{out}.origins.jsonl")
    atomic_write_bytes(origins, b"".join(orjson.dumps([origin, governance[origin]]) + b"\n"
                                         for origin in sorted(governance)), durable=False)
    return Governed(slices=str(out), digest=digest, origins=str(origins), governed=len(governance),
                    peak_mb=round(read * SURVEY_BYTES / 1e6, 3))


def route_phase(job: GlobalJob, config: LicensesParams) -> PerShard:
    """Each shard's input to the assigning map: its slice of every partition's governance."""
    return PerShard(shards=route_slices(Path(job.work) / "slices.json", job.each(DECIDE), len(job.names)))


def assign_shard_phase(job: ShardJob, config: LicensesParams) -> Written:
    repo_licenses = routed_slices(job.input(ROUTE))
    return Written(ledger=license_shard(job.src, Path(job.dst), config, repo_licenses, rejects=Path(job.rejects),
                                        detector=detector(config)).to_dict())


def _origins(path: str) -> Iterator[tuple[str, Any]]:
    with open(path, "rb") as fh:
        for line in fh:
            origin, governance = orjson.loads(line)
            yield origin, governance


def licenses_finish(job: GlobalJob, config: LicensesParams) -> dict:
    """``repo_licenses.json``: the partitions' origins merged in origin order, written as they come."""
    decided = job.each(DECIDE)
    write_json_pairs(Path(job.dst) / REPO_LICENSES,
                     heapq.merge(*(_origins(part.origins) for part in decided), key=lambda pair: pair[0]))
    plan = job.of(PLAN)
    return {"partitions": {"count": plan.parts, "partition_mb": config.partition_mb, "survey_mb": plan.survey_mb,
                           "estimated_peak_mb": max((part.peak_mb for part in decided), default=0.0)}}


# The decision's partitions and the route read survey files named by path (uncached, like dedup's
# partitions); the plan is keyed on the surveys' names and sizes.
SURVEY = Map("survey", survey_shard_phase, SurveyRuns)
PLAN = Global("plan", plan_phase, DecisionPlan, inline=True)
DECIDE = Map("decide", decide_partition_phase, Governed, over="plan", cached=False)
ROUTE = Global("route", route_phase, PerShard, inline=True)
ASSIGN = Map("assign", assign_shard_phase, Written, writes=True)
LICENSES = Stage(STAGE, folder="licensed", config=lambda params: params.licenses, finish=licenses_finish,
                 phases=(SURVEY, PLAN, DECIDE, ROUTE, ASSIGN))


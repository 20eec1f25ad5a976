"""The snapshot's planning and writing: sources → planned origins → capped selection, then
processed origins → shards + manifest (quarry.stages.snapshot runs them as a stage).

A source is planned in parallel parts where its planning reads data (a corpus per shard, a table
per file), each part's origins spooled to disk (spool.py); the caps run in one process, in a fixed
order, over the origins' heads; origins are processed in parallel; the records, sorted by origin
then path, are cut into shards of about `shard_bytes` each by their line lengths alone, and the
shards and their file lists are written in parallel: any worker count gives the same bytes. No
list of every file is ever held in one process: the finish reads each origin's refusals in turn.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from quarry.config.snapshot import SnapshotParams
from quarry.infra.hashing import file_hash
from quarry.ledger import Ledger
from quarry.paths import state_dir
from quarry.records import JsonDict, RecordWriter, write_json
from quarry.snapshot import manifest as manifest_mod
from quarry.snapshot.filters import name_kind
from quarry.snapshot.listing import FILE_LIST_SUFFIX, FILE_LISTS
from quarry.snapshot.plan import OriginPlan, Refused, trace
from quarry.snapshot.process import cached_lines, cached_summary
from quarry.snapshot.sources import TABLES, plan_unit, planning_units
from quarry.snapshot.spool import OriginHead, Spool, joined, spool_plans

STAGE = "snapshot"


def cache_root() -> Path:
    return state_dir() / "cache" / "snapshot"


CapReport = dict[str, dict[str, dict[str, int]]]   # source -> cap -> files and bytes it left out


def capped_heads(sources: list[dict], planned: list[list[OriginHead]], cfg: SnapshotParams,
                 spool_path: Path) -> tuple[list[OriginHead], CapReport]:
    """Every source's planned origins (``planned``: heads per source) under the per-origin,
    per-source and total byte caps, in origin order, and what the caps left out.

    The caps take sources as listed, a source's origins sorted, an origin's license / README /
    METADATA files first, then by path; the rest are refused with the cap that stopped them. An
    origin that fits whole is never read back: only one a cap cuts is, and is spooled again as cut
    (to ``spool_path``)."""
    report: CapReport = {}
    capped: list[OriginHead] = []
    total_left = cfg.max_total_bytes
    with Spool(spool_path) as spool:
        for source, heads in zip(sources, planned):
            source_left = source.get("max_bytes", float("inf"))
            # a table's origin planned in parts (its rows in several files) is capped as one
            for head in sorted(joined(heads) if source["kind"] in TABLES else heads, key=lambda h: h.sort_key):
                # a corpus's or table's shards are its origins: its own max_bytes caps it whole, no per-shard cap
                origin_left = source.get("max_origin_bytes", float("inf") if head.documents else cfg.max_origin_bytes)
                if head.bytes <= min(origin_left, source_left, total_left):
                    source_left, total_left = source_left - head.bytes, total_left - head.bytes
                    capped.append(head)
                    continue
                plan = head.plan()
                plan.refused = head.refused()
                kept = []
                for cand in sorted(plan.candidates, key=lambda c: (c.priority, c.path)):
                    limits = {"cap_origin": origin_left, "cap_source": source_left, "cap_total": total_left}
                    if cand.size <= min(limits.values()):
                        kept.append(cand)
                        origin_left, source_left, total_left = (origin_left - cand.size, source_left - cand.size,
                                                                total_left - cand.size)
                        continue
                    reason = min(limits, key=lambda name: (limits[name], name))
                    plan.refused.append(Refused(cand.path, reason, {"bytes": cand.size, **trace(cand)},
                                                kind="document" if plan.documents else None))
                    entry = report.setdefault(plan.source, {}).setdefault(reason, {"files": 0, "bytes": 0})
                    entry["files"] += 1
                    entry["bytes"] += cand.size
                plan.candidates = sorted(kept, key=lambda c: c.path)
                capped.append(spool.add(plan))
    report = {source: dict(sorted(caps.items())) for source, caps in sorted(report.items())}
    return sorted(capped, key=lambda h: h.sort_key), report


def plan_all(sources: list[dict], cfg: SnapshotParams, staging: Path) -> list[OriginPlan]:
    """Every source planned and capped in this process, as whole plans (refusals with them)."""
    spool = Path(staging) / "spool"
    planned = [[head for part, unit in enumerate(planning_units(source))
                for head in spool_plans(plan_unit(source, unit, cfg, staging), spool / f"{number:06d}-{part:06d}.plans")]
               for number, source in enumerate(sources)]
    heads, _ = capped_heads(sources, planned, cfg, spool / "capped.plans")
    return [replace(head.plan(), refused=head.refused()) for head in heads]


def finalize(cfg: SnapshotParams, sources: list[dict], heads: list[OriginHead], results: list[dict], out_dir: Path,
             written: list[dict], caps: CapReport, cache_dir: Path) -> JsonDict:
    """Rejects, ledger.json and manifest.json of the processed origins (``results``, in origin
    order) and the shards and file lists written from them (``write_shard``)."""
    out_dir = Path(out_dir)
    shards, file_lists = [w["shard"] for w in written], [w["file_list"] for w in written]
    prune_shards(out_dir / "shards", shards)
    prune_shards(out_dir / FILE_LISTS, file_lists, f"part-*{FILE_LIST_SUFFIX}")
    ledger, kinds, origins = _seal_origins(heads, results, out_dir / "rejects" / "rejects.jsonl.zst", cfg, cache_dir)
    manifest = manifest_mod.build(sources, cfg, origins, results, shards, file_lists, ledger)
    # refusals by kind beside the counts (license, prose, code; document, unknown, folder: as the
    # name says before anything is read): a code rule that cut prose shows here
    write_json(out_dir / "ledger.json", {**ledger.to_dict(), "caps": caps, "kinds": kinds})
    write_json(out_dir / "manifest.json", manifest)
    return manifest


def describe_caps(caps: CapReport) -> str:
    """One line for the run's summary: nothing is capped without a word."""
    parts = [f"{source}: {cap} left out {n['files']:,} files ({n['bytes'] / 1e6:.2f} MB)"
             for source, by_cap in caps.items() for cap, n in by_cap.items()]
    return "left out by the byte caps: " + "; ".join(parts) if parts else ""


@dataclass(frozen=True)
class Piece:
    """A run of one processed origin's record lines: ``records`` records from its record ``first``,
    ``length`` bytes from byte ``start``."""

    key: str
    first: int
    start: int
    length: int
    records: int


def shard_layout(results: list[dict], shard_bytes: int, line_bytes: Callable[[str], list[int]]) -> list[list[Piece]]:
    """Where the shards cut, from the record lines' lengths alone: records in origin order, a shard
    closed after the record that brings it to ``shard_bytes``; each shard as its pieces. An origin's
    own line lengths (``line_bytes(key)``) are read only where a cut falls inside it."""
    shards: list[list[Piece]] = []
    pieces: list[Piece] = []
    filled = 0
    for result in results:
        key, total, count = result["key"], result["line_bytes"], result["records"]
        if not count:
            continue
        if filled + total < shard_bytes:   # no record of it closes a shard
            pieces.append(Piece(key, 0, 0, total, count))
            filled += total
            continue
        first = start = length = records = 0
        for size in line_bytes(key):
            length, records, filled = length + size, records + 1, filled + size
            if filled >= shard_bytes:
                shards.append([*pieces, Piece(key, first, start, length, records)])
                pieces, filled = [], 0
                first, start, length, records = first + records, start + length, 0, 0
        if records:
            pieces.append(Piece(key, first, start, length, records))
    if pieces:
        shards.append(pieces)
    return shards


def write_shard(pieces: list[Piece], cache_dir: Path, path: Path, list_path: Path) -> dict:
    """One shard of the snapshot from its pieces of the processed origins (their lines as written),
    and its file list (``list_path``): each record's origin, revision, id, path, size and labels."""
    with RecordWriter(path) as writer, RecordWriter(list_path, validate=False) as listing:
        for piece in pieces:
            writer.write_lines(cached_lines(cache_dir, piece.key, piece.start, piece.length), piece.records)
            summary = cached_summary(cache_dir, piece.key)
            for entry in summary["files"][piece.first:piece.first + piece.records]:
                listing.write({"origin": summary["origin"], "revision": summary["revision"], **entry})
    return {"shard": {"name": path.name, "records": writer.stats.records, "bytes": writer.stats.bytes,
                      "sha256": file_hash(path)},
            "file_list": {"name": list_path.name, "records": listing.stats.records, "sha256": file_hash(list_path)}}


def prune_shards(shard_dir: Path, shards: list[dict], pattern: str = "part-*.jsonl*") -> None:
    """Shards (or file lists) of an earlier, larger snapshot go."""
    names = {s["name"] for s in shards}
    for stale in shard_dir.glob(pattern):
        if stale.name not in names:
            stale.unlink()


def _seal_origins(heads: list[OriginHead], results: list[dict], path: Path, cfg: SnapshotParams,
                  cache_dir: Path) -> tuple[Ledger, dict[str, dict[str, int]], list[JsonDict]]:
    """Every refusal into the rejects file and the ledger, one origin at a time (its refusals read
    back from the plan's spool and the processed origin's summary); also counted by kind (kind ->
    reason -> files); and each origin's entry in the manifest."""
    ledger = Ledger(STAGE)
    kinds: Counter = Counter()
    origins = []
    with RecordWriter(path, validate=False) as rejects:
        ledger.rejects = rejects
        for head, result in zip(heads, results):
            planned = head.refused()
            refused = [(r.path, None, r.reason, {"kind": r.kind or name_kind(r.path, cfg), **r.detail})
                       for r in planned]
            refused += [(r["path"], r["id"], r["reason"], {k: v for k, v in r.items() if k not in ("path", "id", "reason")})
                        for r in cached_summary(cache_dir, result["key"])["refused"]]
            for rel, swhid, reason, detail in sorted(refused, key=lambda r: (r[0], r[2])):
                ledger.seen()
                ledger.drop({"meta": {"id": swhid, "origin": head.origin, "path": rel}}, reason, **detail)
                kinds[detail["kind"], reason] += 1
            ledger.seen(result["records"])
            ledger.keep(result["records"])
            origins.append(manifest_mod.origin_entry(head, planned, result, Counter(r[2] for r in refused)))
    ledger.rejects = None
    by_kind: dict[str, dict[str, int]] = {}
    for (kind, reason), n in sorted(kinds.items()):
        by_kind.setdefault(kind, {})[reason] = n
    return ledger, by_kind, origins


def clear_cache(cache_dir: Path | None = None) -> None:
    shutil.rmtree(cache_dir or cache_root(), ignore_errors=True)

"""The snapshot's planning and writing: sources → planned origins → capped selection, then
processed origins → shards + manifest (quarry.stages.snapshot runs them as a stage).

A source is planned in parallel parts where its planning reads data (a corpus, per shard); the
caps run in one process, in a fixed order; origins are processed in parallel;
the records, sorted by origin then path, are cut into shards of about `shard_bytes` each by their
line lengths alone, and the shards are written in parallel: any worker count gives the same bytes.
"""

from __future__ import annotations

import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from quarry.config.snapshot import SnapshotParams
from quarry.infra.hashing import file_hash
from quarry.ledger import Ledger
from quarry.paths import state_dir
from quarry.records import JsonDict, RecordWriter, write_json
from quarry.snapshot import manifest as manifest_mod
from quarry.snapshot.filters import name_kind
from quarry.snapshot.plan import OriginPlan, Refused, trace
from quarry.snapshot.process import cached_lines
from quarry.snapshot.sources import plan_source

STAGE = "snapshot"


def cache_root() -> Path:
    return state_dir() / "cache" / "snapshot"


def apply_caps(sources: list[dict], planned: list[list[OriginPlan]], cfg: SnapshotParams) -> None:
    """Keep candidates under the per-origin, per-source and total byte caps, in a fixed order
    (sources as listed, origins sorted, license / README / METADATA files first, then by path);
    the rest are refused with the cap that stopped them."""
    total_left = cfg.max_total_bytes
    for source, plans in zip(sources, planned):
        source_left = source.get("max_bytes", float("inf"))
        for plan in plans:
            # a corpus's or table's shards are its origins: its own max_bytes caps it whole, no per-shard cap
            origin_left = source.get("max_origin_bytes", float("inf") if plan.documents else cfg.max_origin_bytes)
            kept = []
            for cand in sorted(plan.candidates, key=lambda c: (c.priority, c.path)):
                limits = {"cap_origin": origin_left, "cap_source": source_left, "cap_total": total_left}
                if cand.size <= min(limits.values()):
                    kept.append(cand)
                    origin_left -= cand.size
                    source_left -= cand.size
                    total_left -= cand.size
                else:
                    reason = min(limits, key=lambda name: (limits[name], name))
                    plan.refused.append(Refused(cand.path, reason, {"bytes": cand.size, **trace(cand)},
                                                kind="document" if plan.documents else None))
            plan.candidates = sorted(kept, key=lambda c: c.path)


def plan_all(sources: list[dict], cfg: SnapshotParams, staging: Path) -> list[OriginPlan]:
    return capped_plans(sources, [plan_source(source, cfg, staging) for source in sources], cfg)


def capped_plans(sources: list[dict], planned: list[list[OriginPlan]], cfg: SnapshotParams) -> list[OriginPlan]:
    """Every source's planned origins (``planned``, a list per source) under the caps, in origin order."""
    for plans in planned:   # the caps take a source's origins in this order
        plans.sort(key=lambda p: p.sort_key)
    apply_caps(sources, planned, cfg)
    plans = [plan for plans in planned for plan in plans]
    return sorted(plans, key=lambda p: p.sort_key)


def finalize(cfg: SnapshotParams, sources: list[dict], plans: list[OriginPlan], results: list[dict], out_dir: Path,
             shards: list[dict]) -> JsonDict:
    """Rejects, ledger.json and manifest.json of the processed origins (in origin order) and the
    shards written from them (``write_shard``)."""
    out_dir = Path(out_dir)
    prune_shards(out_dir / "shards", shards)
    ledger, kinds = _write_rejects(plans, results, out_dir / "rejects" / "rejects.jsonl.zst", cfg)
    manifest = manifest_mod.build(sources, cfg, plans, results, shards, ledger)
    # refusals by kind beside the counts (license, prose, code; document, unknown, folder: as the
    # name says before anything is read): a code rule that cut prose shows here
    write_json(out_dir / "ledger.json", {**ledger.to_dict(), "caps": cap_report(plans), "kinds": kinds})
    write_json(out_dir / "manifest.json", manifest)
    return manifest


def cap_report(plans: list[OriginPlan]) -> dict[str, dict[str, dict[str, int]]]:
    """Source -> cap -> files and bytes it left out: every cap that refused anything."""
    report: dict[str, dict[str, dict[str, int]]] = {}
    for plan in plans:
        for refused in plan.refused:
            if refused.reason.startswith("cap_"):
                entry = report.setdefault(plan.source, {}).setdefault(refused.reason, {"files": 0, "bytes": 0})
                entry["files"] += 1
                entry["bytes"] += int(refused.detail.get("bytes", 0))
    return {source: dict(sorted(caps.items())) for source, caps in sorted(report.items())}


def describe_caps(caps: dict[str, dict[str, dict[str, int]]]) -> str:
    """One line for the run's summary: nothing is capped without a word."""
    parts = [f"{source}: {cap} left out {n['files']:,} files ({n['bytes'] / 1e6:.2f} MB)"
             for source, by_cap in caps.items() for cap, n in by_cap.items()]
    return "left out by the byte caps: " + "; ".join(parts) if parts else ""


@dataclass(frozen=True)
class Piece:
    """A run of one processed origin's record lines: ``length`` bytes from byte ``start``."""

    key: str
    start: int
    length: int
    records: int


def shard_layout(results: list[dict], shard_bytes: int) -> list[list[Piece]]:
    """Where the shards cut, from the record lines' lengths alone: records in origin order, a shard
    closed after the record that brings it to ``shard_bytes``; each shard as its pieces."""
    shards: list[list[Piece]] = []
    pieces: list[Piece] = []
    filled = 0
    for result in results:
        start = length = records = 0
        for size in result["line_bytes"]:
            length, records, filled = length + size, records + 1, filled + size
            if filled >= shard_bytes:
                shards.append([*pieces, Piece(result["key"], start, length, records)])
                pieces, filled = [], 0
                start, length, records = start + length, 0, 0
        if records:
            pieces.append(Piece(result["key"], start, length, records))
    if pieces:
        shards.append(pieces)
    return shards


def write_shard(pieces: list[Piece], cache_dir: Path, path: Path) -> dict:
    """One shard of the snapshot from its pieces of the processed origins (their lines as written)."""
    with RecordWriter(path) as writer:
        for piece in pieces:
            writer.write_lines(cached_lines(cache_dir, piece.key, piece.start, piece.length), piece.records)
    return {"name": path.name, "records": writer.stats.records, "bytes": writer.stats.bytes,
            "sha256": file_hash(path)}


def prune_shards(shard_dir: Path, shards: list[dict]) -> None:
    """Shards of an earlier, larger snapshot go."""
    names = {s["name"] for s in shards}
    for stale in shard_dir.glob("part-*.jsonl*"):
        if stale.name not in names:
            stale.unlink()


def _write_rejects(plans: list[OriginPlan], results: list[dict], path: Path,
                   cfg: SnapshotParams) -> tuple[Ledger, dict[str, dict[str, int]]]:
    """Every refusal into the rejects file and the ledger; also counted by kind: kind -> reason -> files."""
    ledger = Ledger(STAGE)
    kinds: Counter = Counter()
    with RecordWriter(path, validate=False) as rejects:
        ledger.rejects = rejects
        for plan, result in zip(plans, results):
            refused = [(r.path, None, r.reason, {"kind": r.kind or name_kind(r.path, cfg), **r.detail})
                       for r in plan.refused]
            refused += [(r["path"], r["id"], r["reason"], {k: v for k, v in r.items() if k not in ("path", "id", "reason")})
                        for r in result["refused"]]
            for rel, swhid, reason, detail in sorted(refused, key=lambda r: (r[0], r[2])):
                ledger.seen()
                ledger.drop({"meta": {"id": swhid, "origin": plan.origin, "path": rel}}, reason, **detail)
                kinds[detail["kind"], reason] += 1
            ledger.seen(len(result["files"]))
            ledger.keep(len(result["files"]))
    ledger.rejects = None
    by_kind: dict[str, dict[str, int]] = {}
    for (kind, reason), n in sorted(kinds.items()):
        by_kind.setdefault(kind, {})[reason] = n
    return ledger, by_kind


def clear_cache(cache_dir: Path | None = None) -> None:
    shutil.rmtree(cache_dir or cache_root(), ignore_errors=True)

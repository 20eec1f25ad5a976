"""The snapshot's planning and writing: sources → planned origins → capped selection, then
processed origins → shards + manifest (quarry.stages.snapshot runs them as a stage).

A source is planned in parallel parts where its planning reads data (a corpus per shard, a table
per file), each part's origins spooled to disk with their heads (spool.py); the caps run in one
process, in a fixed order, over the heads merged into one stream, and write the capped heads in
batches; the batches are processed in parallel, each origin's totals written beside them; the
records, sorted by origin then path, are cut into shards of about `shard_bytes` each by their line
lengths alone, and the shards and their file lists are written in parallel: any worker count gives
the same bytes. No list of every origin or file is ever held in one process: the caps, the layout
and the finish stream the origins from disk, and the manifest's origin entries go to origin lists
beside it, as the files go to file lists.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from quarry.config.snapshot import SnapshotParams
from quarry.infra.hashing import file_hash
from quarry.ledger import Ledger
from quarry.paths import state_dir
from quarry.records import JsonDict, RecordWriter, write_json
from quarry.snapshot import manifest as manifest_mod
from quarry.snapshot.filters import name_kind
from quarry.snapshot.listing import (FILE_LIST_SUFFIX, FILE_LISTS, ORIGIN_LIST_SUFFIX, ORIGIN_LISTS, ORIGINS_PER_LIST,
                                     origin_list_name)
from quarry.snapshot.plan import OriginPlan, Refused, trace
from quarry.snapshot.process import cached_lines, cached_summary, origin_totals, process_origin
from quarry.snapshot.sources import TABLES, plan_unit, planning_units
from quarry.snapshot.spool import OriginHead, Spool, joined, merged_heads, read_values, spool_plans, write_values

STAGE = "snapshot"


def cache_root() -> Path:
    return state_dir() / "cache" / "snapshot"


CapReport = dict[str, dict[str, dict[str, int]]]   # source -> cap -> files and bytes it left out

# Origins processed by one call of the origins map: a batch closes at either bound, so a batch
# of small origins is a few hundred and a large origin stands alone.
BATCH_ORIGINS = 256
BATCH_BYTES = 16_000_000


@dataclass(frozen=True)
class HeadBatch:
    """A run of capped origins, in origin order: their heads' file, how many, their bytes."""

    heads: str
    origins: int
    bytes: int


class Caps:
    """The per-origin, per-source and total byte caps, applied to one source after another."""

    def __init__(self, cfg: SnapshotParams, spool: Spool):
        self.cfg, self.spool = cfg, spool
        self.total_left = cfg.max_total_bytes
        self.report: CapReport = {}

    def apply(self, source: dict, heads: Iterable[OriginHead]) -> Iterator[OriginHead]:
        """``source``'s heads (in origin order) under the caps, in origin order. The caps take an
        origin's license / README / METADATA files first, then by path; the rest are refused with
        the cap that stopped them. An origin that fits whole is never read back: only one a cap
        cuts is, and is spooled again as cut."""
        source_left = source.get("max_bytes", float("inf"))
        for head in heads:
            # a corpus's or table's shards are its origins: its own max_bytes caps it whole, no per-shard cap
            origin_left = source.get("max_origin_bytes", float("inf") if head.documents else self.cfg.max_origin_bytes)
            if head.bytes <= min(origin_left, source_left, self.total_left):
                source_left, self.total_left = source_left - head.bytes, self.total_left - head.bytes
                yield head
                continue
            plan = head.plan()
            plan.refused = head.refused()
            kept = []
            for cand in sorted(plan.candidates, key=lambda c: (c.priority, c.path)):
                limits = {"cap_origin": origin_left, "cap_source": source_left, "cap_total": self.total_left}
                if cand.size <= min(limits.values()):
                    kept.append(cand)
                    origin_left, source_left, self.total_left = (origin_left - cand.size, source_left - cand.size,
                                                                 self.total_left - cand.size)
                    continue
                reason = min(limits, key=lambda name: (limits[name], name))
                plan.refused.append(Refused(cand.path, reason, {"bytes": cand.size, **trace(cand)},
                                            kind="document" if plan.documents else None))
                entry = self.report.setdefault(plan.source, {}).setdefault(reason, {"files": 0, "bytes": 0})
                entry["files"] += 1
                entry["bytes"] += cand.size
            plan.candidates = sorted(kept, key=lambda c: c.path)
            yield self.spool.add(plan)


def capped_batches(sources: list[dict], unit_heads: list[list[Path]], cfg: SnapshotParams,
                   work: Path) -> tuple[list[HeadBatch], CapReport]:
    """Every source's planned origins (``unit_heads``: per source, its planning units' head files,
    each in origin order) under the byte caps, and what the caps left out; the capped origins in
    origin order (equal origins in source order), cut into batches of at most ``BATCH_ORIGINS``
    origins or ``BATCH_BYTES`` bytes. The heads stream through: no list of origins is held."""
    work = Path(work)
    capped_files = []
    with Spool(work / "capped.plans") as spool:
        caps = Caps(cfg, spool)
        for number, (source, files) in enumerate(zip(sources, unit_heads)):
            heads = merged_heads(files, work / "merges")
            # a table's origin planned in parts (its rows in several files) is capped as one
            capped = caps.apply(source, joined(heads) if source["kind"] in TABLES else heads)
            capped_files.append(work / f"capped-{number:06d}.heads")
            write_values(capped, capped_files[-1])
    report = {source: dict(sorted(by_cap.items())) for source, by_cap in sorted(caps.report.items())}
    return _batches(merged_heads(capped_files, work / "merges"), work / "batches"), report


def _batches(heads: Iterator[OriginHead], folder: Path) -> list[HeadBatch]:
    batches: list[HeadBatch] = []
    batch: list[OriginHead] = []
    size = 0

    def close():
        path = folder / f"{len(batches):06d}.heads"
        write_values(batch, path)
        batches.append(HeadBatch(str(path), len(batch), size))

    for head in heads:
        if batch and (len(batch) == BATCH_ORIGINS or size + head.bytes > BATCH_BYTES):
            close()
            batch, size = [], 0
        batch.append(head)
        size += head.bytes
    if batch:
        close()
    return batches


def spool_unit(plans: list[OriginPlan], spool: Path, heads: Path) -> int:
    """A planning unit's plans spooled to ``spool``, their heads written to ``heads`` in origin order."""
    return write_values(sorted(spool_plans(plans, spool), key=lambda head: head.sort_key), heads)


def plan_all(sources: list[dict], cfg: SnapshotParams, staging: Path) -> list[OriginPlan]:
    """Every source planned and capped in this process, as whole plans (refusals with them)."""
    spool = Path(staging) / "spool"
    unit_heads = []
    for number, source in enumerate(sources):
        unit_heads.append([])
        for part, unit in enumerate(planning_units(source)):
            name = spool / f"{number:06d}-{part:06d}"
            spool_unit(plan_unit(source, unit, cfg, staging), name.with_suffix(".plans"), name.with_suffix(".heads"))
            unit_heads[-1].append(name.with_suffix(".heads"))
    batches, _ = capped_batches(sources, unit_heads, cfg, spool)
    return [replace(head.plan(), refused=head.refused()) for batch in batches for head in read_values(batch.heads)]


def process_batch(batch: HeadBatch, cfg: SnapshotParams, cache_dir: Path, results: Path) -> JsonDict:
    """A batch of origins processed (or found in the cache), one at a time: each one's totals
    (``origin_totals``) written to ``results`` in order; the batch's sums."""
    size, languages, subsets = 0, Counter(), Counter()

    def processed():
        nonlocal size
        for head in read_values(batch.heads):
            totals = origin_totals(process_origin(head.plan(), cfg, cache_dir))
            size += totals["bytes"]
            languages.update(totals["languages"])
            subsets.update(totals["subsets"])
            yield totals

    origins = write_values(processed(), results)
    return {"results": str(results), "origins": origins, "bytes": size,
            "languages": dict(sorted(languages.items())), "subsets": dict(sorted(subsets.items()))}


def processed_origins(batches: list[JsonDict]) -> Iterator[JsonDict]:
    """Every processed origin's totals, in origin order, from the batches' results."""
    for batch in batches:
        yield from read_values(batch["results"])


def finalize(cfg: SnapshotParams, sources: list[dict], batches: list[HeadBatch], sums: list[JsonDict], out_dir: Path,
             written: list[dict], caps: CapReport, cache_dir: Path) -> JsonDict:
    """Rejects, origin lists, ledger.json and manifest.json of the processed origins (``sums``:
    ``process_batch``'s, one per batch of ``batches``, in origin order) and the shards and file
    lists written from them (``write_shard``)."""
    out_dir = Path(out_dir)
    shards, file_lists = [w["shard"] for w in written], [w["file_list"] for w in written]
    prune_shards(out_dir / "shards", shards)
    prune_shards(out_dir / FILE_LISTS, file_lists, f"part-*{FILE_LIST_SUFFIX}")
    heads = (head for batch in batches for head in read_values(batch.heads))
    ledger, kinds, origin_lists = _seal_origins(heads, processed_origins(sums), out_dir, cfg, cache_dir)
    prune_shards(out_dir / ORIGIN_LISTS, origin_lists, f"part-*{ORIGIN_LIST_SUFFIX}")
    manifest = manifest_mod.build(sources, cfg, sums, shards, file_lists, origin_lists, ledger)
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


def shard_layout(results: Iterable[dict], shard_bytes: int,
                 line_bytes: Callable[[str], list[int]]) -> Iterator[list[Piece]]:
    """Where the shards cut, from the record lines' lengths alone: records in origin order, a shard
    closed after the record that brings it to ``shard_bytes``; each shard as its pieces, as it
    closes. An origin's own line lengths (``line_bytes(key)``) are read only where a cut falls inside it."""
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
                yield [*pieces, Piece(key, first, start, length, records)]
                pieces, filled = [], 0
                first, start, length, records = first + records, start + length, 0, 0
        if records:
            pieces.append(Piece(key, first, start, length, records))
    if pieces:
        yield pieces


def write_shard(pieces: list[Piece], cache_dir: Path, path: Path, list_path: Path) -> dict:
    """One shard of the snapshot from its pieces of the processed origins (their lines as written),
    and its file list (``list_path``): each record's origin, revision, id, path, size and labels."""
    with RecordWriter(path) as writer, RecordWriter(list_path, validate=False) as listing:
        for piece in pieces:
            summary = cached_summary(cache_dir, piece.key)
            writer.write_lines(cached_lines(cache_dir, summary, piece.start, piece.length), piece.records)
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


def _seal_origins(heads: Iterable[OriginHead], results: Iterable[dict], out_dir: Path, cfg: SnapshotParams,
                  cache_dir: Path) -> tuple[Ledger, dict[str, dict[str, int]], list[JsonDict]]:
    """Every refusal into the rejects file and the ledger, one origin at a time (its refusals read
    back from the plan's spool and the processed origin's summary); also counted by kind (kind ->
    reason -> files); and each origin's entry into the origin lists (``ORIGINS_PER_LIST`` each)."""
    ledger = Ledger(STAGE)
    kinds: Counter = Counter()
    lists = OriginLists(out_dir / ORIGIN_LISTS)
    with RecordWriter(out_dir / "rejects" / "rejects.jsonl.zst", validate=False) as rejects, lists:
        ledger.rejects = rejects
        for head, result in zip(heads, results, strict=True):
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
            lists.write(manifest_mod.origin_entry(head, planned, result, Counter(r[2] for r in refused)))
    ledger.rejects = None
    by_kind: dict[str, dict[str, int]] = {}
    for (kind, reason), n in sorted(kinds.items()):
        by_kind.setdefault(kind, {})[reason] = n
    return ledger, by_kind, lists.written


class OriginLists:
    """The manifest's origin entries written as lists of ``ORIGINS_PER_LIST`` each, beside it."""

    def __init__(self, folder: Path):
        self.folder, self.written = folder, []
        self._writer: RecordWriter | None = None

    def __enter__(self) -> OriginLists:
        return self

    def write(self, entry: JsonDict) -> None:
        if self._writer is None:
            self._writer = RecordWriter(self.folder / origin_list_name(len(self.written)), validate=False).__enter__()
        self._writer.write(entry)
        if self._writer.stats.records == ORIGINS_PER_LIST:
            self._close()

    def _close(self) -> None:
        writer, self._writer = self._writer, None
        writer.__exit__(None, None, None)
        self.written.append({"name": writer.path.name, "records": writer.stats.records, "sha256": file_hash(writer.path)})

    def __exit__(self, kind, *rest) -> None:
        if self._writer is None:
            return
        if kind is None:
            self._close()
        else:  # the list being written is left out, not sealed half-written
            self._writer.__exit__(kind, *rest)


def clear_cache(cache_dir: Path | None = None) -> None:
    shutil.rmtree(cache_dir or cache_root(), ignore_errors=True)

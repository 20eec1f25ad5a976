"""One origin → its records: read, address (SWHID), filter, detect language, assign a subset.

`process_origin` is the pure per-origin unit of work (the one a Prefect task runs and a process
pool maps). Its result is stored in the re-snapshot cache under a key made of the origin, its
revision, the content hash of every selected file, the processing params and the code and library
versions that process them, so an unchanged origin is never decoded twice.
"""

from __future__ import annotations

import bisect
import functools
import io
import os
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import zstandard

from quarry.config.snapshot import SnapshotParams
from quarry.infra.hashing import bytes_hash, value_hash
from quarry.errors import QuarryError
from quarry.records import JsonDict, dumps, read_records
from quarry.snapshot import filters, language
from quarry.snapshot.settings import processing_hash
from quarry.snapshot.blobs import BlobStore
from quarry.snapshot.plan import Candidate, OriginPlan, lineage, trace
from quarry.snapshot.swhid import content_swhid, directory_swhid, hex_of

FORMAT_VERSION = 4   # 2: a summary carries its records' line lengths (line_bytes); 3: records compressed as a
                     # stream; 4: in frames of about FRAME_BYTES, indexed in the summary (frames)
FRAME_BYTES = 4 << 20  # a shard cut inside an origin decompresses from the frame before its cut, not from the start
RECORDS_FILE = "records.jsonl.zst"
SUMMARY_FILE = "origin.json"
# every module and data file of this package that decides an origin's records (plan and settings
# reach the key by value: its candidates, their lineage, the processing params)
CODE_FILES = ("process.py", "filters.py", "language.py", "dialects.py", "signatures.py", "signatures_markup.py",
              "signatures_code.py", "signatures_specs.py", "signatures_general.py",
              "signatures_domain.py", "formats.py", "content_labels.json", "token_model.py",
              "language_tokens.json.gz", "swhid.py", "blobs.py", "rowgroups.py")


def read_contents(plan: OriginPlan) -> list[bytes | None]:
    """The bytes of every candidate, in candidate order (None: a blob its store does not hold)."""
    repo = None
    stores: dict[str, BlobStore] = {}
    out: list[bytes | None] = []
    in_tables: dict[tuple, list[tuple[int, int, tuple | None]]] = defaultdict(list)
    in_corpora: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for position, cand in enumerate(plan.candidates):
        kind = cand.locator[0]
        if kind == "file":
            out.append(Path(cand.locator[1]).read_bytes())
        elif kind == "git":
            if repo is None:
                from dulwich.repo import Repo

                repo = Repo(cand.locator[1])
            out.append(repo.object_store[cand.locator[2].encode()].data)
        elif kind == "blob":  # a table row's content, read here in the map, never in the plan
            store = stores.get(cand.locator[1]) or stores.setdefault(cand.locator[1], BlobStore(cand.locator[1]))
            out.append(store.read(cand.locator[2]))
        elif kind == "line":  # a corpus record, read back from its shard here (each shard once)
            in_corpora[cand.locator[1]].append((position, cand.locator[2]))
            out.append(None)
        elif kind == "row":   # ("row", file, kind, group, row, element, column, ...): each group read once
            _, file, table_kind, group, index, element, column = cand.locator[:7]
            in_tables[file, table_kind, group, column].append((position, index, element))
            out.append(None)
        else:
            out.append(cand.locator[1].encode("utf-8"))
    for file, wanted in sorted(in_corpora.items()):
        lines = dict((line, position) for position, line in wanted)
        for line, record in enumerate(read_records(file), start=1):
            if line in lines:
                out[lines[line]] = record["text"].encode("utf-8")
    if in_tables:
        from quarry.snapshot.rowgroups import column_of  # pyarrow: only a map over a table needs it

        for (file, table_kind, group, column), wanted in sorted(in_tables.items()):
            values = column_of(table_kind, file, group, column)
            for position, index, element in wanted:
                text = values[index] if index < len(values) else None
                if element is not None:   # a file of a repository's row: (its place in the list, its content field)
                    number, field_name = element
                    text = text[number].get(field_name) if text and number < len(text) else None
                out[position] = text.encode("utf-8") if isinstance(text, str) else None
    return out


@functools.cache
def code_fingerprint() -> str:
    """The code and library versions that decide a processed origin: a change re-processes it."""
    from importlib.metadata import version

    here = Path(__file__).parent
    sources = {name: bytes_hash((here / name).read_bytes()) for name in CODE_FILES}
    return value_hash({"format": FORMAT_VERSION, "code": sources,
                       "libraries": {lib: version(lib) for lib in ("pygments", "lingua-language-detector",
                                                                   "charset-normalizer", "swh.model", "magika")}})


def cache_key(plan: OriginPlan, swhids: list[str], cfg: SnapshotParams) -> str:
    files = [(c.path, c.mode, hex_of(s) if s else None, lineage(c)) for c, s in zip(plan.candidates, swhids)]
    return value_hash({"code": code_fingerprint(), "origin": plan.origin, "revision": plan.revision,
                       "subset": plan.subset, "files": files, "links": [(p, m, d.hex()) for p, m, d in plan.links],
                       "processing": processing_hash(cfg)})


def process_origin(plan: OriginPlan, cfg: SnapshotParams, cache_dir: Path) -> JsonDict:
    """Snapshot one origin into ``cache_dir/<key>/``; returns its summary (with the key).

    The summary holds the origin's directory SWHID, its file entries (SWHID, path, bytes,
    language, subset, encoding), the files refused while reading, with reasons, and where each
    zstd frame of its record lines starts: [first record, line offset, file offset].
    """
    contents = read_contents(plan)
    swhids = [content_swhid(data) if data is not None else None for data in contents]
    key = cache_key(plan, swhids, cfg)
    entry = cache_dir / key
    cached = _read_entry(entry)
    if cached is not None:
        return {**cached, "cached": True}
    files, refused, tree, line_bytes = [], [], [], []
    frames, offset = [[0, 0, 0]], 0
    compressed = io.BytesIO()
    # Each record is compressed as it is made and each content let go once read: the origin's
    # contents and its compressed lines are what it holds at once, not its records and lines too.
    with zstandard.ZstdCompressor(level=3).stream_writer(compressed, closefd=False) as lines:
        for position, (cand, swhid) in enumerate(zip(plan.candidates, swhids)):
            data, contents[position] = contents[position], None
            outcome = _blob_refusal(cand, swhid, cfg) or _process_file(plan, cand, data, swhid, cfg)
            if isinstance(outcome, Refusal):
                refused.append({"path": cand.path, "id": swhid, "reason": outcome.reason,
                                "bytes": len(data) if data is not None else cand.size, "kind": outcome.kind,
                                **outcome.detail, **trace(cand)})
                if outcome.reason in UNREAD:
                    continue  # not the content its row names: no part of the origin's tree
            else:
                if offset - frames[-1][1] >= FRAME_BYTES:  # a new frame from this record on
                    lines.flush(zstandard.FLUSH_FRAME)
                    frames.append([len(files), offset, compressed.tell()])
                line = dumps(outcome)
                lines.write(line)
                offset += len(line)
                line_bytes.append(len(line))  # where the snapshot's shards cut, decided before any is written
                meta = outcome["meta"]
                files.append({name: meta.get(name) for name in ("id", "path", "bytes", "language", "pile_set_name",
                                                              "encoding", "natural_language") if name in meta})
            tree.append((cand.path, cand.mode, bytes.fromhex(hex_of(swhid))))
    directory = plan.info.get("directory") or directory_swhid(tree + plan.links)
    payload = compressed.getbuffer()
    summary = {"key": key, "origin": plan.origin, "revision": plan.revision, "directory": directory,
               "files": files, "refused": refused, "records_sha256": bytes_hash(payload),
               "line_bytes": line_bytes, "frames": frames}
    _replace(entry / RECORDS_FILE, payload)
    _replace(entry / SUMMARY_FILE, orjson.dumps(summary))  # last: its presence marks a complete entry
    return {**summary, "cached": False}


def _replace(path: Path, data: bytes) -> None:
    """Atomic rename without fsync: a cache entry is checked by hash when read, so a torn write
    after a crash is detected and the origin processed again, at no fsync cost per origin."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def cached_summary(cache_dir: Path, key: str) -> dict:
    """A processed origin's summary, as ``process_origin`` wrote it."""
    path = os.path.join(cache_dir, key, SUMMARY_FILE)  # not a Path: pathlib interns every part, each origin's key
    try:
        with open(path, "rb") as fh:
            return orjson.loads(fh.read())
    except (OSError, ValueError) as exc:
        raise QuarryError(f"{path}: a processed origin's summary cannot be read ({exc})") from exc


def origin_totals(summary: dict) -> dict:
    """What the driver keeps of a processed origin's summary: its key, directory and totals, no list
    of its files (those stay in the cache, read back by the shards and the finish)."""
    files = summary["files"]
    return {"key": summary["key"], "directory": summary["directory"], "records": len(files),
            "bytes": sum(f["bytes"] for f in files), "line_bytes": sum(summary["line_bytes"]),
            "languages": dict(sorted(Counter(f["language"] for f in files).items())),
            "subsets": dict(sorted(Counter(f["pile_set_name"] for f in files).items())),
            "cached": summary["cached"]}


def _read_entry(entry: Path) -> dict | None:
    try:
        summary = orjson.loads((entry / SUMMARY_FILE).read_bytes())
        intact = bytes_hash((entry / RECORDS_FILE).read_bytes()) == summary["records_sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return summary if intact else None


def cached_lines(cache_dir: Path, summary: dict, start: int, length: int, chunk: int = 1 << 20) -> Iterator[bytes]:
    """``length`` bytes of a processed origin's record lines from byte ``start`` (uncompressed), in
    chunks, decompressed from the frame ``start`` falls in (``summary``: the origin's, as cached)."""
    path = os.path.join(cache_dir, summary["key"], RECORDS_FILE)
    frames = summary["frames"]
    _, position, seek = frames[bisect.bisect_right([f[1] for f in frames], start) - 1]
    end = start + length
    with open(path, "rb") as fh:
        fh.seek(seek)
        with zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True) as lines:
            while position < end:
                data = lines.read(min(chunk, end - position))
                if not data:
                    raise QuarryError(f"{path}: shorter than its summary says ({position} of {end} bytes)")
                if position + len(data) > start:
                    yield data[max(0, start - position):]
                position += len(data)


@dataclass(frozen=True)
class Refusal:
    reason: str
    kind: str                      # license, prose, code; before a file is read, what its name says
    detail: dict = field(default_factory=dict)


UNREAD = ("blob_missing", "row_missing", "swhid_mismatch")


def _blob_refusal(cand: Candidate, swhid: str | None, cfg: SnapshotParams) -> Refusal | None:
    """A table row whose content is missing (from its blob store, or from its row since planned),
    or is not the content its id names."""
    if cand.locator[0] == "line" and swhid is None:   # the shard lost the record since it was planned
        return Refusal("row_missing", _kind_unread(cand, True, cfg), {"file": cand.locator[1], "line": cand.locator[2]})
    if cand.locator[0] not in ("blob", "row"):
        return None
    expected = cand.locator[-2]   # ("blob", store, id, meta) | ("row", ..., id, meta)
    kind = _kind_unread(cand, bool((lineage(cand) or {}).get("standalone")), cfg)
    if swhid is None:
        return Refusal("blob_missing" if cand.locator[0] == "blob" else "row_missing", kind, {"content_id": expected})
    if expected is not None and hex_of(swhid) != expected:
        return Refusal("swhid_mismatch", kind, {"upstream": f"swh:1:cnt:{expected}", "content": swhid})
    return None


def _kind_unread(cand: Candidate, standalone: bool, cfg: SnapshotParams) -> str:
    """The kind of a file refused before its content says one: a document, else what its name says."""
    return "document" if standalone else filters.name_kind(cand.path, cfg)


def _process_file(plan: OriginPlan, cand: Candidate, data: bytes, swhid: str, cfg: SnapshotParams) -> dict | Refusal:
    given = lineage(cand)
    standalone = bool(given and given.get("standalone"))
    if cand.locator[0] == "text":
        text, encoding = cand.locator[1], "utf-8"
    elif cand.locator[0] in ("line", "row"):   # a corpus record's or a table's text column: text already
        text, encoding = data.decode("utf-8"), "utf-8"
    else:
        decoded = filters.decode(data)
        if decoded.refusal:
            return Refusal(decoded.refusal, _kind_unread(cand, standalone, cfg))
        text, encoding = decoded.text, decoded.encoding
    if not text.strip():
        return Refusal("empty", _kind_unread(cand, standalone, cfg))
    lang = language.detect(cand.path, data[:512], text)
    kind = filters.file_kind(cand.path, lang, cfg)
    if kind == "code" and lang == "Text only" and standalone:
        kind = "prose"  # a document of a corpus that is plain text is prose (a repository's may be data)
    rules = filters.rule_kind(kind, lang)
    if len(data) > filters.size_cap(rules, standalone, cfg):
        return Refusal("too_large", rules)
    refusal = filters.content_refusal(text, rules, cfg)
    if refusal:
        return Refusal(refusal, rules)
    if given and given.get("subset"):
        subset = given["subset"]
    else:
        subset = plan.subset or filters.subset_of(kind, lang, cfg)
    meta = {"id": swhid, "pile_set_name": subset, "origin": plan.origin, "revision": plan.revision,
            "path": cand.path, "language": lang, "bytes": len(data), "encoding": encoding}
    if kind == "prose":
        meta["natural_language"] = language.natural_language(text, cfg.natural_languages)
    if given:
        meta.update({k: v for k, v in given.items() if k not in ("subset", "row") and v is not None})
    return {"text": text, "meta": meta}

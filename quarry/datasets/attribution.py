"""The attribution bundle a dataset version ships (``ATTRIBUTION/``), so that redistributing it
honours the licences it was filtered for: MIT, BSD, Apache-2.0 and most others keep their text
only on condition that copies carry the copyright notices and the licence (Apache-2.0: its NOTICE
file too).

For every origin with a released document under such a licence the bundle holds:

- ``files/<origin>/<path>``: the origin's own licence, copying, copyright and NOTICE files from the
  snapshot, verbatim (whether or not curation released them as documents);
- ``licenses/<SPDX id>.txt``: the standard text of a licence named only by headers (an origin
  without a licence file of its own), from the licence data ScanCode ships (quarry.curation.licenses.texts);
- ``NOTICE.md``: per origin its licences (documents each), the copyright lines of its documents'
  headers, and links to its files; ``origins.jsonl``: the same for programs, a line per origin.

Origins come in the order of a 64-bit hash of their name (quarry.engine.partitions.text_key), so
that no process holds every origin: the assemble stage writes each input shard's ``Credits`` and
each snapshot shard's attribution files as runs sorted by that hash, a map over partitions of the
hash space writes each partition's part of the bundle (``write_part``), and the publication joins
the parts in partition order (``join_parts``). ``quarry audit`` re-derives what each origin needs
from the snapshot and reads only its partition's lines of ``origins.jsonl`` (``index_entries``: a
binary search of the sorted file); a derived version reads its parent's bundle the same way.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import orjson

from quarry.engine.output import link_or_copy
from quarry.engine.partitions import read_part, text_key, write_runs
from quarry.errors import QuarryError
from quarry.records import JsonDict, Record, iter_lines, json_bytes, read_json, read_records

FOLDER = "ATTRIBUTION"
INDEX = "origins.jsonl"
HELD_BYTES = 4   # what a bundle partition holds per byte of runs read: credits and files parsed
LEGACY_INDEX = "origins.json"   # versions built before the index was sorted by origin hash
# Licences that ask for nothing to be kept (public-domain dedications and their kin).
NO_ATTRIBUTION = {"cc0-1.0", "unlicense", "0bsd", "mit-0", "wtfpl", "cc-pddc", "licenseref-scancode-public-domain",
                  "licenseref-scancode-public-domain-disclaimer"}
ATTRIBUTED_CATEGORIES = {"permissive", "weak-copyleft", "strong-copyleft"}
_ATTRIBUTION_NAME = re.compile(r"^(licen[cs]es?|copying|copyright|notice|unlicense)([-._ ].*)?$", re.I)
_CODE_SUFFIX = re.compile(r"\.(py[iwx]?|pyc|[ch](pp|xx|c)?|hh|java|kt|go|rs|rb|php|pl|pm|sh|js|mjs|ts|lua|r|jl|swift|m)$",
                          re.I)  # copying.py is code about licences, not a licence
_COPYRIGHT = re.compile(r"^\W*(copyright\b|\(c\)\s*\d|©)", re.I)
_DATED = re.compile(r"\b(19|20)\d\d\b|\(c\)|©", re.I)   # a statement, not licence prose about "copyright notices"
_COMMENT_LEAD = re.compile(r"^[\s#/*;%!\-\"'<>]+")
_OPERATORS = {"AND", "OR", "WITH"}
HEADER_LINES = 40
MAX_LINE = 240


def license_ids(expression: str | None) -> list[str]:
    return sorted({t for t in re.findall(r"[A-Za-z0-9.+:-]+", expression or "") if t.upper() not in _OPERATORS})


def needs_attribution(license_: Mapping | None) -> bool:
    """Whether a document's licence (meta.license) asks copies to keep notices and its text."""
    if not license_ or license_.get("category") not in ATTRIBUTED_CATEGORIES:
        return False
    return any(i.lower() not in NO_ATTRIBUTION for i in license_ids(license_.get("spdx")))


def is_attribution_file(path: str) -> bool:
    """A licence, copying, copyright or NOTICE file, or any file of a LICENSES/ folder (REUSE, wheels)."""
    parts = PurePosixPath(path).parts
    return bool(parts) and not _CODE_SUFFIX.search(parts[-1]) and (
        bool(_ATTRIBUTION_NAME.match(parts[-1])) or (len(parts) > 1 and parts[-2].lower() in ("licenses", "license")))


def is_license_file(path: str) -> bool:
    return is_attribution_file(path) and not PurePosixPath(path).name.lower().startswith(("notice", "copyright"))


def copyright_lines(text: str, max_lines: int = HEADER_LINES) -> list[str]:
    """The copyright lines of a text's header, comment markers stripped."""
    found = []
    for line in text.splitlines()[:max_lines]:
        if _COPYRIGHT.match(line) and _DATED.search(line):
            clean = _COMMENT_LEAD.sub("", line).strip().rstrip("*/#").strip()
            if clean:
                found.append(clean[:MAX_LINE])
    return found


@dataclass
class Credits:
    """Per origin: documents per licence expression, and copyright lines (mergeable across splits)."""

    origins: dict[str, JsonDict] = field(default_factory=dict)

    def add(self, record: Record) -> None:
        meta = record.get("meta") or {}
        license_ = meta.get("license")
        if needs_attribution(license_):
            self._entry(meta.get("origin") or "", {license_["spdx"]: 1}, copyright_lines(record["text"]))

    def merge(self, other: Mapping[str, JsonDict]) -> Credits:
        for origin, found in other.items():
            self._entry(origin, found["licenses"], found["copyrights"])
        return self

    def _entry(self, origin: str, licenses: Mapping[str, int], copyrights: Iterable[str]) -> None:
        # copyright lines are a set while they gather (sorted once, by to_dict): add runs per document
        entry = self.origins.setdefault(origin, {"licenses": Counter(), "copyrights": set()})
        entry["licenses"].update(licenses)
        entry["copyrights"].update(copyrights)

    def to_dict(self) -> JsonDict:
        return {o: {"licenses": dict(sorted(e["licenses"].items())), "copyrights": sorted(e["copyrights"])}
                for o, e in sorted(self.origins.items())}

    def write_runs(self, prefix: str | os.PathLike) -> int:
        """These credits as runs by origin hash (quarry.engine.partitions); returns their bytes."""
        return write_runs(prefix, ((text_key(origin), json_bytes([origin, entry]))
                                   for origin, entry in self.to_dict().items()))


def shard_attribution_files(shard: Path, file_list: Path, prefix: str | os.PathLike) -> int:
    """The attribution files among a snapshot shard's records, their lines as they are, written as
    runs by origin hash under ``prefix``; returns the runs' bytes. The shard's file list (its
    records' metadata, in the same order) says which they are, so no line of the shard is parsed."""
    wanted = {number: entry.get("origin") or "" for number, entry in
              enumerate(read_records(file_list, require_text=False), start=1)
              if is_attribution_file((entry.get("path") or "").strip("/"))}
    found, lines = [], 0
    for lines, _, line in iter_lines(shard):
        if lines in wanted:
            found.append((text_key(wanted[lines]), bytes(line)))
    if wanted and max(wanted) > lines:
        raise QuarryError(f"{shard}: {lines} records, but its file list {file_list.name} names more")
    return write_runs(prefix, found)


def partition_credits(credit_runs: Iterable[str | os.PathLike], part: int, parts: int) -> list[tuple[str, JsonDict]]:
    """(origin, credits) of each credited origin in partition ``part`` of ``parts`` of the origin-hash
    space, in hash order, merged from every shard's runs (``Credits.write_runs``)."""
    credits = Credits()
    for prefix in credit_runs:
        credits.merge(dict(orjson.loads(entry) for _, entry in read_part(prefix, part, parts)))
    return sorted(credits.to_dict().items(), key=lambda item: (text_key(item[0]), item[0]))


def partition_files(file_runs: Iterable[str | os.PathLike], part: int, parts: int,
                    origins: set[str]) -> dict[str, dict[str, str]]:
    """origin -> path -> text of the attribution files of these origins (of partition ``part`` of
    ``parts``) in every snapshot shard's runs (``shard_attribution_files``), read in shard order."""
    files: dict[str, dict[str, str]] = {}
    for prefix in file_runs:
        for record in (orjson.loads(line) for _, line in read_part(prefix, part, parts)):
            meta = record.get("meta") or {}
            if meta.get("origin") in origins:
                files.setdefault(meta["origin"], {})[(meta.get("path") or "").strip("/")] = record["text"]
    return files


def origin_folder(origin: str) -> str:
    """A folder name for an origin: readable, and unique by a short hash of the whole name."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", re.sub(r"^[a-z]+://", "", origin)).strip("_.")[:80]
    return f"{readable or 'origin'}-{hashlib.sha256(origin.encode()).hexdigest()[:8]}"


def needed_texts(credits: Mapping[str, JsonDict], files: Mapping[str, Mapping[str, str]]) -> dict[str, list[str]]:
    """origin -> the licence ids whose standard text it needs: those of an origin without a licence file."""
    needed = {}
    for origin, entry in credits.items():
        if not any(is_license_file(p) for p in files.get(origin, {})):
            ids = {i for spdx in entry["licenses"] for i in license_ids(spdx) if i.lower() not in NO_ATTRIBUTION}
            if ids:
                needed[origin] = sorted(ids)
    return needed


@dataclass(frozen=True)
class BundlePart:
    """A partition's part of a bundle, written under ``folder`` (``write_part``)."""

    folder: str
    origins: int
    files: int
    texts: tuple[str, ...]           # the standard texts its origins link to
    texts_missing: tuple[str, ...]


def write_part(folder: Path, credits: list[tuple[str, JsonDict]], files: Mapping[str, Mapping[str, str]],
               texts_of: Callable[[set[str]], Mapping[str, str]]) -> BundlePart:
    """One partition's part of a bundle under ``folder``: its origins' files (``files/``), their
    lines of the index and their sections of NOTICE.md, in the order of ``credits`` ((origin,
    credits), ``partition_credits``). ``files``: origin -> path -> text of its attribution files;
    ``texts_of``: the standard texts it has of the licence ids asked for."""
    needed = needed_texts(dict(credits), files)
    texts = texts_of({i for ids in needed.values() for i in ids})
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    with open(folder / INDEX, "wb") as index, open(folder / "NOTICE.md", "w", encoding="utf-8") as notice:
        for origin, entry in credits:
            own = files.get(origin, {})
            base = f"files/{origin_folder(origin)}"
            for path, text in sorted(own.items()):
                target = folder / base / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(text.encode("utf-8"))   # verbatim: no newline translation
                count += 1
            line = {"origin": origin, **entry, "files": {p: f"{base}/{p}" for p in sorted(own)},
                    "texts": [i for i in needed.get(origin, []) if i in texts],
                    "texts_missing": [i for i in needed.get(origin, []) if i not in texts]}
            index.write(orjson.dumps(line) + b"\n")
            notice.write(notice_section(line))
    used = {i for ids in needed.values() for i in ids}
    return BundlePart(str(folder), len(credits), count, tuple(sorted(used & set(texts))),
                      tuple(sorted(used - set(texts))))


def join_parts(folder: Path, parts: Iterable[BundlePart], texts_of: Callable[[set[str]], Mapping[str, str]]) -> JsonDict:
    """Write ``folder`` (ATTRIBUTION/) from its parts, in the order given (the partitions' order: the
    origins' hash order); returns its summary for the manifest. The parts' files are linked, their
    index lines and NOTICE sections copied in turn: nothing is held but a part's file at a time."""
    parts = list(parts)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / INDEX, "wb") as index, open(folder / "NOTICE.md", "wb") as notice:
        notice.write(notice_header(sum(part.origins for part in parts)).encode("utf-8"))
        for part in parts:
            source = Path(part.folder)
            for name, target in ((INDEX, index), ("NOTICE.md", notice)):
                with open(source / name, "rb") as piece:
                    shutil.copyfileobj(piece, target)
            if (source / "files").is_dir():
                shutil.copytree(source / "files", folder / "files", copy_function=link_or_copy, dirs_exist_ok=True)
    used = sorted({i for part in parts for i in part.texts})
    texts = texts_of(set(used))
    for spdx in used:
        (folder / "licenses").mkdir(parents=True, exist_ok=True)
        (folder / "licenses" / f"{spdx}.txt").write_bytes(texts[spdx].encode("utf-8"))
    return {"origins": sum(part.origins for part in parts), "files": sum(part.files for part in parts),
            "licenses": used, "texts_missing": sorted({i for part in parts for i in part.texts_missing})}


def notice_header(origins: int) -> str:
    return "\n".join(["# Attribution", "",
                      f"This dataset version holds documents of {origins} origins whose licences ask copies to keep "
                      "their copyright notices and licence texts. For each origin: its licences (documents under each), "
                      "the copyright lines of its documents' headers, and its own licence and NOTICE files, verbatim "
                      "under `files/`. A licence named only by headers has its standard text under `licenses/`.", "", ""])


def notice_section(entry: Mapping) -> str:
    """An origin's section of NOTICE.md, from its line of the index."""
    lines = [f"## {entry['origin']}", "",
             "- licences: " + ", ".join(f"{spdx} ({n})" for spdx, n in entry["licenses"].items())]
    lines += [f"- [{path}]({target})" for path, target in entry["files"].items()]
    lines += [f"- standard text: [licenses/{i}.txt](licenses/{i}.txt)" for i in entry["texts"]]
    if entry["copyrights"]:
        lines += ["", *[f"    {line}" for line in entry["copyrights"]]]
    return "\n".join(lines) + "\n\n"


def index_range(bundle: Path, lo: int, hi: int) -> Iterator[JsonDict]:
    """The bundle's index entries whose origin hash is in ``[lo, hi)``, in hash order: a binary
    search of origins.jsonl (sorted by that hash) for the first, then a read to the last."""
    path = bundle / INDEX
    if not path.is_file():
        yield from _legacy_range(bundle, lo, hi)
        return
    with open(path, "rb") as fh:
        size = fh.seek(0, os.SEEK_END)

        def line_at(offset: int) -> tuple[int, bytes]:
            """The first whole line starting at ``offset`` or after it, and where it starts."""
            if offset:
                fh.seek(offset - 1)
                fh.readline()
            else:
                fh.seek(0)
            return fh.tell(), fh.readline()

        first, last = 0, size
        while first < last:  # the least offset whose next line's origin hashes to lo or more (or none follows)
            middle = (first + last) // 2
            _, line = line_at(middle)
            if not line or _line_key(line, path) >= lo:
                last = middle
            else:
                first = middle + 1
        fh.seek(line_at(first)[0])
        for line in fh:
            entry = _entry(line, path)
            if text_key(entry["origin"]) >= hi:
                return
            yield entry


def _line_key(line: bytes, path: Path) -> int:
    return text_key(_entry(line, path)["origin"])


def _entry(line: bytes, path: Path) -> JsonDict:
    try:
        entry = orjson.loads(line)
        entry["origin"]
    except (orjson.JSONDecodeError, KeyError, TypeError):
        raise QuarryError(f"{path}: a line is not an origin's entry: {line[:80]!r}") from None
    return entry


def _legacy_range(bundle: Path, lo: int, hi: int) -> Iterator[JsonDict]:
    """``index_range`` of a bundle with one origins.json (read whole: such versions are small)."""
    if not (bundle / LEGACY_INDEX).is_file():
        return
    found = [{"origin": origin, **entry} for origin, entry in read_json(bundle / LEGACY_INDEX).items()
             if lo <= text_key(origin) < hi]
    yield from sorted(found, key=lambda entry: (text_key(entry["origin"]), entry["origin"]))


def index_entries(bundle: Path, origins: Iterable[str]) -> dict[str, JsonDict]:
    """The bundle's index entries of these origins, from one read of the hash range they span."""
    wanted = set(origins)
    if not wanted:
        return {}
    keys = [text_key(origin) for origin in wanted]
    return {entry["origin"]: entry for entry in index_range(bundle, min(keys), max(keys) + 1)
            if entry["origin"] in wanted}


def missing(bundle: Path, credits: Mapping[str, JsonDict], files: Mapping[str, Mapping[str, str]]) -> list[JsonDict]:
    """What the bundle at ``bundle`` lacks for these origins' credits and snapshot files: one entry
    (origin, path, what) per missing or altered file."""
    index = index_entries(bundle, credits)
    gaps = []
    for origin in sorted(credits):
        entry = index.get(origin)
        if entry is None:
            gaps.append({"origin": origin, "path": INDEX, "what": "origin not listed"})
            continue
        for path, text in sorted(files.get(origin, {}).items()):
            target = bundle / f"files/{origin_folder(origin)}" / path
            if not target.is_file() or target.read_bytes() != text.encode("utf-8"):
                gaps.append({"origin": origin, "path": path, "what": f"{FOLDER}/{target.relative_to(bundle)} "
                             + ("altered" if target.is_file() else "missing")})
        for spdx in needed_texts({origin: credits[origin]}, files).get(origin, []):
            if not (bundle / "licenses" / f"{spdx}.txt").is_file():
                gaps.append({"origin": origin, "path": f"licenses/{spdx}.txt", "what": "standard text missing"})
    return gaps


def parent_files(bundle: Path, origins: Iterable[str]) -> dict[str, dict[str, str]]:
    """The licence and NOTICE files a (parent) bundle holds for these origins (a derived version's
    bundle starts from its parent's), by origin and path."""
    return {origin: {path: (bundle / target).read_bytes().decode("utf-8") for path, target in entry["files"].items()}
            for origin, entry in index_entries(bundle, origins).items()}


def bundle_texts(bundle: Path) -> Callable[[set[str]], dict[str, str]]:
    """The standard texts a (parent) bundle holds, read by licence id when asked for."""
    return lambda ids: {i: (bundle / "licenses" / f"{i}.txt").read_text(encoding="utf-8") for i in sorted(ids)
                        if (bundle / "licenses" / f"{i}.txt").is_file()}

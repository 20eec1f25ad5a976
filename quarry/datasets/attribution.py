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
  headers, and links to its files; ``origins.json``: the same for programs.

The assemble stage builds it (``Credits`` per split, then ``write_bundle``); ``quarry audit``
re-derives what each origin needs from the snapshot and fails a version whose bundle lacks it.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from quarry.errors import QuarryError
from quarry.records import JsonDict, Record, RecordWriter, iter_lines, read_json, read_records, write_json

FOLDER = "ATTRIBUTION"
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


def snapshot_files(records: Iterable[Record], origins: set[str]) -> dict[str, dict[str, str]]:
    """origin -> path -> text of the attribution files among ``records`` (of the given origins)."""
    found: dict[str, dict[str, str]] = {}
    for record in records:
        meta = record.get("meta") or {}
        origin, path = meta.get("origin"), (meta.get("path") or "").strip("/")
        if origin in origins and path and is_attribution_file(path):
            found.setdefault(origin, {})[path] = record["text"]
    return found


def shard_attribution_files(shard: Path, file_list: Path, out: str) -> int:
    """The attribution files among a snapshot shard's records, copied to ``out`` as they are; their
    count. The shard's file list (its records' metadata, in the same order) says which they are, so
    no line of the shard is parsed."""
    wanted = {number for number, entry in enumerate(read_records(file_list, require_text=False), start=1)
              if is_attribution_file((entry.get("path") or "").strip("/"))}
    lines = 0
    with RecordWriter(out, validate=False) as found:
        for lines, _, line in iter_lines(shard):
            if lines in wanted:
                found.write_lines((line, b"\n"), 1)
    if wanted and max(wanted) > lines:
        raise QuarryError(f"{shard}: {lines} records, but its file list {file_list.name} names more")
    return len(wanted)


def collected_files(parts: Iterable[str | os.PathLike], origins: set[str]) -> dict[str, dict[str, str]]:
    """origin -> path -> text of the attribution files ``shard_attribution_files`` copied (in shard
    order), of the given origins."""
    return snapshot_files((r for part in parts for r in read_records(part)), origins)


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


def write_bundle(folder: Path, credits: Mapping[str, JsonDict], files: Mapping[str, Mapping[str, str]],
                 texts_of: Callable[[set[str]], Mapping[str, str]]) -> JsonDict:
    """Write ``folder`` (ATTRIBUTION/); returns its summary for the manifest. ``texts_of``: the
    standard texts of the licence ids asked for (those it lacks are listed as missing)."""
    needed = needed_texts(credits, files)
    texts = texts_of({i for ids in needed.values() for i in ids})
    index: JsonDict = {}
    for origin, entry in sorted(credits.items()):
        own = files.get(origin, {})
        base = f"files/{origin_folder(origin)}"
        for path, text in sorted(own.items()):
            target = folder / base / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))   # verbatim: no newline translation
        index[origin] = {**entry, "files": {p: f"{base}/{p}" for p in sorted(own)},
                         "texts": [i for i in needed.get(origin, []) if i in texts],
                         "texts_missing": [i for i in needed.get(origin, []) if i not in texts]}
    for spdx in sorted({i for ids in needed.values() for i in ids if i in texts}):
        (folder / "licenses").mkdir(parents=True, exist_ok=True)
        (folder / "licenses" / f"{spdx}.txt").write_bytes(texts[spdx].encode("utf-8"))
    folder.mkdir(parents=True, exist_ok=True)
    write_json(folder / "origins.json", index)
    (folder / "NOTICE.md").write_text(render(index), encoding="utf-8")
    return {"origins": len(index), "files": sum(len(e["files"]) for e in index.values()),
            "licenses": sorted({i for e in index.values() for i in e["texts"]}),
            "texts_missing": sorted({i for e in index.values() for i in e["texts_missing"]})}


def render(index: Mapping[str, JsonDict]) -> str:
    lines = ["# Attribution", "",
             f"This dataset version holds documents of {len(index)} origins whose licences ask copies to keep "
             "their copyright notices and licence texts. For each origin: its licences (documents under each), "
             "the copyright lines of its documents' headers, and its own licence and NOTICE files, verbatim "
             "under `files/`. A licence named only by headers has its standard text under `licenses/`.", ""]
    for origin, entry in index.items():
        lines += [f"## {origin}", "",
                  "- licences: " + ", ".join(f"{spdx} ({n})" for spdx, n in entry["licenses"].items())]
        lines += [f"- [{path}]({target})" for path, target in entry["files"].items()]
        lines += [f"- standard text: [licenses/{i}.txt](licenses/{i}.txt)" for i in entry["texts"]]
        if entry["copyrights"]:
            lines += ["", *[f"    {line}" for line in entry["copyrights"]]]
        lines.append("")
    return "\n".join(lines)


def missing(bundle: Path, credits: Mapping[str, JsonDict], files: Mapping[str, Mapping[str, str]]) -> list[JsonDict]:
    """What the bundle at ``bundle`` lacks for these origins' credits and snapshot files: one entry
    (origin, path, what) per missing or altered file."""
    index = read_json(bundle / "origins.json") if (bundle / "origins.json").is_file() else {}
    gaps = []
    for origin in sorted(credits):
        entry = index.get(origin)
        if entry is None:
            gaps.append({"origin": origin, "path": "origins.json", "what": "origin not listed"})
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


def read_bundle(bundle: Path) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """A bundle's origin files and standard texts (a derived version's bundle starts from its parent's)."""
    if not (bundle / "origins.json").is_file():
        return {}, {}
    files = {origin: {path: (bundle / target).read_bytes().decode("utf-8") for path, target in entry["files"].items()}
             for origin, entry in read_json(bundle / "origins.json").items()}
    texts = {p.stem: p.read_text(encoding="utf-8") for p in sorted((bundle / "licenses").glob("*.txt"))}
    return files, texts

"""License governance on this machine's own Debian packages, scored against their DEP-5 copyright files.

Two real layouts, every file labelled by its package's machine-readable ``copyright`` (the last
``Files:`` paragraph whose pattern, leading folders dropped, matches the installed path; the
package's own ``debian/*`` paragraphs aside):

- ``site``: the system's Python folder (``/usr/lib/python3/dist-packages``) as one origin: many
  distributions side by side, wheels with their RECORD, Debian's eggs with top_level.txt;
- ``packages``: each package with a machine-readable copyright as one origin: its installed text
  files (Perl modules, C headers, Python, shell scripts) under their folder's name, and its
  documentation (README, NOTICE, license files) at the top; the copyright file itself left out.

The licenses stage runs over both with the default policy (permissive and public domain kept).
Reported per layout: must-drop files kept (the label's category is not allowed), must-keep files
dropped, exact SPDX (equivalent expressions) and category agreement, over the files whose label
is an SPDX expression; ``with_evidence``: the same over the files the stage found any license for.

    python bench/licenses_debian.py                 # both layouts, up to 150 packages (minutes)
    python bench/licenses_debian.py --packages 20   # a quick look
"""

from __future__ import annotations

import argparse
import fnmatch
import gzip
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from floors import Floors  # noqa: E402
from license_expression import ExpressionError, Licensing  # noqa: E402

from quarry.engine import run_local  # noqa: E402
from quarry.curation.licenses.cache import CachedDetector  # noqa: E402
from quarry.curation.licenses.declarations import _paragraphs, debian_expression  # noqa: E402
from quarry.curation.licenses.findings import LicenseFinding  # noqa: E402
from quarry.curation.licenses.policy import LicensePolicy  # noqa: E402
from quarry.curation.licenses.shards import stage_shards  # noqa: E402
from quarry.records import read_folder, read_records, write_records  # noqa: E402
from quarry.stages.licenses import LICENSES  # noqa: E402

SITE = Path("/usr/lib/python3/dist-packages")
DOCS = Path("/usr/share/doc")
# Installed folders whose text files a package contributes, and the folder name they get.
ROOTS = {"/usr/share/perl5/": "perl5/", "/usr/lib/x86_64-linux-gnu/perl5/": "perl5/", "/usr/include/": "include/",
         "/usr/bin/": "bin/", "/usr/sbin/": "sbin/", "/usr/lib/python3/dist-packages/": "python3/",
         "/usr/share/bash-completion/": "completion/"}
DOC_NAMES = ("readme", "notice", "license", "licence", "copying", "authors")
MAX_FILE = 200_000
_licensing = Licensing()


def dep5(package: str) -> list[tuple[list[str], str | None]] | None:
    """(patterns, SPDX label or None) per Files paragraph of a package's copyright, or None."""
    path = DOCS / package / "copyright"
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    stanzas = _paragraphs(text)
    if not stanzas or "copyright-format" not in stanzas[0].get("format", ""):
        return None
    rules = []
    for stanza in stanzas:
        if "files" in stanza and stanza.get("license"):
            patterns = [p for p in stanza["files"].split() if not p.startswith("debian/")]
            if patterns:
                rules.append((patterns, debian_expression(stanza["license"].split("\n", 1)[0])))
    return rules or None


def _matches(pattern: str, path: str) -> bool:
    parts = pattern.strip("/").split("/")
    variants = [pattern] if pattern == "*" else ["/".join(parts[k:]) for k in range(len(parts))
                                                   if "/".join(parts[k:]) not in ("*", "")]
    tails = ["/".join(path.split("/")[k:]) for k in range(path.count("/") + 1)]
    return any(fnmatch.fnmatchcase(tail, v) for v in variants for tail in tails)


def label(rules: list[tuple[list[str], str | None]], path: str) -> str | None:
    hit = None
    for patterns, expression in rules:
        if any(_matches(p, path) for p in patterns):
            hit = (expression,)
    return hit[0] if hit else None


def read_text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    if len(data) > MAX_FILE or b"\0" in data[:8000]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def owners(paths: list[str]) -> dict[str, str]:
    """installed path -> Debian package (dpkg -S)."""
    found: dict[str, str] = {}
    for start in range(0, len(paths), 400):
        done = subprocess.run(["dpkg", "-S", *paths[start:start + 400]], capture_output=True, text=True)
        for line in done.stdout.splitlines():
            package, _, path = line.partition(": ")
            found.setdefault(path.strip(), package.split(":")[0].split(",")[0].strip())
    return found


def site_layout() -> tuple[list[dict], dict[tuple[str, str], str | None]]:
    files = sorted(p for p in SITE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    owner = owners([str(p) for p in files])
    records, labels, cache = [], {}, {}
    for path in files:
        text = read_text(path)
        package = owner.get(str(path))
        if text is None or package is None:
            continue
        rel = path.relative_to(SITE).as_posix()
        if package not in cache:
            cache[package] = dep5(package)
        records.append(_record("debian:dist-packages", rel, text))
        labels[("debian:dist-packages", rel)] = label(cache[package], rel) if cache[package] else None
    return records, labels


def package_layout(limit: int) -> tuple[list[dict], dict[tuple[str, str], str | None]]:
    records, labels = [], {}
    packages = sorted(p.parent.name for p in DOCS.glob("*/copyright"))
    taken = 0
    for package in packages:
        rules = dep5(package)
        if rules is None or taken >= limit:
            continue
        listed = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True).stdout.splitlines()
        files: dict[str, str] = {}
        for installed in listed:
            root = next((r for r in ROOTS if installed.startswith(r)), None)
            doc = installed.startswith(f"/usr/share/doc/{package}/") and \
                Path(installed).name.lower().startswith(DOC_NAMES)
            if (root or doc) and Path(installed).is_file() and not Path(installed).is_symlink():
                if (text := read_text(Path(installed))) is not None:
                    rel = Path(installed).name.removesuffix(".gz") if doc else ROOTS[root] + installed[len(root):]
                    files[rel] = text
        code = [rel for rel in files if "/" in rel]
        if not code:
            continue
        taken += 1
        origin = f"debian:{package}"
        for rel, text in sorted(files.items())[:80]:
            records.append(_record(origin, rel, text))
            labels[(origin, rel)] = label(rules, rel.split("/", 1)[1] if "/" in rel else rel)
    return records, labels


def _record(origin: str, path: str, text: str) -> dict:
    return {"text": text, "meta": {"id": f"{origin}:{path}", "origin": origin, "path": path,
                                   "bytes": len(text.encode())}}


def read_labels(expressions: set[str], detector: CachedDetector) -> dict[str, tuple[str, str]]:
    """Each label as the stage reads an SPDX line of it (ScanCode's ids: "BSD-2" is BSD-2-Clause),
    with its category."""
    ordered = sorted(expressions)
    results = detector.detect([f"SPDX-License-Identifier: {e}" for e in ordered])
    return {e: ((f.spdx, f.category) if (f := LicenseFinding.from_result(r)) else (e, "unknown"))
            for e, r in zip(ordered, results)}


def equivalent(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return False
    try:
        return bool(_licensing.is_equivalent(a, b))
    except ExpressionError:
        return False


def score(out: Path, labels: dict, read: dict[str, tuple[str, str]]) -> dict:
    policy = LicensePolicy()
    kept = {(r["meta"]["origin"], r["meta"]["path"]): r["meta"]["license"]
            for shard in stage_shards(out) for r in read_records(shard)}
    dropped = {(r["meta"]["origin"], r["meta"]["path"]): r["meta"] for r in read_folder(out / "rejects")}
    tally: Counter = Counter()
    misses: Counter = Counter()
    for key, truth in labels.items():
        if truth is None or (key not in kept and key not in dropped):
            continue
        if key in dropped and dropped[key].get("reason") == "license:install-listing":
            continue
        ours = kept[key] if key in kept else dropped[key]
        spdx = ours.get("spdx")
        category = ours["category"] if key in kept else ours["reason"].removeprefix("license:")  # a reject's reason
        truth, truth_category = read[truth]
        allowed = truth_category in policy.allow_categories
        evidence = bool(spdx)
        for scope in ("all", "with_evidence") if evidence else ("all",):
            tally[f"{scope}.files"] += 1
            tally[f"{scope}.must_keep"] += allowed
            tally[f"{scope}.must_drop"] += not allowed
            tally[f"{scope}.must_drop_kept"] += (not allowed) and key in kept
            tally[f"{scope}.must_keep_dropped"] += allowed and key in dropped
            tally[f"{scope}.exact"] += equivalent(spdx, truth)
            tally[f"{scope}.category"] += category == truth_category
        if evidence and not equivalent(spdx, truth):
            misses[f"{spdx} != {truth}"] += 1
    report = {}
    for scope in ("all", "with_evidence"):
        n = tally[f"{scope}.files"]
        report[scope] = {"files": n, "must_drop": tally[f"{scope}.must_drop"],
                         "must_drop_kept": tally[f"{scope}.must_drop_kept"],
                         "must_keep": tally[f"{scope}.must_keep"],
                         "must_keep_dropped": tally[f"{scope}.must_keep_dropped"],
                         "must_keep_dropped_share": round(tally[f"{scope}.must_keep_dropped"] /
                                                          max(1, tally[f"{scope}.must_keep"]), 4),
                         "exact_spdx": round(tally[f"{scope}.exact"] / max(1, n), 4),
                         "category": round(tally[f"{scope}.category"] / max(1, n), 4)}
    report["top_misses"] = dict(misses.most_common(12))
    return report


def run_layout(name: str, records: list[dict], labels: dict, work: Path, detector: CachedDetector) -> dict:
    src = work / name / "snapshot"
    for n in range(2):
        write_records(src / f"part-{n:05d}.jsonl.zst", records[n::2])
    out = work / name / "licensed"
    run_local(LICENSES, src, out, {"licenses": {}}, workers=1)
    read = read_labels({t for t in labels.values() if t}, detector)
    return {"origins": len({r["meta"]["origin"] for r in records}), "records": len(records),
            "labelled": sum(1 for t in labels.values() if t), **score(out, labels, read)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", type=int, default=150, help="Debian packages in the packages layout")
    parser.add_argument("--layouts", default="site,packages")
    parser.add_argument("--work", type=Path, default=None, help="keep each layout's records and results here")
    args = parser.parse_args(argv)
    report = {}
    with tempfile.TemporaryDirectory(prefix="quarry-bench-debian-") as tmp, CachedDetector() as detector:
        work = args.work or Path(tmp)
        for name in args.layouts.split(","):
            records, labels = site_layout() if name == "site" else package_layout(args.packages)
            report[name] = run_layout(name, records, labels, work, detector)
            (work / name / "labels.json").write_text(json.dumps({f"{o} {p}": t for (o, p), t in labels.items()}))
    floors = Floors()
    if "site" in report:  # files with no license evidence at all (no owner, no header) are kept as no-license
        site = report["site"]
        floors.equals("site.with_evidence.must_drop_kept", site["with_evidence"]["must_drop_kept"], 0)
        floors.at_most("site.all.must_keep_dropped_share", site["all"]["must_keep_dropped_share"], 0.02)
        floors.at_least("site.with_evidence.category", site["with_evidence"]["category"], 0.99)
    floors.emit(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

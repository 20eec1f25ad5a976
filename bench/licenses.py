"""License detection against package metadata, and throughput with a cold and a warm cache.

Every distribution installed in this environment is a small repository: the license files its
wheel ships (dist-info/ and dist-info/licenses/) at the root. Quarry's repository-level detection
(ScanCode through the worker and cache) runs over them and is compared with what the package
declares in its metadata — License-Expression, else a short License field, else its trove
classifiers — side by side with a keyword baseline (the first lines' license title, the way
simple detectors work). Prints one JSON document.

    python bench/licenses.py                          # 120 distributions: a few minutes here
    python bench/licenses.py --limit 0 --scancode-workers 2   # every installed distribution
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from license_expression import get_spdx_licensing

from quarry.licenses.cache import CachedDetector
from quarry.licenses.policy import leaf_keys
from quarry.licenses.repository import detect_repo_licenses
from quarry.licenses.sources import LICENSE_TIER, repo_file_tier

SPDX = get_spdx_licensing()

# Trove classifiers and free-text License fields, to SPDX ids ("BSD-*": any BSD variant).
CLASSIFIERS = {
    "MIT License": "MIT", "MIT No Attribution License (MIT-0)": "MIT-0", "Apache Software License": "Apache-2.0",
    "BSD License": "BSD-*", "ISC License (ISCL)": "ISC", "Python Software Foundation License": "PSF-2.0",
    "Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0", "The Unlicense (Unlicense)": "Unlicense",
    "GNU General Public License v2 (GPLv2)": "GPL-2.0-*", "GNU General Public License v3 (GPLv3)": "GPL-3.0-*",
    "GNU Lesser General Public License v2 (LGPLv2)": "LGPL-2.*",
    "GNU Lesser General Public License v3 (LGPLv3)": "LGPL-3.0-*",
    "GNU Library or Lesser General Public License (LGPL)": "LGPL-*", "Zope Public License": "ZPL-2.1",
    "Historical Permission Notice and Disclaimer (HPND)": "HPND", "Eclipse Public License 2.0 (EPL-2.0)": "EPL-2.0",
    "GNU Affero General Public License v3": "AGPL-3.0-*", "Boost Software License 1.0 (BSL-1.0)": "BSL-1.0",
}
FREE_TEXT = {
    "mit": "MIT", "mit license": "MIT", "bsd": "BSD-*", "bsd license": "BSD-*", "new bsd": "BSD-3-Clause",
    "new bsd license": "BSD-3-Clause", "3-clause bsd": "BSD-3-Clause", "bsd 3-clause": "BSD-3-Clause",
    "modified bsd": "BSD-3-Clause", "apache 2.0": "Apache-2.0", "apache license 2.0": "Apache-2.0",
    "apache license, version 2.0": "Apache-2.0", "apache software license": "Apache-2.0", "apache": "Apache-2.0",
    "psf": "PSF-2.0", "psf license": "PSF-2.0", "python software foundation license": "PSF-2.0",
    "mpl-2.0": "MPL-2.0", "mpl 2.0": "MPL-2.0", "isc": "ISC", "isc license": "ISC", "zpl 2.1": "ZPL-2.1",
    "lgpl": "LGPL-*", "gpl": "GPL-*", "public domain": "LicenseRef-public-domain",
}
# The keyword baseline: a license title in the first lines names it.
TITLES = [
    (r"apache license\s*,?\s*version 2\.0", "Apache-2.0"), (r"\bmit license\b|permission is hereby granted, free "
                                                            r"of charge", "MIT"),
    (r"mozilla public license,? (version )?2\.0", "MPL-2.0"), (r"gnu lesser general public license", "LGPL-*"),
    (r"gnu affero general public license", "AGPL-3.0-*"), (r"gnu general public license", "GPL-*"),
    (r"redistribution and use in source and binary forms", "BSD-*"), (r"\bisc license\b", "ISC"),
    (r"python software foundation license", "PSF-2.0"), (r"the unlicense|this is free and unencumbered", "Unlicense"),
]


def declared_ids(dist) -> tuple[str, set[str]] | None:
    """(source, SPDX ids) that the package's metadata declares; None when it declares nothing usable."""
    meta = dist.metadata
    if expression := meta.get("License-Expression"):
        try:
            return "License-Expression", set(leaf_keys(expression))
        except ValueError:
            pass
    text = (meta.get("License") or "").strip()
    if text and "\n" not in text and len(text) < 80:
        if text.lower() in FREE_TEXT:
            return "License", {FREE_TEXT[text.lower()]}
        try:
            if not SPDX.validate(text).errors:
                return "License", set(leaf_keys(text))
        except (AttributeError, ValueError):
            pass
    found = {CLASSIFIERS[c.split(" :: ")[-1]] for c in meta.get_all("Classifier") or []
             if c.startswith("License ::") and c.split(" :: ")[-1] in CLASSIFIERS}
    return ("classifiers", found) if found else None


def license_files(dist) -> dict[str, str]:
    """The dist's own license files as root-level repository files (bundled third-party ones left out)."""
    files = {}
    for entry in dist.files or []:
        parts = entry.parts
        if not parts[0].endswith(".dist-info"):
            continue
        if not (len(parts) == 2 or (len(parts) == 3 and parts[1] == "licenses")):
            continue
        if repo_file_tier(entry.name) != LICENSE_TIER:
            continue
        try:
            files[entry.name] = Path(dist.locate_file(entry)).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return files


DEPRECATED_GNU = re.compile(r"^(A|L)?GPL-\d\.\d$")  # GPL-3.0 means -only or -or-later: either matches


def family_match(truth: str, detected: set[str]) -> bool:
    if DEPRECATED_GNU.match(truth):
        truth += "-*"
    if truth.endswith("*"):
        return any(d.startswith(truth[:-1]) for d in detected)
    return truth in detected or (truth == "PSF-2.0" and any(d.startswith("Python-2.0") for d in detected))


def agreement(truth: set[str], detected: set[str]) -> tuple[bool, bool]:
    """(every declared license detected, and nothing else detected)."""
    covered = all(family_match(t, detected) for t in truth)
    extra = [d for d in detected if not any(family_match(t, {d}) for t in truth)]
    return covered, covered and not extra


def keyword_baseline(files: dict[str, str]) -> set[str]:
    found = set()
    for text in files.values():
        head = " ".join(text.lower().split()[:200])
        for pattern, spdx in TITLES:
            if re.search(pattern, head):
                found.add(spdx.replace("-*", "-2.0-only") if spdx.endswith("-*") and "GPL" in spdx else spdx)
                break
    return {f.replace("BSD-*", "BSD-3-Clause") for f in found}


def corpus(limit: int | None) -> list[dict]:
    repos = []
    for dist in sorted(md.distributions(), key=lambda d: (d.metadata["Name"] or "").lower()):
        declared = declared_ids(dist)
        files = license_files(dist)
        if declared and files:
            repos.append({"name": dist.metadata["Name"], "source": declared[0], "truth": declared[1],
                          "files": files})
    unique = {r["name"].lower(): r for r in repos}
    repos = [unique[k] for k in sorted(unique)]
    return repos[:limit] if limit else repos


def detect(repos: list[dict], cache_dir: Path, workers: int) -> tuple[dict, float, dict]:
    files = {r["name"]: {path: (LICENSE_TIER, text) for path, text in r["files"].items()} for r in repos}
    start = time.perf_counter()
    with CachedDetector(cache_dir, batch_size=8, workers=workers) as detector:
        found = detect_repo_licenses(files, detector)
        info = {"scancode_calls": detector.scancode_calls, "cache_hits": detector.stats.hits,
                "scancode_workers": detector.started_workers, "index_load_s": round(detector.index_seconds, 2)}
    return found, time.perf_counter() - start, info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=120, help="at most this many distributions (0: all)")
    parser.add_argument("--show", type=int, default=25, help="disagreements to list")
    parser.add_argument("--scancode-workers", type=int, default=1, help="ScanCode processes for the cold run")
    args = parser.parse_args(argv)

    repos = corpus(args.limit)
    with tempfile.TemporaryDirectory(prefix="quarry-license-bench-") as cache:
        found, cold_s, cold = detect(repos, Path(cache), args.scancode_workers)
        _, warm_s, warm = detect(repos, Path(cache), args.scancode_workers)

    rows = {"scancode": [0, 0], "keywords": [0, 0]}
    disagreements = []
    for repo in repos:
        spdx = found[repo["name"]]["spdx"]
        detected = set(leaf_keys(spdx)) if spdx else set()
        for name, ids in (("scancode", detected), ("keywords", keyword_baseline(repo["files"]))):
            covered, exact = agreement(repo["truth"], ids)
            rows[name][0] += covered
            rows[name][1] += exact
        if not agreement(repo["truth"], detected)[0]:
            disagreements.append({"package": repo["name"], "declared": sorted(repo["truth"]),
                                  "declared_in": repo["source"], "scancode": spdx,
                                  "files": sorted(repo["files"])})
    n = len(repos)
    report = {
        "distributions": n,
        "agreement": {name: {"declared_found": round(c / n, 3), "exact": round(e / n, 3)}
                      for name, (c, e) in rows.items()},
        "throughput": {
            "cold": {"seconds": round(cold_s, 2), "repos_per_s": round(n / cold_s, 2), **cold},
            "warm_cache": {"seconds": round(warm_s, 3), "repos_per_s": round(n / warm_s, 1), **warm},
        },
        "disagreements": disagreements[:args.show],
        "disagreements_total": len(disagreements),
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

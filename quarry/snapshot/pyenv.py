"""The embedded default's sources: the running interpreter's standard library (one repository,
with its LICENSE) and each distribution installed in the environment (one repository each)."""

from __future__ import annotations

import csv
import importlib.metadata
import json
import os
import platform
import posixpath
import re
import sysconfig
from pathlib import Path

from quarry.snapshot.plan import OriginPlan, Refused, admit, plan_tree
from quarry.snapshot.swhid import EXEC_MODE, FILE_MODE


def plan_stdlib(source: dict, cfg: dict) -> list[OriginPlan]:
    root = Path(sysconfig.get_paths()["stdlib"])
    version = platform.python_version()
    plan = OriginPlan(source["name"], "stdlib", f"python:stdlib@{version}", subset=source.get("subset"),
                      info={"version": version, "implementation": platform.python_implementation()})
    return [plan_tree(plan, root, cfg, source.get("exclude", cfg["stdlib_exclude"]))]


def plan_installed(source: dict, cfg: dict) -> list[OriginPlan]:
    """Each distribution installed in the environment as one origin: its RECORD files and dist-info
    texts (LICENSE / COPYING / NOTICE, METADATA with its long description)."""
    skip = {_normalize(n) for n in source.get("exclude", cfg["installed_exclude"])}
    only = {_normalize(n) for n in source.get("include", [])}
    seen: set[str] = set()
    plans = []
    found = sorted(((_normalize(d.metadata["Name"] or ""), os.fspath(getattr(d, "_path", "")), d)
                    for d in importlib.metadata.distributions(path=site_packages())), key=lambda t: t[:2])
    for name, _where, dist in found:
        if not name or name in seen or name in skip or (only and name not in only) or _is_editable(dist):
            continue
        seen.add(name)  # a name installed twice (a broken environment): the first folder in sorted order
        version = dist.version
        plan = OriginPlan(source["name"], "installed", f"pypi:{name}@{version}", subset=source.get("subset"),
                          info={"version": version})
        for rel, full in _distribution_files(dist):
            if rel.startswith("../") or rel.startswith("/"):
                plan.refused.append(Refused(rel, "outside_tree"))
                continue
            try:
                st = os.stat(full)
            except OSError:
                plan.refused.append(Refused(rel, "missing"))
                continue
            mode = EXEC_MODE if st.st_mode & 0o111 else FILE_MODE
            admit(plan, rel, st.st_size, mode, ("file", full), cfg)
        plans.append(plan)
    return plans


def site_packages() -> list[str]:
    """The environment's install folders: distributions found through the current directory or an
    editable install are working copies, not releases, and are left out."""
    paths = sysconfig.get_paths()
    return sorted({paths["purelib"], paths["platlib"]})


def _is_editable(dist) -> bool:
    text = dist.read_text("direct_url.json")
    if not text:
        return False
    try:
        return bool(json.loads(text).get("dir_info", {}).get("editable"))
    except ValueError:
        return False


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _distribution_files(dist) -> list[tuple[str, str]]:
    """(path relative to site-packages, absolute path) of the files RECORD lists, plus every file
    of the dist-info folder (its license texts also when RECORD is missing)."""
    info_dir = getattr(dist, "_path", None)
    if info_dir is None:
        return []
    info_dir = os.fspath(info_dir)
    base = os.path.dirname(info_dir)
    files = {}
    for row in csv.reader((dist.read_text("RECORD") or "").splitlines()):
        if row and row[0]:
            rel = posixpath.normpath(row[0].replace("\\", "/"))
            files[rel] = os.path.join(base, rel)
    for folder, _dirs, names in os.walk(info_dir):
        for name in names:
            full = os.path.join(folder, name)
            files.setdefault(os.path.relpath(full, base).replace(os.sep, "/"), full)
    return sorted(files.items())

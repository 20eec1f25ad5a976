"""The embedded default's sources: the running interpreter's standard library (one repository,
with its LICENSE) and the project's pinned distributions (one repository each).

The `installed` source is pinned by the project's lock (``lock:``, default requirements.lock at the
project root, ``name==version`` lines): it takes the project's own requirements (pyproject.toml
beside the lock, plus the optional groups named in ``extras:``) and everything they require,
each at the version the lock pins. Distributions installed beside them (a benchmark extra, a
tool) do not change the snapshot; a required distribution that is missing, unlocked or at another
version is an error, or with ``lock_mismatch: record`` a version that differs from the lock is
snapshotted as installed and recorded (``locked_version`` on its origin in the manifest).
``lock: null`` takes every installed distribution instead."""

from __future__ import annotations

import csv
import importlib.metadata
import json
import os
import platform
import posixpath
import re
import sysconfig
import tomllib
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from quarry.config.snapshot import SnapshotParams
from quarry.errors import ConfigError, QuarryError
from quarry.paths import project_root

from quarry.snapshot.plan import OriginPlan, Refused, admit, plan_tree
from quarry.snapshot.swhid import EXEC_MODE, FILE_MODE


def plan_stdlib(source: dict, cfg: SnapshotParams) -> list[OriginPlan]:
    root = Path(sysconfig.get_paths()["stdlib"])
    version = platform.python_version()
    plan = OriginPlan(source["name"], "stdlib", f"python:stdlib@{version}", subset=source.get("subset"),
                      info={"version": version, "implementation": platform.python_implementation()})
    return [plan_tree(plan, root, cfg, source.get("exclude", cfg.stdlib_exclude))]


def plan_installed(source: dict, cfg: SnapshotParams) -> list[OriginPlan]:
    """Each pinned distribution (see the module doc) as one origin: its RECORD files and dist-info
    texts (LICENSE / COPYING / NOTICE, METADATA with its long description)."""
    skip = {_normalize(n) for n in source.get("exclude", cfg.installed_exclude)}
    only = {_normalize(n) for n in source.get("include", [])}
    installed = installed_distributions()
    pinned = pinned_versions(source, installed) if source.get("lock", DEFAULT_LOCK) else None
    plans = []
    for name, dist in sorted(installed.items()):
        if name in skip or (only and name not in only) or (pinned is not None and name not in pinned):
            continue
        version = dist.version
        info = {"version": version}
        if pinned is not None and pinned[name] != version:
            info["locked_version"] = pinned[name]  # a deviation the source allows (lock_mismatch: record)
        plan = OriginPlan(source["name"], "installed", f"pypi:{name}@{version}", subset=source.get("subset"),
                          info=info)
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
            admit(plan, rel, st.st_size, mode, ("file", full), cfg, OWN_LISTINGS)
        plans.append(plan)
    return plans


# An origin here is one distribution: its own listings of what it installed govern nothing new.
OWN_LISTINGS = ("**/*.dist-info/RECORD", "**/*.dist-info/top_level.txt")
DEFAULT_LOCK = "requirements.lock"
LOCK_MISMATCH = ("error", "record")
# What `pip freeze` leaves out of a lock: the installer's own tools, whose version is the
# environment's, not the project's; never snapshotted under a lock.
UNPINNED = frozenset({"pip", "setuptools", "wheel", "distribute"})


def installed_distributions() -> dict:
    """Normalized name -> distribution of every release installed in the environment (editable
    working copies left out; a name installed twice: the first folder in sorted order)."""
    found = sorted(((_normalize(d.metadata["Name"] or ""), os.fspath(getattr(d, "_path", "")), d)
                    for d in importlib.metadata.distributions(path=site_packages())), key=lambda t: t[:2])
    distributions = {}
    for name, _where, dist in found:
        if name and name not in distributions and not _is_editable(dist):
            distributions[name] = dist
    return distributions


def pinned_versions(source: dict, installed: dict) -> dict[str, str]:
    """Normalized name -> the version the lock pins, for every distribution the project requires
    (its requirements and theirs, recursively, as installed); errors name the lock and the distribution."""
    lock = Path(source.get("lock", DEFAULT_LOCK))
    lock = lock if lock.is_absolute() else project_root() / lock
    mismatch = source.get("lock_mismatch", "error")
    if mismatch not in LOCK_MISMATCH:
        raise ConfigError(f"params: snapshot source {source['name']!r} lock_mismatch: {mismatch!r}; "
                          f"one of {', '.join(LOCK_MISMATCH)}")
    locked = read_lock(lock)
    pinned: dict[str, str] = {}
    pending = [(req, None) for req in project_requirements(lock.parent / "pyproject.toml", source)]
    while pending:
        req, parent = pending.pop()
        name = _normalize(req.name)
        if name in pinned or name in UNPINNED:
            continue
        required = f"{name} (required by {parent or 'the project'})"
        if name not in locked:
            raise QuarryError(f"{lock}: {required} is not pinned; regenerate the lock")
        if name not in installed:
            raise QuarryError(f"{lock}: {required} {locked[name]} is not installed; "
                              f"pip install -r {lock.name}")
        version = installed[name].version
        if _public(version) != _public(locked[name]) and mismatch == "error":
            raise QuarryError(f"{lock}: {name} {version} is installed but the lock pins {locked[name]}; "
                              f"pip install {name}=={locked[name]}, or set lock_mismatch: record on "
                              f"snapshot source {source['name']!r} to snapshot it as installed")
        pinned[name] = version if _public(version) == _public(locked[name]) else locked[name]
        extras = set(req.extras)
        for text in installed[name].requires or []:
            dep = Requirement(text)
            if dep.marker is None or any(dep.marker.evaluate({"extra": e}) for e in ("", *extras)):
                pending.append((dep, name))
    return pinned


def read_lock(path: Path) -> dict[str, str]:
    """``name==version`` lines (comments, blank lines and pip options ignored)."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such lock file (snapshot source `installed` reads the project's "
                          f"pinned distributions from it; set lock: null to take every installed one)")
    locked = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        try:
            req = Requirement(line)
        except InvalidRequirement as error:
            raise ConfigError(f"{path}:{number}: not a requirement: {error}") from None
        pins = [spec.version for spec in req.specifier if spec.operator == "=="]
        if len(pins) != 1:
            raise ConfigError(f"{path}:{number}: {line!r} does not pin one version (name==version)")
        locked[_normalize(req.name)] = pins[0]
    return locked


def project_requirements(pyproject: Path, source: dict) -> list[Requirement]:
    """The [project] dependencies of ``pyproject`` and those of the optional groups ``extras`` names."""
    if not pyproject.is_file():
        raise ConfigError(f"{pyproject}: no such file (the `installed` source takes the project's "
                          f"requirements from the pyproject.toml beside its lock)")
    project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project") or {}
    groups = project.get("optional-dependencies") or {}
    texts = list(project.get("dependencies") or [])
    for extra in source.get("extras") or []:
        if extra not in groups:
            raise ConfigError(f"params: snapshot source {source['name']!r} extras: {extra!r} is not an "
                              f"optional-dependencies group of {pyproject} ({', '.join(sorted(groups))})")
        texts += groups[extra]
    requirements = [Requirement(text) for text in texts]
    return [req for req in requirements if req.marker is None or req.marker.evaluate({"extra": ""})]


def _public(version: str) -> str:
    """The release without a local build label: torch 2.13.0+cpu satisfies a pin of 2.13.0."""
    try:
        return Version(version).public
    except InvalidVersion:
        return version


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

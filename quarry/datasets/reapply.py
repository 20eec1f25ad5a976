"""Opt-out at release time: a released version re-filtered with today's registry (``reapply``),
and where an origin is found across releases and checkpoints (``whois``).

The matching rule is the registry's own (quarry.curation.optout.Registry.match), so the build,
these release-time checks and the audit agree on what an entry covers.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

from quarry.config import Layout
from quarry.curation.optout import (REASON, OptOut, Registry, default_registry_path, load_registry, normalize_origin,
                                   without_version)
from quarry.datasets import derive_version
from quarry.datasets.changelog import index_origin
from quarry.datasets.manifest import Manifest, read_manifest
from quarry.datasets.versions import read_index, releases
from quarry.errors import QuarryError
from quarry.datasets.lineage import checkpoints_with_origin
from quarry.records import JsonDict, Record, input_shards, read_json, read_records
from quarry.config.values import Params
from quarry.paths import project_root

PathLike = str | os.PathLike



def covered_documents(registry: Registry, counts: Counter) -> dict[str, int]:
    """origin -> documents, for the origins of ``counts`` (documents per origin) that ``registry`` covers."""
    return {origin: n for origin, n in sorted(counts.items()) if registry.covers(origin)}


def folder_origins(folder: PathLike) -> Counter:
    """Documents per origin in a folder of shards (a snapshot, a stage output) or a dataset version."""
    folder = Path(folder)
    manifest = _read_manifest(folder / "manifest.json") if (folder / "manifest.json").is_file() else None
    records = _dataset_records(folder, manifest) if manifest else \
        (r for shard in input_shards(folder) for r in read_records(shard))
    return Counter((r.get("meta") or {}).get("origin") or "" for r in records)


def latest_data(params: Params | None = None, releases_root: PathLike | None = None) -> list[JsonDict]:
    """The data an opt-out is checked against: the project's snapshot folder and its latest dataset
    version (the newest registered release, else the dataset folder), each as {"where", "origins"}."""
    root = project_root()
    layout = Layout.of(params, root)
    found = []
    snapshot = layout.snapshot
    if snapshot.is_dir():
        found.append({"where": f"snapshot {snapshot}", "origins": folder_origins(snapshot)})
    registered = releases(registry=releases_root)
    if registered:
        latest = registered[-1]
        manifest = latest["manifest"]
        origins = Counter(index_origin(row) for row in read_index(latest["release"]))
        found.append({"where": f"dataset {manifest.get('name')} {manifest.get('label')} "
                               f"({manifest.get('version', '')[:12]})", "origins": origins})
    elif (dataset := layout.dataset).is_dir():
        found.append({"where": f"dataset {dataset}", "origins": folder_origins(dataset)})
    return found


def entry_matches(entry: OptOut, places: list[JsonDict]) -> list[JsonDict]:
    """Per place ({"where", "origins"}, see latest_data): the documents and origins ``entry`` matches."""
    probe = Registry([entry])
    return [{"where": place["where"], "documents": sum(covered.values()), "origins": covered}
            for place in places for covered in [covered_documents(probe, place["origins"])]]


def nearest_origins(value: str, places: list[JsonDict], limit: int = 3) -> list[str]:
    """Origins of the data spelled most like ``value``: suggestions when an entry matches nothing."""
    import difflib

    names = sorted({o for place in places for o in place["origins"] if o})
    by_norm = {}
    for name in names:
        by_norm.setdefault(without_version(normalize_origin(name)), name)
    close = difflib.get_close_matches(without_version(normalize_origin(value)), list(by_norm), n=limit, cutoff=0.6)
    return [by_norm[c] for c in close]


# ---------------------------------------------------------------------------------------------
# A newer registry over an existing dataset version


def reapply_optout(dataset_dir: str | os.PathLike, registry_path: str | os.PathLike | None, out_dir: str | os.PathLike,
                   *, force: bool = False, **options: Any) -> JsonDict:
    """A new dataset version: the parent's documents minus those the registry now covers. Nothing
    else is recomputed. Returns {"manifest", "changelog"}: the changelog lists, per opt-out entry,
    the origins and documents removed. When the registry covers no document of the parent, no
    version is made (``manifest`` is None) unless ``force``."""
    registry = load_registry(registry_path)
    parent = read_manifest(Path(dataset_dir))
    covered = covered_documents(registry, folder_origins(dataset_dir))
    removed: dict[OptOut, Counter] = {}
    for origin, n in covered.items():
        removed.setdefault(registry.match(origin), Counter())[origin] += n

    def keep(record: Record) -> bool | str:
        return REASON if registry.covers((record.get("meta") or {}).get("origin")) else True

    manifest = derive_version(dataset_dir, out_dir, keep, REASON, optout_registry_hash=registry.hash, **options) \
        if covered or force else None
    changelog = {
        "from": parent.get("version"), "to": manifest.get("version") if manifest else None,
        "registry_hash": registry.hash, "removed_documents": sum(covered.values()),
        "entries": [{"kind": e.kind, "value": e.value, "date": e.date, "reason": e.reason,
                     "origins": dict(sorted(removed[e].items()))} for e in sorted(removed)],
    }
    return {"manifest": manifest, "changelog": changelog}


# ---------------------------------------------------------------------------------------------
# Who holds data from an origin


def whois(origin: str, *, registry_path: PathLike | None = None, releases_root: PathLike | None = None,
          datasets_root: PathLike | None = None, models_root: PathLike | None = None) -> JsonDict:
    """Every dataset version (registered releases, and version folders under data/datasets) and
    every checkpoint holding documents of ``origin``, and the opt-out entry covering it now.
    ``origin`` matches as an opt-out entry would (``pypi:graphene`` finds every version of it);
    each dataset row counts its documents per matching origin; ``versions_checked`` says how many
    versions were read."""
    probe = Registry([OptOut("origin", origin)])  # the opt-out matching rule, not a second one
    spellings = {origin}  # the origin as the data spells it, for the lineage lookup
    datasets = []
    seen = set()

    def add(manifest: Manifest, path, origins) -> None:
        seen.add(manifest.get("version"))
        if covered := covered_documents(probe, Counter(origins)):
            spellings.update(covered)
            datasets.append(_dataset_row(manifest, path, covered))

    for release in releases(registry=releases_root):
        add(release["manifest"], release["path"], (index_origin(row) for row in read_index(release["release"])))
    root = Path(datasets_root) if datasets_root else project_root() / "data" / "datasets"
    for manifest_path in sorted(root.glob("**/manifest.json")) if root.is_dir() else []:
        manifest = _read_manifest(manifest_path)
        if manifest is None or manifest.get("version") in seen or not _has_shards(manifest_path.parent, manifest):
            continue
        add(manifest, manifest_path.parent,
            ((r.get("meta") or {}).get("origin") or "" for r in _dataset_records(manifest_path.parent, manifest)))
    checkpoints = {}
    holding = {d["version"] for d in datasets}
    for spelling in sorted(spellings):
        for found in _checkpoints_with(spelling, models_root, holding):
            if not (checkpoints.get(found["checkpoint"]) or {}).get("documents"):  # the spelling its data uses
                checkpoints[found["checkpoint"]] = found
    path = Path(registry_path) if registry_path else default_registry_path()
    entry = load_registry(path).match(origin) if path.exists() else None
    return {"origin": origin, "datasets": datasets, "versions_checked": len(seen),
            "checkpoints": [checkpoints[k] for k in sorted(checkpoints)],
            "opted_out": None if entry is None else {"kind": entry.kind, "value": entry.value, "date": entry.date,
                                                     "reason": entry.reason}}


def _dataset_row(manifest: Manifest, path, origins: dict[str, int]) -> JsonDict:
    return {"name": manifest.get("name"), "version": manifest.get("version"), "label": manifest.get("label"),
            "documents": sum(origins.values()), "origins": origins, "path": str(path),
            "optout_registry_hash": manifest.get("optout_registry_hash")}


def _read_manifest(path: Path) -> JsonDict | None:
    """A dataset version's manifest; None for other manifests (a snapshot's) or unreadable ones."""
    try:
        manifest = read_json(path)
    except QuarryError:
        return None
    return manifest if isinstance(manifest, dict) and "splits" in manifest and "version" in manifest else None


def _has_shards(folder: Path, manifest: Manifest) -> bool:
    return any((folder / entry["path"]).is_file()
               for info in manifest.get("splits", {}).values() for entry in info.get("files", []))


def _dataset_records(folder: Path, manifest: Manifest):
    """The records of the shards a manifest lists (none when they are not checked out here)."""
    for info in manifest.get("splits", {}).values():
        for entry in info.get("files", []):
            if (folder / entry["path"]).is_file():
                yield from read_records(folder / entry["path"])


def _checkpoints_with(origin: str, models_root: str | os.PathLike | None, versions: set[str]) -> list[JsonDict]:
    return checkpoints_with_origin(origin, Path(models_root) if models_root else project_root() / "models", versions)

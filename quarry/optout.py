"""The opt-out registry: origins whose owners asked to be left out, honoured at every build.

The registry is a versioned tab-separated file (data/optout/registry.tsv), one entry a line:

    kind    value                        date        reason
    origin  https://github.com/acme/app  2026-01-31  owner request #12
    prefix  https://gitlab.com/acme/     2026-02-01
    owner   github.com/acme              2026-02-02

An ``origin`` entry matches that repository, a ``prefix`` entry every origin starting with it, an
``owner`` entry (``host/owner``, or a bare owner on any host) every repository of that owner.
A package origin without a version covers every version (``pypi:graphene`` covers
``pypi:graphene@3.4.3``); one with a version covers only that one. Origins compare normalised: no
scheme, user, ``.git``, query or trailing slash, lower case, ``git@host:owner/repo`` read as
``host/owner/repo``, PyPI names as PEP 503 spells them. ``registry_hash`` covers what decides
removals (kind and value), so a dataset manifest can say which registry it honoured.

``Registry.match(origin)`` is the one matching rule: the stage, ``reapply``, ``whois``, ``optout
add``'s count and any audit of a released version all call it.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quarry.config import Layout
from quarry.config.curation import OptOutParams
from quarry.curate.base import Filter
from quarry.datasets import derive_version
from quarry.datasets.changelog import index_origin
from quarry.datasets.manifest import Manifest, read_manifest
from quarry.datasets.versions import read_index, releases
from quarry.errors import ConfigError, QuarryError
from quarry.hashing import value_hash
from quarry.lineage import checkpoints_with_origin
from quarry.ledger import Ledger
from quarry.parallel import input_shards
from quarry.params import Params, load_params
from quarry.paths import project_root
from quarry.records import JsonDict, Record, atomic_write_bytes, read_json, read_records
from quarry.stage import run_step_on_shard

STAGE = "optout"  # one spelling of the stage: params, folder, module, ledger
REASON = "opt-out"
KINDS = ("origin", "prefix", "owner")
HEADER = "# kind\tvalue\tdate\treason"
PathLike = str | os.PathLike

_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)
_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@github.com:acme/app.git
# A package origin: pypi:graphene@3.4.3, python:stdlib@3.11.9 (a scheme without dots, a name without slashes)
_PACKAGE = re.compile(r"^([a-z][a-z0-9+-]*):(?!//)([^/@:\s]+)(?:@([^/@\s]*))?$", re.I)


def normalize_origin(origin: str, *, prefix: bool = False) -> str:
    """The comparable form of an origin; ``prefix`` keeps a trailing slash (a path boundary)."""
    text = str(origin).strip().removesuffix("*") if prefix else str(origin).strip()
    if package := _PACKAGE.match(text):
        scheme, name, version = package.group(1).lower(), package.group(2), package.group(3)
        name = re.sub(r"[-_.]+", "-", name) if scheme == "pypi" else name
        return f"{scheme}:{name}{'' if version is None else '@' + version}".lower()
    if not _SCHEME.match(text) and (scp := _SCP_LIKE.match(text)) and not os.path.isabs(text):
        text = f"{scp.group(1)}/{scp.group(2)}"
    text = _SCHEME.sub("", text)
    if "@" in text.split("/", 1)[0]:
        text = text.split("@", 1)[1]  # user@host
    if prefix:
        return text.lower()
    text = re.split(r"[?#]", text, maxsplit=1)[0]
    text = text.rstrip("/").removesuffix(".git").rstrip("/")
    return text.lower()


def without_version(normalized: str) -> str:
    """A normalised package origin without its ``@version`` (any other origin unchanged)."""
    package = _PACKAGE.match(normalized)
    return f"{package.group(1)}:{package.group(2)}" if package and package.group(3) is not None else normalized


def owner_of(normalized: str) -> tuple[str, str] | None:
    """(host, owner) of a hosted origin such as github.com/acme/app; None for other origins."""
    parts = normalized.split("/")
    if len(parts) >= 3 and "." in parts[0]:
        return parts[0], parts[1]
    return None


@dataclass(frozen=True, order=True)
class OptOut:
    kind: str
    value: str
    date: str = ""
    reason: str = ""

    def matches(self, normalized_origin: str) -> bool:
        value = self.key
        if self.kind == "origin":
            return value in (normalized_origin, without_version(normalized_origin))
        if self.kind == "prefix":
            return normalized_origin.startswith(value)
        owner = owner_of(normalized_origin)
        if owner is None:
            return False
        return value == f"{owner[0]}/{owner[1]}" if "/" in value else value == owner[1]

    @property
    def key(self) -> str:
        """The normalised value that decides what the entry matches."""
        return normalize_origin(self.value, prefix=self.kind == "prefix")

    def line(self) -> str:
        return "\t".join((self.kind, self.value, self.date, self.reason)).rstrip("\t")


class Registry:
    """The entries of one registry file. Origins and owners are looked up in dicts; only prefixes
    are scanned. When several entries cover an origin, the exact one wins, then the owner's."""

    def __init__(self, entries: list[OptOut], path: Path | None = None):
        self.entries = sorted(set(entries))
        self.path = path
        self._exact = {e.key: e for e in reversed(self.entries) if e.kind == "origin"}
        self._owners = {e.key: e for e in reversed(self.entries) if e.kind == "owner"}
        self._prefixes = [e for e in self.entries if e.kind == "prefix"]
        self._memo: dict[str, OptOut | None] = {}

    def match(self, origin: str | None) -> OptOut | None:
        """The entry that covers ``origin``, or None."""
        if not origin:
            return None
        if origin not in self._memo:
            self._memo[origin] = self._find(normalize_origin(origin))
        return self._memo[origin]

    def _find(self, normalized: str) -> OptOut | None:
        if found := self._exact.get(normalized) or self._exact.get(without_version(normalized)):
            return found
        if owner := owner_of(normalized):
            if found := self._owners.get(f"{owner[0]}/{owner[1]}") or self._owners.get(owner[1]):
                return found
        return next((e for e in self._prefixes if e.matches(normalized)), None)

    def covers(self, origin: str | None) -> bool:
        return self.match(origin) is not None

    @property
    def hash(self) -> str:
        return value_hash({"optout": sorted({(e.kind, e.key) for e in self.entries})})

    def __len__(self) -> int:
        return len(self.entries)


# ---------------------------------------------------------------------------------------------
# The registry file


def registry_path_from(params: Params | None) -> Path:
    """params ``optout.registry`` (the default's without params), relative to the project."""
    return project_root() / (params.optout if params is not None else OptOutParams()).registry


def default_registry_path() -> Path:
    """The registry the project's params.yaml names (data/optout/registry.tsv when it names none)."""
    has_params = (project_root() / "params.yaml").is_file()
    return registry_path_from(load_params() if has_params else None)  # a bad params.yaml is an error


def load_registry(path: str | os.PathLike | None = None) -> Registry:
    path = Path(path) if path else default_registry_path()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise QuarryError(f"{path}: no opt-out registry there (create it with `quarry optout add`)") from None
    entries = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        kind, value = fields[0].strip(), (fields[1].strip() if len(fields) > 1 else "")
        if kind not in KINDS or not value:
            raise ConfigError(f"{path}:{number}: expected 'kind<TAB>value[<TAB>date<TAB>reason]' with kind one of "
                              f"{', '.join(KINDS)}; got {line!r}")
        date = fields[2].strip() if len(fields) > 2 else ""
        reason = "\t".join(fields[3:]).strip() if len(fields) > 3 else ""
        entries.append(OptOut(kind, value, date, reason))
    return Registry(entries, path)


def save_registry(registry: Registry, path: str | os.PathLike) -> None:
    """Sorted entries under the header: a registry diff shows exactly what was added or removed."""
    text = "\n".join([HEADER, *(e.line() for e in registry.entries)]) + "\n"
    atomic_write_bytes(path, text.encode("utf-8"))


def registry_hash(path: str | os.PathLike | None = None) -> str:
    return load_registry(path).hash


def add_entry(value: str, *, kind: str = "origin", date: str | None = None, reason: str = "",
              path: str | os.PathLike | None = None) -> OptOut:
    if kind not in KINDS:
        raise ConfigError(f"opt-out kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if not value.strip() or "\t" in value or "\t" in reason or "\n" in value + reason:
        raise ConfigError("an opt-out value (and reason) must be non-empty text without tabs or newlines")
    path = Path(path) if path else default_registry_path()
    registry = load_registry(path) if path.exists() else Registry([])
    entry = OptOut(kind, value.strip(), date or dt.date.today().isoformat(), reason.strip())
    kept = [e for e in registry.entries if (e.kind, e.value) != (entry.kind, entry.value)]
    save_registry(Registry([*kept, entry]), path)
    return entry


def remove_entry(value: str, *, path: str | os.PathLike | None = None) -> list[OptOut]:
    """Remove every entry with this value (any kind); returns what was removed."""
    path = Path(path) if path else default_registry_path()
    registry = load_registry(path)
    removed = [e for e in registry.entries if e.value == value.strip()]
    if not removed:
        raise QuarryError(f"{path}: no opt-out entry with value {value!r}")
    save_registry(Registry([e for e in registry.entries if e not in removed]), path)
    return removed


# ---------------------------------------------------------------------------------------------
# The stage


class OptOutFilter(Filter):
    """Drops every record whose origin the registry covers (ledger reason ``opt-out``)."""

    name = STAGE

    def __init__(self, registry: Registry):
        self.registry = registry

    def filter(self, doc: Record) -> bool | tuple[bool, str]:
        return (False, REASON) if self.registry.covers((doc.get("meta") or {}).get("origin")) else True


def optout_shard(src: Path, dst: Path, registry: Registry, *, rejects: Path | None = None, level: int = 3) -> Ledger:
    return run_step_on_shard(OptOutFilter(registry), src, dst, rejects=rejects, level=level)


# ---------------------------------------------------------------------------------------------
# What an entry or a registry matches in existing data


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

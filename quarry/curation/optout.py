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
from dataclasses import dataclass
from pathlib import Path

from quarry.config.curation import OptOutParams
from quarry.curation.filters.base import Filter
from quarry.errors import ConfigError, QuarryError
from quarry.infra.hashing import value_hash
from quarry.ledger import Ledger
from quarry.config.values import Params, load_params
from quarry.paths import project_root
from quarry.records import Record, atomic_write_bytes
from quarry.curation.steps import run_step_on_shard

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

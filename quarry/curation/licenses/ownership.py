"""Which distribution owns each file of a folder that several distributions share.

A site-packages-like folder holds many distributions side by side, each with its ``*.dist-info``
or ``*.egg-info`` metadata folder. A distribution's license governs the files it installed, never
its neighbours'. What it installed is read, best evidence first, from:

    RECORD               (dist-info) every installed path, relative to the shared folder
    installed-files.txt  (egg-info) every installed path, relative to the egg-info folder
    top_level.txt        the top-level packages and modules: everything below those names (and
                         their ``<name>-stubs`` type stubs)
    the folder's name    ``lazr.uri-1.0.egg-info`` -> ``lazr/uri``, when nothing lists its files

A metadata folder always belongs to its distribution. A top-level name that several
distributions claim (a namespace package) narrows to each one's own subpackage when that folder
exists; a file still claimed by several is governed by all of them (AND).
"""

from __future__ import annotations

import csv
import posixpath
import re
from dataclasses import dataclass

INFO_DIR = re.compile(r"^(.*/)?[^/]+\.(dist-info|egg-info)$")
LISTINGS = ("RECORD", "installed-files.txt", "top_level.txt")
_MODULE_SUFFIX = (".py", ".pyi", ".so", ".pyd")


@dataclass(frozen=True)
class Owned:
    """What one distribution owns: exact paths, and folders (or module stems) by prefix."""

    paths: frozenset[str]
    prefixes: frozenset[str]

    def owns(self, path: str) -> bool:
        return path in self.paths or any(path.startswith(p + "/") or _is_module(path, p) for p in self.prefixes)

    def to_dict(self) -> dict:
        return {"paths": sorted(self.paths), "prefixes": sorted(self.prefixes)}


def _is_module(path: str, stem: str) -> bool:
    return path.startswith(stem + ".") and path[len(stem):].split(".")[-1] in {s[1:] for s in _MODULE_SUFFIX} \
        and "/" not in path[len(stem):]


def owns(scope: dict, path: str) -> bool:
    """Whether a governance scope restricted to a distribution's files (``owned``) owns ``path``."""
    owned = scope["owned"]
    return Owned(frozenset(owned["paths"]), frozenset(owned["prefixes"])).owns(path)


def is_listing(path: str) -> bool:
    """An installer's listing of what a distribution owns (RECORD, installed-files.txt, top_level.txt)."""
    folder, name = posixpath.split(path)
    return name in LISTINGS and INFO_DIR.match(folder) is not None


def listing_text(path: str, text: str) -> str:
    """The paths or names a listing holds, one a line (RECORD's hashes and sizes dropped)."""
    if path.endswith("/RECORD") or path == "RECORD":
        rows = csv.reader(text.splitlines())
        return "\n".join(row[0] for row in rows if row and row[0].strip())
    return "\n".join(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def _distribution_name(info: str) -> str:
    stem = posixpath.basename(info).rsplit(".", 1)[0]
    name = re.split(r"-\d", stem, maxsplit=1)[0]  # "lazr.uri-1.0.6" -> "lazr.uri"; "cryptography" stays
    return name.lower().replace("-", "_")


def shared_folders(folders: set[str]) -> dict[str, list[str]]:
    """folder -> the metadata folders of the distributions installed in it, where there are several."""
    by_base: dict[str, set[str]] = {}
    for folder in folders:
        parts = folder.split("/")
        for i in range(len(parts), 0, -1):
            info = "/".join(parts[:i])
            if INFO_DIR.match(info):
                by_base.setdefault(posixpath.dirname(info), set()).add(info)
                break
    return {base: sorted(infos) for base, infos in by_base.items() if len(infos) > 1}


def ownership(infos: list[str], listings: dict[str, str], folders: set[str]) -> dict[str, Owned]:
    """info folder -> what its distribution owns, for the distributions sharing one folder.
    ``listings``: path of a listing -> its ``listing_text``."""
    base = posixpath.dirname(infos[0])
    exact: dict[str, set[str]] = {}
    tops: dict[str, set[str]] = {}
    for info in infos:
        exact[info] = set()
        tops[info] = set()
        if (record := listings.get(posixpath.join(info, "RECORD"))) is not None:
            exact[info] |= {posixpath.normpath(posixpath.join(base, p)) for p in record.splitlines()}
        if (files := listings.get(posixpath.join(info, "installed-files.txt"))) is not None:
            exact[info] |= {posixpath.normpath(posixpath.join(info, p)) for p in files.splitlines()}
        if not exact[info]:
            names = listings.get(posixpath.join(info, "top_level.txt"))
            names = names.splitlines() if names is not None else [_distribution_name(info).replace(".", "/")]
            tops[info] = {posixpath.join(base, n.strip("/")) for n in names if n.strip("/")}
    claims: dict[str, list[str]] = {}
    for info, prefixes in tops.items():
        for prefix in prefixes:
            claims.setdefault(prefix, []).append(info)
    owned = {}
    for info in infos:
        prefixes = {info}
        for prefix in tops[info]:
            own = posixpath.join(base, _distribution_name(info).replace(".", "/"))
            narrow = len(claims[prefix]) > 1 and own.startswith(prefix + "/") and own in folders
            prefixes |= {own} if narrow else {prefix, prefix + "-stubs"}  # PEP 561 stubs: <name>-stubs
        owned[info] = Owned(frozenset(exact[info]), frozenset(prefixes))
    return owned

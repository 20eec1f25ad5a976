"""What planning produces: the origins of a snapshot and, for each, its candidate files and the
files refused with a reason, before anything is decoded. Shared by every source kind."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from quarry.config.snapshot import SnapshotParams
from quarry.snapshot.filters import folder_refusal, looks_binary, matches_any, path_refusal
from quarry.snapshot.swhid import EXEC_MODE, FILE_MODE, LINK_MODE, sha1_git


@dataclass
class Candidate:
    path: str                       # posix, relative to the origin's root
    size: int
    mode: int = FILE_MODE
    locator: tuple = ()             # ("file", abs path) | ("git", repo, blob hex) | ("text", text, meta)
                                    # | ("line", corpus shard, line number from 1, meta)
                                    # | ("blob", store, content id, meta)
                                    # | ("row", table file, kind, group, row, (element, field) | None,
                                    #    column, content id, meta)
    priority: int = 1               # 0: kept first under a cap (license and prose files)


@dataclass
class Refused:
    path: str
    reason: str
    detail: dict = field(default_factory=dict)
    kind: str | None = None         # None: what the path's name says (filters.name_kind)


@dataclass
class OriginPlan:
    source: str                     # the source's name in params
    kind: str
    origin: str
    revision: str | None = None
    info: dict = field(default_factory=dict)   # revision SWHID, commit date, version, directory ...
    subset: str | None = None       # a fixed subset for every record (None: the rule table)
    candidates: list[Candidate] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    links: list[tuple[str, int, bytes]] = field(default_factory=list)  # tree entries not read as files
    # Its candidates are documents (a corpus's records, a table's rows standing alone), not files
    # of a repository: capped by their source as a whole, never per origin (a shard).
    documents: bool = False

    @property
    def sort_key(self) -> tuple[str, str]:
        return (self.origin, self.revision or "")


def lineage(cand: Candidate) -> dict | None:
    """What a corpus or table record brought with it (upstream ids, subset, columns); None for a file."""
    return cand.locator[-1] if cand.locator[0] in ("text", "line", "blob", "row") else None


def trace(cand: Candidate) -> dict:
    """What names a refused record upstream: its id, subset and row, beside its path."""
    given = lineage(cand) or {}
    return {key: given[key] for key in ("upstream_id", "subset", "row") if given.get(key) is not None}


_PRIORITY_NAMES = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE|README|METADATA)", re.I)


def candidate(path: str, size: int, mode: int, locator: tuple) -> Candidate:
    priority = 0 if _PRIORITY_NAMES.match(path.rsplit("/", 1)[-1]) else 1
    return Candidate(path, size, mode, locator, priority)


def admit(plan: OriginPlan, path: str, size: int, mode: int, locator: tuple, cfg: SnapshotParams, exclude=()) -> None:
    reason = "excluded_path" if exclude and matches_any(path, list(exclude)) else path_refusal(path, size, cfg)
    kind = None   # what the name says
    if reason is None and size > cfg.max_file_bytes and looks_binary(_head(locator)):
        reason, kind = "too_large", "unknown"  # a name that says prose (libx.so.6: a man page's) on binary bytes
    if reason:
        plan.refused.append(Refused(path, reason, {"bytes": size}, kind=kind))
    else:
        plan.candidates.append(candidate(path, size, mode, locator))


def _head(locator: tuple) -> bytes:
    """The first bytes of a file or git blob (only a large one whose name says prose is sniffed)."""
    if locator[0] == "file":
        with open(locator[1], "rb") as fh:
            return fh.read(8000)
    if locator[0] == "git":
        from dulwich.repo import Repo

        return Repo(locator[1]).object_store[locator[2].encode()].data[:8000]
    return b""


def printable_path(path: str) -> str:
    """A path that JSON can carry: undecodable bytes of a file name become U+FFFD."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def plan_tree(plan: OriginPlan, root: Path, cfg: SnapshotParams, exclude=()) -> OriginPlan:
    """Every entry below root, links not followed; an excluded folder is refused once, whole."""
    patterns = [*exclude, *cfg.exclude]
    root = os.fspath(root)
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if rel_folder == "." else rel_folder + "/"
        linked = [d for d in dirs if os.path.islink(os.path.join(folder, d))]
        dirs[:] = sorted(d for d in dirs
                         if d not in linked and not _refuse_folder(plan, prefix + d + "/", patterns, cfg))
        for name in sorted(files + linked):
            rel, full = prefix + name, os.path.join(folder, name)
            st = os.lstat(full)
            if printable_path(rel) != rel:
                plan.refused.append(Refused(printable_path(rel), "bad_path"))
            elif matches_any(rel, patterns):
                plan.refused.append(Refused(rel, "excluded_path", {"bytes": st.st_size}))
            elif stat.S_ISLNK(st.st_mode):
                target = os.readlink(full)
                plan.links.append((rel, LINK_MODE, link_digest(target)))
                plan.refused.append(Refused(rel, "symlink", {"target": target}))
            elif not stat.S_ISREG(st.st_mode):
                plan.refused.append(Refused(rel, "special_file"))
            else:
                mode = EXEC_MODE if st.st_mode & 0o111 else FILE_MODE
                admit(plan, rel, st.st_size, mode, ("file", full), cfg)
    return plan


def _refuse_folder(plan: OriginPlan, rel_folder: str, patterns: list[str], cfg: SnapshotParams) -> bool:
    if reason := ("excluded_path" if matches_any(rel_folder, patterns) else folder_refusal(rel_folder, cfg)):
        plan.refused.append(Refused(printable_path(rel_folder), reason))
        return True
    if printable_path(rel_folder) != rel_folder:
        plan.refused.append(Refused(printable_path(rel_folder), "bad_path"))
        return True
    return False


def link_digest(target: str) -> bytes:
    return sha1_git(os.fsencode(target))

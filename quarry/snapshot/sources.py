"""Source kinds → origins to snapshot: git repositories, archives, directories, corpora, the
running interpreter's standard library and its installed distributions.

Planning is cheap (listings, sizes, path rules): it names every candidate file of every origin
and the reason each refused one is refused, so the caps can be applied in one deterministic pass
before anything is decoded.
"""

from __future__ import annotations

import csv
import importlib.metadata
import io
import json
import os
import platform
import posixpath
import re
import stat
import sysconfig
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from quarry.errors import QuarryError
from quarry.hashing import value_hash
from quarry.paths import state_dir
from quarry.records import read_records, shard_paths
from quarry.snapshot import archives
from quarry.snapshot.filters import matches_any, path_refusal
from quarry.snapshot.swhid import (EXEC_MODE, FILE_MODE, LINK_MODE, SUBMODULE_MODE, directory_swhid, revision_swhid,
                                   sha1_git)


@dataclass
class Candidate:
    path: str                       # posix, relative to the origin's root
    size: int
    mode: int = FILE_MODE
    locator: tuple = ()             # ("file", abs path) | ("git", repo, blob hex) | ("text", text, meta)
    priority: int = 1               # 0: kept first under a cap (license and prose files)


@dataclass
class Refused:
    path: str
    reason: str
    detail: dict = field(default_factory=dict)


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

    @property
    def sort_key(self) -> tuple[str, str]:
        return (self.origin, self.revision or "")


_PRIORITY_NAMES = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE|README|METADATA)", re.I)


def _candidate(path: str, size: int, mode: int, locator: tuple) -> Candidate:
    priority = 0 if _PRIORITY_NAMES.match(path.rsplit("/", 1)[-1]) else 1
    return Candidate(path, size, mode, locator, priority)


def _admit(plan: OriginPlan, path: str, size: int, mode: int, locator: tuple, cfg: dict, exclude=()) -> None:
    reason = "excluded_path" if exclude and matches_any(path, list(exclude)) else path_refusal(path, size, cfg)
    if reason:
        plan.refused.append(Refused(path, reason, {"bytes": size}))
    else:
        plan.candidates.append(_candidate(path, size, mode, locator))


# ---------------------------------------------------------------------------------------------
# Directories (plain, stdlib, extracted archives)


def _plan_tree(plan: OriginPlan, root: Path, cfg: dict, exclude=()) -> OriginPlan:
    """Every entry below root, links not followed; an excluded folder is refused once, whole."""
    patterns = [*exclude, *cfg["exclude"]]
    root = os.fspath(root)
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if rel_folder == "." else rel_folder + "/"
        linked = [d for d in dirs if os.path.islink(os.path.join(folder, d))]
        dirs[:] = sorted(d for d in dirs if d not in linked and not _refuse_folder(plan, prefix + d + "/", patterns))
        for name in sorted(files + linked):
            rel, full = prefix + name, os.path.join(folder, name)
            st = os.lstat(full)
            if matches_any(rel, patterns):
                plan.refused.append(Refused(rel, "excluded_path", {"bytes": st.st_size}))
            elif stat.S_ISLNK(st.st_mode):
                target = os.readlink(full)
                plan.links.append((rel, LINK_MODE, _link_digest(target)))
                plan.refused.append(Refused(rel, "symlink", {"target": target}))
            elif not stat.S_ISREG(st.st_mode):
                plan.refused.append(Refused(rel, "special_file"))
            else:
                mode = EXEC_MODE if st.st_mode & 0o111 else FILE_MODE
                _admit(plan, rel, st.st_size, mode, ("file", full), cfg)
    return plan


def _refuse_folder(plan: OriginPlan, rel_folder: str, patterns: list[str]) -> bool:
    if matches_any(rel_folder, patterns):
        plan.refused.append(Refused(rel_folder, "excluded_path"))
        return True
    return False


def _link_digest(target: str) -> bytes:
    return sha1_git(os.fsencode(target))


def plan_dir(source: dict, cfg: dict) -> list[OriginPlan]:
    root = Path(source["path"]).expanduser()
    if not root.is_dir():
        raise QuarryError(f"snapshot source {source.get('name')!r}: {root} is not a directory")
    origin = source.get("origin") or str(root.resolve())
    plan = OriginPlan(source["name"], "dir", origin, subset=source.get("subset"))
    return [_plan_tree(plan, root, cfg, source.get("exclude", ()))]


def plan_stdlib(source: dict, cfg: dict) -> list[OriginPlan]:
    root = Path(sysconfig.get_paths()["stdlib"])
    version = platform.python_version()
    plan = OriginPlan(source["name"], "stdlib", f"python:stdlib@{version}", subset=source.get("subset"),
                      info={"version": version, "implementation": platform.python_implementation()})
    return [_plan_tree(plan, root, cfg, source.get("exclude", cfg["stdlib_exclude"]))]


def plan_installed(source: dict, cfg: dict) -> list[OriginPlan]:
    """Each distribution installed in the environment as one origin: its RECORD files and dist-info
    texts (LICENSE / COPYING / NOTICE, METADATA with its long description)."""
    skip = {_normalize(n) for n in source.get("exclude", cfg["installed_exclude"])}
    only = {_normalize(n) for n in source.get("include", [])}
    seen: set[str] = set()
    plans = []
    for dist in importlib.metadata.distributions(path=site_packages()):
        name = _normalize(dist.metadata["Name"] or "")
        if not name or name in seen or name in skip or (only and name not in only) or _is_editable(dist):
            continue
        seen.add(name)  # the first on sys.path wins, as for import
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
            _admit(plan, rel, st.st_size, mode, ("file", full), cfg)
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


# ---------------------------------------------------------------------------------------------
# Archives


def plan_archive(source: dict, cfg: dict, staging: Path) -> list[OriginPlan]:
    archive = Path(source["path"]).expanduser()
    if not archive.is_file():
        raise QuarryError(f"snapshot source {source.get('name')!r}: {archive} is not a file")
    from quarry.hashing import file_hash

    digest = file_hash(archive)
    dest = staging / digest[:16]
    limits = cfg["archive"]
    result = archives.extract(archive, dest, max_members=limits["max_members"], max_bytes=limits["max_bytes"])
    root = dest
    entries = list(dest.iterdir())
    if (limits.get("strip_root", True) and len(entries) == 1 and entries[0].is_dir()
            and all(link.startswith(entries[0].name + "/") for link in result.links)):
        root = entries[0]  # the usual `project-1.0/` folder of a release archive
    origin = source.get("origin") or str(archive.resolve())
    plan = OriginPlan(source["name"], "archive", origin, subset=source.get("subset"),
                      info={"archive_sha256": digest, "extracted_files": result.files,
                            "extracted_bytes": result.bytes})
    for refusal in result.refusals:
        reason = refusal.reason.split(":", 1)[0]
        plan.refused.append(Refused(refusal.member, f"archive_{reason}", {"archive": refusal.archive,
                                                                            "problem": refusal.reason}))
    prefix = "" if root == dest else root.name + "/"
    for rel, target in sorted(result.links.items()):
        rel = rel[len(prefix):] if prefix and rel.startswith(prefix) else rel
        plan.links.append((rel, LINK_MODE, _link_digest(target)))
        plan.refused.append(Refused(rel, "symlink", {"target": target}))
    return [_plan_tree(plan, root, cfg, source.get("exclude", ()))]


# ---------------------------------------------------------------------------------------------
# Git


def _is_remote(url: str) -> bool:
    return "://" in url or url.startswith("git@")


def open_repository(source: dict):
    from dulwich import porcelain
    from dulwich.repo import Repo

    location = source.get("url") or source.get("path")
    if not location:
        raise QuarryError(f"snapshot source {source.get('name')!r}: a git source needs url or path")
    if not _is_remote(location):
        try:
            return Repo(str(Path(location).expanduser())), str(location)
        except Exception as exc:  # dulwich raises NotGitRepository and plain OSErrors
            raise QuarryError(f"snapshot source {source.get('name')!r}: {location}: not a git repository ({exc})")
    quiet = dict(errstream=io.BytesIO())
    mirror = state_dir() / "cache" / "snapshot" / "git" / value_hash(location)[:16]
    if not mirror.exists():
        mirror.parent.mkdir(parents=True, exist_ok=True)
        return porcelain.clone(location, str(mirror), bare=True, checkout=False, **quiet), location
    repo = Repo(str(mirror))
    fetched = porcelain.fetch(repo, location, outstream=io.StringIO(), include_tags=True, **quiet)
    for name, sha in fetched.refs.items():  # keep the mirror's branches and tags those of the remote
        if sha and name.startswith((b"refs/heads/", b"refs/tags/")):
            repo.refs[name] = sha
    return repo, location


def parse_when(value: Any) -> int:
    """A timestamp (seconds) from an ISO date or datetime; naive values are UTC."""
    if isinstance(value, (int, float)):
        return int(value)
    try:
        when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise QuarryError(f"snapshot: cannot read the date {value!r} (use ISO 8601, e.g. 2024-01-31T12:00:00Z)")
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return int(when.timestamp())


def resolve_commit(repo, ref: str | None, before: Any = None):
    """The commit a ref names (branch, tag, full or short id; HEAD when None), or the last commit
    reachable from it with a committer date at or before ``before`` (as `git rev-list -1 --before`)."""
    head = _resolve_ref(repo, ref)
    if before is None:
        return repo[head]
    until = parse_when(before)
    for entry in repo.get_walker(include=[head], until=until, max_entries=1):
        return entry.commit
    raise QuarryError(f"snapshot: no commit at or before {before} reachable from {ref or 'HEAD'}")


def _resolve_ref(repo, ref: str | None) -> bytes:
    from dulwich.objects import Commit, Tag

    names = [b"HEAD"] if not ref else [
        f"refs/heads/{ref}".encode(), f"refs/tags/{ref}".encode(), f"refs/remotes/origin/{ref}".encode(),
        ref.encode(),
    ]
    for name in names:
        if name in repo.refs:
            sha = repo.refs[name]
            obj = repo[sha]
            while isinstance(obj, Tag):
                obj = repo[obj.object[1]]
            if isinstance(obj, Commit):
                return obj.id
    if ref and re.fullmatch(r"[0-9a-fA-F]{4,40}", ref):
        matches = [sha for sha in repo.object_store if sha.decode().startswith(ref.lower())
                   and isinstance(repo[sha], Commit)] if len(ref) < 40 else [ref.lower().encode()]
        if len(matches) == 1 and matches[0] in repo.object_store:
            return matches[0]
    raise QuarryError(f"snapshot: {ref!r} is not a branch, tag or commit of the repository")


def _commit_date(commit) -> str:
    tz = timezone(timedelta(seconds=commit.commit_timezone))
    return datetime.fromtimestamp(commit.commit_time, tz).isoformat()


def plan_git(source: dict, cfg: dict) -> list[OriginPlan]:
    from dulwich.object_store import iter_tree_contents

    repo, location = open_repository(source)
    commit = resolve_commit(repo, source.get("ref"), source.get("before"))
    revision = commit.id.decode()
    plan = OriginPlan(source["name"], "git", source.get("origin") or location, revision=revision,
                      subset=source.get("subset"),
                      info={"revision_swhid": revision_swhid(revision), "commit_date": _commit_date(commit),
                            "ref": source.get("ref"), "before": source.get("before")})
    repo_path = repo.path
    entries = []
    for entry in iter_tree_contents(repo.object_store, commit.tree):
        try:
            rel = entry.path.decode("utf-8")
        except UnicodeDecodeError:
            plan.refused.append(Refused(entry.path.decode("utf-8", "replace"), "bad_path"))
            continue
        entries.append((rel, entry.mode, bytes.fromhex(entry.sha.decode())))
        if entry.mode == SUBMODULE_MODE:
            plan.refused.append(Refused(rel, "submodule", {"commit": entry.sha.decode()}))
        elif entry.mode == LINK_MODE:
            plan.refused.append(Refused(rel, "symlink", {"target": repo[entry.sha].data.decode("utf-8", "replace")}))
        else:
            size = len(repo.object_store.get_raw(entry.sha)[1])
            _admit(plan, rel, size, entry.mode, ("git", repo_path, entry.sha.decode()), cfg, source.get("exclude", ()))
    plan.info["directory"] = directory_swhid(entries)  # the commit's whole tree: equals its git tree id
    plan.info["tree"] = commit.tree.decode()
    return [plan]


# ---------------------------------------------------------------------------------------------
# Existing corpora (Pile-style jsonl / jsonl.zst)


def plan_corpus(source: dict, cfg: dict) -> list[OriginPlan]:
    location = Path(source["path"]).expanduser()
    shards = shard_paths(location)
    if not shards:
        raise QuarryError(f"snapshot source {source.get('name')!r}: no jsonl / jsonl.zst files at {location}")
    mapping = source.get("subset_map", {})
    plans = []
    for shard in shards:
        rel_shard = shard.relative_to(location).as_posix() if location.is_dir() else shard.name
        plan = OriginPlan(source["name"], "corpus", source.get("origin") or str(shard.resolve()),
                          subset=source.get("subset"), info={"file": rel_shard})
        for line, record in enumerate(read_records(shard), start=1):
            meta = record.get("meta") or {}
            text = record["text"]
            subset = mapping.get(meta.get("pile_set_name"), source.get("subset") or meta.get("pile_set_name"))
            path = meta.get("path") or f"{line:08d}"
            size = len(text.encode("utf-8"))
            upstream = {"subset": subset, "upstream_id": meta.get("id"), "upstream_origin": meta.get("origin")}
            if size > cfg["max_file_bytes"]:
                plan.refused.append(Refused(path, "too_large", {"bytes": size}))
                continue
            plan.candidates.append(Candidate(path, size, FILE_MODE, ("text", text, upstream)))
        plans.append(plan)
    return plans


PLANNERS = {"dir": plan_dir, "stdlib": plan_stdlib, "installed": plan_installed, "git": plan_git,
            "corpus": plan_corpus}


def plan_source(source: dict, cfg: dict, staging: Path) -> list[OriginPlan]:
    source = {"name": source.get("name") or source["kind"], **source}
    if source["kind"] == "archive":
        plans = plan_archive(source, cfg, staging)
    else:
        plans = PLANNERS[source["kind"]](source, cfg)
    for plan in plans:
        plan.candidates.sort(key=lambda c: c.path)
    return sorted(plans, key=lambda p: p.sort_key)

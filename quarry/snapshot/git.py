"""Git sources (dulwich): a local repository or a URL mirrored into the project's cache, at a
branch, tag or commit, or at the last commit before a date; every file of that commit's tree."""

from __future__ import annotations

import io
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from quarry.config.snapshot import SnapshotParams
from quarry.errors import QuarryError
from quarry.infra.hashing import value_hash
from quarry.paths import state_dir
from quarry.snapshot.filters import matches_any, path_refusal
from quarry.snapshot.plan import OriginPlan, Refused, admit, printable_path
from quarry.snapshot.swhid import LINK_MODE, SUBMODULE_MODE, directory_swhid, revision_swhid


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


def plan_git(source: dict, cfg: SnapshotParams) -> list[OriginPlan]:
    from dulwich.object_store import iter_tree_contents

    repo, location = open_repository(source)
    commit = resolve_commit(repo, source.get("ref"), source.get("before"))
    revision = commit.id.decode()
    plan = OriginPlan(source["name"], "git", source.get("origin") or location, revision=revision,
                      subset=source.get("subset"),
                      info={"revision_swhid": revision_swhid(revision), "commit_date": _commit_date(commit),
                            "ref": source.get("ref"), "before": source.get("before")})
    exclude = list(source.get("exclude", ()))
    entries = []
    for entry in iter_tree_contents(repo.object_store, commit.tree):
        rel = entry.path.decode("utf-8", "surrogateescape")
        entries.append((rel, entry.mode, bytes.fromhex(entry.sha.decode())))
        if entry.mode == SUBMODULE_MODE:
            plan.refused.append(Refused(rel, "submodule", {"commit": entry.sha.decode()}))
        elif entry.mode == LINK_MODE:
            plan.refused.append(Refused(rel, "symlink", {"target": repo[entry.sha].data.decode("utf-8", "replace")}))
        elif printable_path(rel) != rel:
            plan.refused.append(Refused(printable_path(rel), "bad_path"))
        elif reason := path_refusal(rel, 0, cfg) or ("excluded_path" if matches_any(rel, exclude) else None):
            plan.refused.append(Refused(rel, reason))  # decided by the path: the blob is never read
        else:
            size = len(repo.object_store.get_raw(entry.sha)[1])
            admit(plan, rel, size, entry.mode, ("git", repo.path, entry.sha.decode()), cfg, exclude)
    plan.info["directory"] = directory_swhid(entries)  # the commit's whole tree: equals its git tree id
    plan.info["tree"] = commit.tree.decode()
    return [plan]

"""Software Heritage identifiers (swh:1:cnt / dir / rev), computed with the swh-model package.

A content SWHID is git's blob hash; a directory SWHID is git's tree hash; a revision SWHID is
git's commit hash. So a tree built here from (path, mode, content hash) entries has the same id
as `git write-tree` of the same files.
"""

from __future__ import annotations

from collections.abc import Iterable

from swh.model.hashutil import MultiHash
from swh.model.model import Directory, DirectoryEntry
from swh.model.swhids import CoreSWHID, ObjectType

FILE_MODE = 0o100644
EXEC_MODE = 0o100755
LINK_MODE = 0o120000
SUBMODULE_MODE = 0o160000
DIR_MODE = 0o040000


def sha1_git(data: bytes) -> bytes:
    return MultiHash.from_data(data, hash_names=["sha1_git"]).digest()["sha1_git"]


def content_swhid(data: bytes) -> str:
    return swhid_of(ObjectType.CONTENT, sha1_git(data))


def swhid_of(kind: ObjectType, object_id: bytes | str) -> str:
    if isinstance(object_id, str):
        object_id = bytes.fromhex(object_id)
    return str(CoreSWHID(object_type=kind, object_id=object_id))


def revision_swhid(commit_id: bytes | str) -> str:
    """A git commit id is the revision's intrinsic id (swh computes the same hash)."""
    return swhid_of(ObjectType.REVISION, commit_id)


def hex_of(swhid: str) -> str:
    return swhid.rsplit(":", 1)[1]


def _entry_type(mode: int) -> str:
    if mode == SUBMODULE_MODE:
        return "rev"
    return "file"


def directory_swhid(entries: Iterable[tuple[str, int, bytes]]) -> str:
    """The swh:1:dir of a tree given its files as (posix path, git mode, sha1_git)."""
    tree: dict = {}
    for path, mode, digest in entries:
        node = tree
        *parents, name = path.split("/")
        for part in parents:
            node = node.setdefault(part, {})
        node[name] = (mode, digest)
    return swhid_of(ObjectType.DIRECTORY, _directory_id(tree))


def _name(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")  # non-UTF-8 names from git or disk, byte for byte


def _directory_id(tree: dict) -> bytes:
    entries = []
    for name, value in tree.items():
        if isinstance(value, dict):
            entries.append(DirectoryEntry(name=_name(name), type="dir", target=_directory_id(value),
                                          perms=DIR_MODE))
        else:
            mode, digest = value
            entries.append(DirectoryEntry(name=_name(name), type=_entry_type(mode), target=digest, perms=mode))
    return Directory(entries=tuple(entries)).id

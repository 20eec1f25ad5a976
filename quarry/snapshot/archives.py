"""Safe extraction of repository archives (tar, tar.gz/bz2/xz, zip).

Nothing is trusted: a member is refused, and reported with its name, when its path is absolute
or has a `..` component, when it is a link whose target leaves the tree (or a hard link), when
it is a device, fifo or other special file, or when the archive exceeds the member-count or
total-bytes caps (a bomb guard that counts the sizes the headers declare before writing, and
the bytes actually decompressed while writing), or when it inflates more than ``max_ratio`` times
its own size. Files are written with plain open() under the destination, never with the archive
library's own extract, so no member can write outside it.
"""

from __future__ import annotations

import os
import posixpath
import stat
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from quarry.errors import QuarryError

COPY_CHUNK = 1 << 20
# A bomb is refused while it streams, long before the byte cap fills a disk: no real source
# archive inflates more than ``max_ratio`` times its size (source tarballs: 3-10x), past a floor
# that small archives of very repetitive text stay under.
RATIO_FLOOR_BYTES = 64 << 20


@dataclass
class Refusal:
    archive: str
    member: str
    reason: str


@dataclass
class Extraction:
    files: int = 0
    bytes: int = 0
    links: dict[str, str] = field(default_factory=dict)  # in-tree symlinks: path -> target
    refusals: list[Refusal] = field(default_factory=list)


class ArchiveLimitError(QuarryError):
    pass


def archive_format(path: Path) -> str:
    if zipfile.is_zipfile(path):
        return "zip"
    if tarfile.is_tarfile(path):
        return "tar"
    raise QuarryError(f"{path}: not a tar or zip archive")


def member_problem(name: str) -> str | None:
    """Why a member path is unsafe, or None."""
    if not name or name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return "absolute_path"
    if "\\" in name:
        name = name.replace("\\", "/")
    if ".." in name.split("/"):
        return "parent_reference"
    if "\0" in name:
        return "bad_name"
    return None


def _clean(name: str) -> str:
    cleaned = posixpath.normpath(name.replace("\\", "/"))
    return "" if cleaned == "." else cleaned


def link_escapes(member: str, target: str) -> bool:
    """Whether a symlink at ``member`` pointing to ``target`` resolves outside the tree."""
    if target.startswith("/") or (len(target) > 1 and target[1] == ":"):
        return True
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(member), target))
    return resolved == ".." or resolved.startswith("../")


class _Extractor:
    def __init__(self, archive: Path, dest: Path, max_members: int, max_bytes: int, max_ratio: float):
        self.archive, self.dest = str(archive), dest.resolve()
        self.max_members, self.max_bytes = max_members, max_bytes
        self.ratio_bytes = max(RATIO_FLOOR_BYTES, int(max_ratio * archive.stat().st_size))
        self.max_ratio = max_ratio
        self.result = Extraction()
        self.members = 0
        self.declared = 0

    def declare(self, size: int) -> None:
        """Count a member's size as its header states it: a declared bomb is refused before any
        of it is written (the bytes actually written are counted again in ``write``)."""
        self.declared += max(0, size)
        if self.declared > self.max_bytes:
            raise ArchiveLimitError(f"{self.archive}: its members declare more than {self.max_bytes} bytes")

    def refuse(self, member: str, reason: str) -> None:
        self.result.refusals.append(Refusal(self.archive, member, reason))

    def admit(self, name: str) -> str | None:
        self.members += 1
        if self.members > self.max_members:
            raise ArchiveLimitError(f"{self.archive}: more than {self.max_members} members")
        problem = member_problem(name)
        if problem:
            self.refuse(name, problem)
            return None
        return _clean(name)

    def target(self, rel: str) -> Path:
        path = (self.dest / rel).resolve()
        if path != self.dest and self.dest not in path.parents:  # a link planted earlier
            raise ArchiveLimitError(f"{self.archive}: member {rel} resolves outside the destination")
        return path

    def write(self, rel: str, source, executable: bool = False) -> None:
        path = self.target(rel)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):  # a file already stands where a folder goes
            self.refuse(rel, "path_conflict")
            return
        if path.is_dir():
            self.refuse(rel, "path_conflict")
            return
        with open(path, "wb") as out:
            while chunk := source.read(COPY_CHUNK):
                self.result.bytes += len(chunk)
                problem = None
                if self.result.bytes > self.max_bytes:
                    problem = f"more than {self.max_bytes} bytes once extracted"
                elif self.result.bytes > self.ratio_bytes:
                    problem = f"inflates more than {self.max_ratio:g} times its size (compression bomb)"
                if problem:
                    out.close()
                    path.unlink()
                    raise ArchiveLimitError(f"{self.archive}: {problem}")
                out.write(chunk)
        if executable:
            path.chmod(0o755)
        self.result.files += 1

    def mkdir(self, rel: str) -> None:
        try:
            self.target(rel).mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            self.refuse(rel, "path_conflict")

    def link(self, rel: str, target: str) -> None:
        if link_escapes(rel, target):
            self.refuse(rel, "link_escape")
            return
        # Kept as a record of the tree, never created on disk: later members cannot follow it.
        self.result.links[rel] = target


def extract(archive: str | os.PathLike, dest: str | os.PathLike, *, max_members: int = 100_000,
            max_bytes: int = 2_000_000_000, max_ratio: float = 100.0) -> Extraction:
    """Extract ``archive`` under ``dest`` (created); returns counts, in-tree links and refusals.

    Exceeding a cap refuses the whole archive: what was written is removed and the refusal
    (reason `bomb`) is the only result.
    """
    archive, dest = Path(archive), Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    ex = _Extractor(archive, dest, max_members, max_bytes, max_ratio)
    try:
        if archive_format(archive) == "zip":
            _extract_zip(ex, archive)
        else:
            _extract_tar(ex, archive)
    except (ArchiveLimitError, tarfile.TarError, zipfile.BadZipFile, EOFError) as exc:
        _empty(dest)
        reason = "bomb" if isinstance(exc, ArchiveLimitError) else "corrupt_archive"
        return Extraction(refusals=[Refusal(str(archive), "*", f"{reason}: {exc}")])
    return ex.result


def _extract_tar(ex: _Extractor, archive: Path) -> None:
    with tarfile.open(archive, mode="r:*") as tar:
        for member in tar:
            rel = ex.admit(member.name)
            if rel is None or rel == "":
                continue
            if member.isdir():
                ex.mkdir(rel)
            elif member.isreg():
                ex.declare(member.size)
                with tar.extractfile(member) as source:
                    ex.write(rel, source, executable=bool(member.mode & 0o111))
            elif member.issym():
                ex.link(rel, member.linkname)
            elif member.islnk():
                ex.refuse(rel, "hard_link")
            else:
                ex.refuse(rel, "special_file")


def _extract_zip(ex: _Extractor, archive: Path) -> None:
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():  # the central directory states every size up front
            ex.declare(info.file_size)
        for info in zf.infolist():
            rel = ex.admit(info.filename)
            if rel is None or rel == "":
                continue
            mode = info.external_attr >> 16 if info.create_system == 3 else 0  # Unix mode, when made on Unix
            file_type = stat.S_IFMT(mode)
            if info.is_dir():
                ex.mkdir(rel)
            elif file_type == stat.S_IFLNK:
                with zf.open(info) as source:  # a link's target is short; never inflate more
                    ex.link(rel, source.read(4096).decode("utf-8", "replace"))
            elif file_type not in (0, stat.S_IFREG):
                ex.refuse(rel, "special_file")
            else:
                with zf.open(info) as source:
                    ex.write(rel, source, executable=bool(mode & 0o111))


def _empty(dest: Path) -> None:
    import shutil

    for child in dest.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()

"""The Stack v2's layouts built from real folders of this machine: each folder a "repository",
its text files its files, their contents in a blob store keyed by sha1_git (flat or ``ab/``
fan-out; plain, gzip or zstd, in turn), as Software Heritage serves the -ids variants' contents.
Shared by the table tests and bench/snapshot_fidelity.py."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

from quarry.config.snapshot import SnapshotParams
from quarry.snapshot.filters import matches_any, path_refusal
from quarry.snapshot.swhid import sha1_git

BLOB_STYLES = (("", ""), ("", ".gz"), ("fanout", ".zst"), ("fanout", ""), ("", ".zst"), ("fanout", ".gz"))


def write_parquet(path: Path, rows: list[dict], row_group_size: int = 3) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=row_group_size)


def write_blob(store: Path, data: bytes, blob_id: str, style: int) -> Path:
    """``data`` under its id in one of the store's layouts (``style`` picks which, in turn)."""
    fanout, suffix = BLOB_STYLES[style % len(BLOB_STYLES)]
    folder = store / blob_id[:2] if fanout else store
    folder.mkdir(parents=True, exist_ok=True)
    packed = gzip.compress(data, mtime=0) if suffix == ".gz" else (
        zstandard.ZstdCompressor().compress(data) if suffix == ".zst" else data)
    path = folder / f"{blob_id}{suffix}"
    path.write_bytes(packed)
    return path


def text_files(folder: Path, cfg: SnapshotParams | None = None) -> dict[str, bytes]:
    """The files of ``folder`` a folder snapshot would read (path rules) that hold UTF-8 text:
    what The Stack v2 lists of a repository (it holds no binaries)."""
    cfg = cfg or SnapshotParams()
    found = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink() or not path.is_file() or matches_any(rel, cfg.exclude):
            continue
        if path_refusal(rel, path.stat().st_size, cfg):
            continue
        data = path.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if b"\0" not in data:
            found[rel] = data
    return found


def repository_rows(folders: dict[str, Path], store: Path) -> tuple[list[dict], dict[str, bytes]]:
    """One row per repository as -train-smol-ids / -train-full-ids list them, its files in
    ``files``; every content written to ``store``. Returns the rows and blob id -> content."""
    rows, contents = [], {}
    for number, (repo, folder) in enumerate(sorted(folders.items())):
        files = []
        for rel, data in text_files(folder).items():
            blob_id = sha1_git(data).hex()
            if blob_id not in contents:
                write_blob(store, data, blob_id, len(contents))
                contents[blob_id] = data
            language = {"py": "Python", "md": "Markdown", "txt": "Text", "c": "C"}.get(rel.rpartition(".")[2])
            files.append({"blob_id": blob_id, "path": f"/{rel}", "content_id": hashlib.sha1(data).hexdigest(),
                          "language": language, "length_bytes": len(data),
                          "detected_licenses": ["MIT"] if number % 2 else [],
                          "license_type": "permissive" if number % 2 else "no_license",
                          "src_encoding": "UTF-8", "is_vendor": False, "is_generated": False,
                          "alphanum_fraction": round(sum(c.isalnum() for c in data.decode()) / max(1, len(data)), 4)})
        rows.append({"repo_name": repo, "repo_url": f"https://github.com/{repo}",
                     "revision_id": hashlib.sha1(repo.encode()).hexdigest(), "branch_name": "refs/heads/main",
                     "star_events_count": number, "gha_license_id": "MIT" if number % 2 else None,
                     "files": files, "num_files": len(files)})
    return rows, contents


def file_rows(rows: list[dict]) -> list[dict]:
    """The same files in the file-level layout (the-stack-v2, -dedup): one row per file, the
    repository's columns repeated on each."""
    return [{**{k: v for k, v in row.items() if k != "files"}, **file} for row in rows for file in row["files"]]

"""The files and origins a snapshot kept, as the lists beside its manifest give them: every kept
file's origin, revision, SWHID, path, size and labels, in shard order (a list per shard); every
origin's entry (revision, directory SWHID, counts), in origin order. Read by lineage queries
without the snapshot's own machinery (this module imports only the record reader)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from quarry.records import JsonDict, read_json, read_records

FILE_LISTS = "files"    # the folder of the shards' file lists, beside shards/ and manifest.json
# zstd-compressed JSON lines, but not record shards (no text): no stage reading a folder's
# *.jsonl* shards takes them for input
FILE_LIST_SUFFIX = ".files.zst"
ORIGIN_LISTS = "origins"    # the folder of the origin lists
ORIGIN_LIST_SUFFIX = ".origins.zst"
ORIGINS_PER_LIST = 100_000


def file_list_name(number: int) -> str:
    """The file list of shard ``part-NNNNN.jsonl.zst``."""
    return f"part-{number:05d}{FILE_LIST_SUFFIX}"


def origin_list_name(number: int) -> str:
    return f"part-{number:05d}{ORIGIN_LIST_SUFFIX}"


def snapshot_origins(folder: str | Path) -> Iterator[JsonDict]:
    """Every origin entry of the snapshot in ``folder`` (its manifest's folder), in origin order."""
    folder = Path(folder)
    for origin_list in read_json(folder / "manifest.json").get("origin_lists") or []:
        yield from read_records(folder / ORIGIN_LISTS / origin_list["name"], require_text=False)


def snapshot_files(folder: str | Path) -> Iterator[JsonDict]:
    """Every kept file of the snapshot in ``folder``, in shard order."""
    folder = Path(folder)
    for file_list in read_json(folder / "manifest.json").get("file_lists") or []:
        yield from read_records(folder / FILE_LISTS / file_list["name"], require_text=False)

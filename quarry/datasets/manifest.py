"""The manifest of a dataset version, its content hash and the SHA256SUMS file.

The version id is a sha256 over the sorted shard hashes and the manifest body without the
version itself and without the code version: the same documents built by two commits of the
code that write the same bytes are the same dataset. Nothing in the body depends on the
clock, the machine or the worker count, so rebuilding the same inputs gives the same id.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeAlias

from quarry.config.params import Params
from quarry.errors import QuarryError
from quarry.infra.hashing import file_hash, value_hash
from quarry.config.values import section_hash
from quarry.ledger import merge_ledgers
from quarry.records import JsonDict, atomic_write_bytes, read_json

# A dataset version's manifest.json (schema quarry.dataset/1: name, version, splits, composition,
# ledger, ...): open, since a later schema may add keys and readers take what they know.
Manifest: TypeAlias = dict[str, Any]

SCHEMA = "quarry.dataset/1"
MANIFEST = "manifest.json"
SUMS = "SHA256SUMS"
# The label is a human alias assigned when the version is registered (unique per name, see
# versions.assign_label); the hash cites content, so it is the same on every machine.
UNHASHED = ("version", "code_version", "label")
# Keys that change how fast a build runs, never what it writes.
SPEED_KEYS = ("zstd_threads", "workers")
PARTITION_KEYS = ("partition_mb", "partitions")   # how a global decision is split, never what it decides
PARTITIONED_SECTIONS = ("licenses", "dedup")
CURATION_SECTIONS = ("snapshot", "licenses", "optout", "filters", "pii", "dedup", "decontaminate")


def params_hash(params: Params) -> str:
    """Hash of the curation sections and the assemble section, minus their speed knobs, as plain values
    with every default filled in (a value spelled out or left to its default hashes the same)."""
    values = params.as_dict()
    for section in PARTITIONED_SECTIONS:
        values[section] = {k: v for k, v in values[section].items() if k not in PARTITION_KEYS}
    assemble = {k: v for k, v in values["assemble"].items() if k not in SPEED_KEYS + PARTITION_KEYS}
    return value_hash({"curation": section_hash(values, *CURATION_SECTIONS), "assemble": assemble})


def shard_entries(out_dir: Path, files: Iterable[JsonDict]) -> list[JsonDict]:
    """Each shard's path, sha256, record count and sizes (uncompressed and on disk)."""
    entries = []
    for entry in files:
        path = out_dir / entry["path"]
        entries.append({**entry, "sha256": file_hash(path), "compressed_bytes": path.stat().st_size})
    return entries


def version_hash(manifest: Manifest) -> str:
    shards = sorted(f["sha256"] for split in manifest["splits"].values() for f in split["files"])
    body = {k: v for k, v in manifest.items() if k not in UNHASHED}
    return value_hash({"shards": shards, "manifest": body})


def seal(manifest: Manifest) -> JsonDict:
    """The manifest with its version id set."""
    return {**manifest, "version": version_hash(manifest)}


def normalise_ledgers(ledgers: Iterable[str | os.PathLike | dict]) -> dict[str, JsonDict]:
    """Stage name -> ledger dict, from ledger.json paths (or their folders) and dicts."""
    by_stage: dict[str, list[dict]] = {}
    for item in ledgers:
        where = "a ledger dict"
        if not isinstance(item, dict):
            path = Path(item)
            where = path / "ledger.json" if path.is_dir() else path
            item = read_json(where)
        if not isinstance(item, dict) or not isinstance(item.get("stage"), str):
            raise QuarryError(f"{where}: not a stage ledger (needs a \"stage\" name and counts)")
        by_stage.setdefault(item["stage"], []).append(item)
    return {stage: merge_ledgers(stage, items).to_dict() for stage, items in by_stage.items()}


def ledger_paths(ledgers: Iterable[str | os.PathLike | dict]) -> list[Path]:
    """The folders of the ledgers given as paths (their rejects/ explain removed documents)."""
    found = []
    for item in ledgers:
        if isinstance(item, dict):
            continue
        path = Path(item)
        found.append(path if path.is_dir() else path.parent)
    return found


def write_sums(out_dir: Path) -> None:
    """SHA256SUMS over every file of the dataset folder (sha256sum -c format)."""
    lines = []
    for path in sorted(p for p in out_dir.rglob("*") if p.is_file() and p.name != SUMS):
        lines.append(f"{file_hash(path)}  {path.relative_to(out_dir).as_posix()}\n")
    atomic_write_bytes(out_dir / SUMS, "".join(lines).encode())


def verify_sums(out_dir: Path) -> list[str]:
    """Paths whose bytes no longer match SHA256SUMS (missing files included)."""
    bad = []
    for line in (out_dir / SUMS).read_text().splitlines():
        digest, rel = line.split("  ", 1)
        path = out_dir / rel
        if not path.is_file() or file_hash(path) != digest:
            bad.append(rel)
    return bad


def read_manifest(folder: Path) -> JsonDict:
    return read_json(folder / MANIFEST)

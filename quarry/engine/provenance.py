"""What made a stage's output: ``provenance.json`` in every output folder, and the check of a chain.

    {"stage": "pii", "config": {...}, "config_hash": ..., "code": <hash of the quarry sources>,
     "args": {...}, "input": {"path": "../filtered", "hash": ...}, "output": {"hash": ..., "files": {...}}}

The input is the stage's input folder by its path relative to the output and the tree hash of its
files; the output is every file of the folder but this one, by hash. ``verify`` re-hashes a folder
and walks its inputs back to the first stage (the snapshot), naming the first link that breaks:
a file changed since its stage wrote it, or an input that is no longer what the next stage read.
Kept apart from ledger.json and the dataset's SHA256SUMS, so a version's hash does not change.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from quarry.errors import QuarryError
from quarry.infra.hashing import code_version, file_hashes, hashes_digest, value_hash
from quarry.records import read_json, write_json

PROVENANCE = "provenance.json"


def plain(value: Any) -> Any:
    """A JSON-able picture of a config or args value (typed sections, dataclasses, paths)."""
    if hasattr(value, "model_dump") and not isinstance(value, type):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return {"type": type(value).__qualname__, "id": getattr(value, "hash", None)}  # an object: a tokenizer


def record(stage: str, config: Any, args: Any, src: Path | None, built: Path, dst: Path) -> dict[str, Any]:
    """The provenance of the output built in ``built`` (its staging folder, or ``dst`` itself), to
    stand at ``dst``."""
    files = file_hashes(built, exclude=(PROVENANCE,))
    config_values = plain(config)
    return {
        "stage": stage,
        "config": config_values,
        "config_hash": value_hash(config_values),
        "code": code_version(),
        "args": plain(args),
        "input": None if src is None else {"path": os.path.relpath(src, dst), "hash": hashes_digest(file_hashes(src))},
        "output": {"hash": hashes_digest(files), "files": files},
    }


def write(folder: Path, provenance: dict[str, Any]) -> None:
    write_json(folder / PROVENANCE, provenance)


def read(folder: Path) -> dict[str, Any] | None:
    path = Path(folder) / PROVENANCE
    return read_json(path) if path.is_file() else None


def producer(folder: Path) -> tuple[Path, dict[str, Any]] | None:
    """The stage output holding ``folder``: the folder itself, or the nearest one above it with a
    provenance (a snapshot's shards/ are part of the snapshot's output)."""
    for candidate in (folder, *folder.parents):
        if (found := read(candidate)) is not None:
            return candidate, found
        if candidate == candidate.parent:
            break
    return None


def verify(folder: str | os.PathLike) -> list[str]:
    """Check ``folder`` and every stage output it was made from; returns the stages checked, from
    ``folder`` back to the first. Raises QuarryError naming the first broken link."""
    folder = Path(folder).resolve()
    found = read(folder)
    if found is None:
        raise QuarryError(f"{folder}: no {PROVENANCE}; not the output of a Quarry stage")
    checked = []
    while True:
        changed = _changed_files(folder, found)
        if changed:
            raise QuarryError(f"{folder}: {len(changed)} file(s) changed since the {found['stage']} stage wrote them: "
                              f"{', '.join(changed[:5])}")
        checked.append(f"{found['stage']}: {folder}")
        if found["input"] is None:
            return checked
        source = (folder / found["input"]["path"]).resolve()
        upstream = producer(source)
        if not source.exists():
            raise QuarryError(f"{folder}: its input {source} ({found['stage']} read it) is gone")
        if hashes_digest(file_hashes(source)) != found["input"]["hash"]:
            raise QuarryError(f"{folder}: its input {source} changed after the {found['stage']} stage read it")
        if upstream is None:
            return checked  # an input that no stage made (a user's own shards)
        folder, found = upstream


def _changed_files(folder: Path, found: dict[str, Any]) -> list[str]:
    recorded = found["output"]["files"]
    actual = file_hashes(folder, exclude=(PROVENANCE,))
    return sorted(rel for rel in recorded.keys() | actual.keys() if recorded.get(rel) != actual.get(rel))

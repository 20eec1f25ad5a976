"""Evaluation items from named benchmark files: jsonl, jsonl.zst, plain text, or folders of them.

A JSON line's text is its ``text`` (or ``content``/``code``, or ``prompt`` followed by its
``canonical_solution``/``solution``/``completion``); its id is ``id``, ``item_id``,
``task_id`` or ``meta.id``, else its line number. A .txt file, or any other text file in a
folder, is one item named by its path.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from quarry.errors import ConfigError
from quarry.paths import project_root
from quarry.records import Record, read_records

TEXT_KEYS = ("text", "content", "code")
PROMPT_KEYS = ("prompt", "question")
SOLUTION_KEYS = ("canonical_solution", "solution", "completion", "answer")
ID_KEYS = ("id", "item_id", "task_id")


def resolve_eval_file(name: str | Path) -> Path:
    """A path as given, or else relative to the project root (where params.yaml lives)."""
    path = Path(name)
    return path if path.is_absolute() or path.exists() else project_root() / path


def _is_records(path: Path) -> bool:
    return path.name.endswith((".jsonl", ".jsonl.zst", ".json.zst", ".ndjson"))


def item_text(record: Record, where: str) -> str:
    for key in TEXT_KEYS:
        if isinstance(record.get(key), str):
            return record[key]
    for key in PROMPT_KEYS:
        if isinstance(record.get(key), str):
            tail = next((record[k] for k in SOLUTION_KEYS if isinstance(record.get(k), str)), "")
            return record[key] + tail
    raise ConfigError(f"{where}: evaluation record has no text (expected one of "
                      f"{', '.join(TEXT_KEYS + PROMPT_KEYS)})")


def item_id(record: Record, line: int) -> str:
    for key in ID_KEYS:
        if record.get(key) not in (None, ""):
            return str(record[key])
    meta = record.get("meta")
    if isinstance(meta, dict) and meta.get("id") not in (None, ""):
        return str(meta["id"])
    return f"line {line}"


def _file_items(path: Path, label: str) -> Iterator[tuple[str, str]]:
    if _is_records(path):
        for line, record in enumerate(read_records(path, require_text=False), start=1):
            yield f"{label}:{item_id(record, line)}", item_text(record, f"{path}:{line}")
        return
    try:
        yield label, path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return  # binary files in a folder are not evaluation text


def eval_items(name: str | Path) -> Iterator[tuple[str, str]]:
    """(label, text) of every item named by ``name``, in a stable order."""
    path = resolve_eval_file(name)
    if not path.exists():
        raise ConfigError(f"{path}: evaluation file does not exist")
    if path.is_file():
        yield from _file_items(path, path.name)
        return
    for file in sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")):
        yield from _file_items(file, f"{path.name}/{file.relative_to(path).as_posix()}")

"""Plain files, not shards: scan or redact a source file (app.py, .env, values.yaml) or a folder
of them, each file one document. Redaction mirrors the folder; a file that is not UTF-8 text is
copied unchanged (nothing is lost), and each output file is written whole or not at all.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from quarry.errors import QuarryError
from quarry.curation.pii.engine import PiiConfig
from quarry.curation.pii.redact import redact

SHARD_SUFFIXES = (".jsonl", ".zst", ".zstd")


def is_shard(path: Path) -> bool:
    return path.suffix in SHARD_SUFFIXES


def holds_shards(path: Path) -> bool:
    """A shard, or a folder with at least one shard in it: read as records, not as files."""
    path = Path(path)
    if path.is_file():
        return is_shard(path)
    return any(p.is_file() and is_shard(p) and not p.name.startswith(".") for p in path.rglob("*"))


def source_files(path: Path) -> list[Path]:
    """The file itself, or every file below the folder, in sorted order."""
    path = Path(path)
    return [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())


def read_text(path: Path) -> str | None:
    """The file's text, or None where it is not UTF-8 (a binary file is nobody's source)."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return None


def iter_documents(path: Path) -> Iterator[tuple[Path, str]]:
    for file in source_files(path):
        text = read_text(file)
        if text is not None:
            yield file, text


def redact_files(src: Path, dst: Path, config: PiiConfig) -> dict:
    """Redact a source file into folder ``dst`` (same name), or a folder into ``dst`` (same tree).
    Returns {"input": files, "text_files": n, "changed": {TYPE: files}, "findings": {TYPE: n}}."""
    src, dst = Path(src), Path(dst)
    if src.is_dir() and (dst.resolve() == src.resolve() or src.resolve() in dst.resolve().parents):
        raise QuarryError(f"{dst}: the output folder must not be inside the input folder {src}")
    files = source_files(src)
    changed: Counter = Counter()
    findings: Counter = Counter()
    text_files = 0
    for file in files:
        target = dst / (file.name if src.is_file() else file.relative_to(src))
        text = read_text(file)
        if text is None:
            _write_atomically(target, file.read_bytes())
            continue
        text_files += 1
        redacted, counts = redact(text, config)
        findings.update(counts)
        changed.update(counts.keys())
        _write_atomically(target, redacted.encode("utf-8"))
        shutil.copymode(file, target)
    return {"input": len(files), "text_files": text_files, "changed": dict(sorted(changed.items())),
            "findings": dict(sorted(findings.items()))}


def _write_atomically(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

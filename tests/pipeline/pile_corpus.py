"""A Pile-style corpus (one jsonl.zst shard, ``meta.pile_set_name`` per record) of real text the
running interpreter ships: standard-library modules, C headers (numpy's and the interpreter's own), and the
package descriptions of the installed distributions (English prose in Markdown or reST). No
record has a file name, as in the Pile, so languages can only come from the content."""

from __future__ import annotations

import importlib.metadata
import sysconfig
from pathlib import Path

import numpy

from quarry.records import write_records

MIN_CHARS, MAX_CHARS = 1_500, 40_000


def _sized(texts, limit: int) -> list[str]:
    kept = []
    for text in texts:
        if MIN_CHARS <= len(text) <= MAX_CHARS and text not in kept:
            kept.append(text)
        if len(kept) == limit:
            break
    return kept


def _files(folder: Path, pattern: str, *, below: bool = True):
    """The texts of the files matching ``pattern`` (``below``: in subfolders too), sorted by path."""
    for path in sorted(folder.rglob(pattern) if below else folder.glob(pattern)):
        try:
            yield path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue


def _descriptions():
    for dist in sorted(importlib.metadata.distributions(), key=lambda d: (d.metadata["Name"] or "").lower()):
        text = dist.metadata.get_payload() or dist.metadata.get("Description") or ""
        if isinstance(text, str):
            yield text


def subsets(per_subset: int) -> dict[str, list[str]]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    headers = Path(numpy.get_include())
    python_headers = Path(sysconfig.get_paths()["include"])
    return {"StdlibPython": _sized(_files(stdlib, "*.py", below=False), per_subset),
            "CHeaders": _sized([*_files(headers, "*.h"), *_files(python_headers, "*.h")], per_subset),
            "PackageDocs": _sized(_descriptions(), per_subset)}


def write_pile_corpus(path: Path, per_subset: int = 40) -> dict[str, int]:
    """Write the corpus; returns its record count per subset."""
    records = [{"text": text, "meta": {"pile_set_name": name}}
               for name, texts in subsets(per_subset).items() for text in texts[:per_subset]]
    write_records(path, records)
    counts: dict[str, int] = {}
    for record in records:
        counts[record["meta"]["pile_set_name"]] = counts.get(record["meta"]["pile_set_name"], 0) + 1
    return counts


def stack_v2_rows(limit: int = 12) -> list[dict]:
    """Rows in The Stack v2's layout (a subset of its columns) for standard-library modules of the
    ``email`` package, over two repositories; upstream says half are permissive."""
    from quarry.snapshot.swhid import sha1_git

    folder = Path(sysconfig.get_paths()["stdlib"]) / "email"
    rows = []
    for i, text in enumerate(_sized(_files(folder, "*.py", below=False), limit)):
        rows.append({"blob_id": sha1_git(text.encode()).hex(), "repo_name": ("acme/mail", "octo/mailer")[i % 2],
                     "path": f"/mail/module_{i:02d}.py", "revision_id": ("ab", "cd")[i % 2] * 20,
                     "language": "Python", "detected_licenses": ["MIT"] if i % 2 else [],
                     "license_type": "permissive" if i % 2 else "no_license", "star_events_count": i,
                     "content": text})
    return rows


def write_stack_v2(folder: Path, rows: list[dict], *, blobs: Path | None = None) -> None:
    """One Parquet shard of ``rows``; with ``blobs``, without ``content``, the contents written
    gzip-compressed to the blob store by content id."""
    import gzip

    import pyarrow as pa
    import pyarrow.parquet as pq

    if blobs is not None:
        blobs.mkdir(parents=True, exist_ok=True)
        for row in rows:
            (blobs / f"{row['blob_id']}.gz").write_bytes(gzip.compress(row["content"].encode()))
        rows = [{k: v for k, v in row.items() if k != "content"} for row in rows]
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / "train-00000.parquet", row_group_size=4)

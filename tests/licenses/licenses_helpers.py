"""Helpers for license tests: real license texts from ScanCode's own data, generated repositories
turned into snapshot-style shards whose origins span several shards."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quarry.records import write_records

_SCANCODE_PYTHON = Path(__file__).resolve().parents[2] / ".venv-scancode" / "bin" / "python"
os.environ.setdefault("QUARRY_SCANCODE_PYTHON", str(_SCANCODE_PYTHON))
SCANCODE_PYTHON = Path(os.environ["QUARRY_SCANCODE_PYTHON"])
_DATA_GLOB = "lib/python3*/site-packages/licensedcode/data/licenses"
LICENSE_DATA = next(iter(sorted(SCANCODE_PYTHON.parent.parent.glob(_DATA_GLOB))), None) \
    if SCANCODE_PYTHON.exists() else None

needs_scancode = pytest.mark.skipif(LICENSE_DATA is None,
                                    reason=f"ScanCode virtualenv absent ({SCANCODE_PYTHON}): create .venv-scancode")


def with_registry(registry: Path) -> dict:
    """params naming ``registry`` as the opt-out stage's registry."""
    return {"optout": {"registry": str(registry)}}


def license_text(key: str) -> str:
    """The canonical text of a ScanCode license (the .LICENSE file without its YAML front matter)."""
    raw = (LICENSE_DATA / f"{key}.LICENSE").read_text(encoding="utf-8")
    if raw.startswith("---"):
        raw = raw.split("\n---\n", 1)[1]
    return raw.strip() + "\n"


def make_repo(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def snapshot_shards(repos: dict[str, Path], out: Path, shards: int = 3) -> Path:
    """One record per file of each repository (DESIGN.md schema), dealt round-robin over shards,
    so every repository with several files spans shards."""
    records = []
    for origin, root in sorted(repos.items()):
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            rel = path.relative_to(root).as_posix()
            text = path.read_text(encoding="utf-8")
            records.append({"text": text, "meta": {"id": f"{origin}:{rel}", "origin": origin, "path": rel,
                                                   "bytes": len(text.encode())}})
    for n in range(shards):
        write_records(out / f"part-{n:05d}.jsonl.zst", records[n::shards])
    return out


def govern(root: Path, layouts: dict[str, dict[str, str]]) -> tuple[dict, dict, Path]:
    """The licenses stage over one repository per origin of ``layouts`` (origin -> {path: text}),
    snapshotted over 3 shards: (kept (origin, path) -> licence, dropped (origin, path) -> meta,
    the stage's output folder)."""
    from quarry.engine import run_local
    from quarry.curation.licenses.shards import stage_shards
    from quarry.records import read_folder, read_records
    from quarry.stages.licenses import LICENSES

    repos = {origin: make_repo(root / "repos" / f"r{i}", files) for i, (origin, files) in enumerate(sorted(layouts.items()))}
    src = snapshot_shards(repos, root / "snapshot", shards=3)
    out = root / "licensed"
    run_local(LICENSES, src, out, {"licenses": {}}, workers=1)
    kept = {(r["meta"]["origin"], r["meta"]["path"]): r["meta"]["license"]
            for shard in stage_shards(out) for r in read_records(shard)}
    dropped = {(r["meta"]["origin"], r["meta"]["path"]): r["meta"] for r in read_folder(out / "rejects")}
    return kept, dropped, out


@pytest.fixture
def license_texts():
    if LICENSE_DATA is None:
        pytest.skip(f"ScanCode virtualenv absent ({SCANCODE_PYTHON})")
    return license_text


@pytest.fixture(scope="session")
def detector():
    """One ScanCode worker for the whole test session: its index loads once."""
    if LICENSE_DATA is None:
        pytest.skip(f"ScanCode virtualenv absent ({SCANCODE_PYTHON})")
    from quarry.curation.licenses.cache import CachedDetector

    with CachedDetector() as shared:
        yield shared

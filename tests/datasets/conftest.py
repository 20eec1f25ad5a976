"""Curated shards to assemble: real records written by a real curation step (quarry.curation.steps),
with its ledger.json and rejects/ beside them, as an upstream stage leaves them."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from quarry.curation.filters.base import Filter
from quarry.ledger import merge_ledgers
from quarry.records import write_json, write_records
from quarry.curation.steps import run_step_on_shard

LANGUAGES = {"Python": ".py", "JavaScript": ".js", "Markdown": ".md"}
LICENSES = [("MIT", "permissive"), ("Apache-2.0", "permissive"), ("GPL-3.0-only", "copyleft"), (None, "unknown")]


def swhid(text: str) -> str:
    data = text.encode("utf-8")
    return "swh:1:cnt:" + hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def make_record(repo: int, index: int, language: str, text: str | None = None) -> dict:
    rng = random.Random(f"{repo}/{index}")
    words = ["alpha", "beta", "gamma", "delta", "é", "λ", "return", "value", "for", "in", "range"]
    text = text if text is not None else "\n".join(
        " ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) for _ in range(rng.randint(2, 30)))
    spdx, category = LICENSES[(repo + index) % len(LICENSES)]
    path = f"src/file_{index}{LANGUAGES[language]}"
    return {"text": text, "meta": {
        "id": swhid(text), "pile_set_name": f"github-{language.lower()}", "origin": f"https://example.org/r{repo}",
        "revision": "0" * 40, "path": path, "language": language,
        "license": {"spdx": spdx, "category": category, "evidence": "LICENSE"}, "pii": {}, "bytes": len(text)}}


def raw_records(n: int = 300) -> list[dict]:
    langs = list(LANGUAGES)
    # every 25th document is too short for the filter step, so its ledger and rejects are not empty
    return [make_record(i % 7, i, langs[i % 3], text=f"x = {i}" if i % 25 == 0 else None) for i in range(n)]


class DropShort(Filter):
    name = "filters"

    def filter(self, doc):
        return (len(doc["text"]) >= 40, "too short")


def curate(raw_dir: Path, out_dir: Path) -> Path:
    """Run a real filter step over every raw shard: shards, ledger.json and rejects/ in out_dir."""
    ledgers = []
    for shard in sorted(raw_dir.glob("*.jsonl.zst")):
        ledgers.append(run_step_on_shard(DropShort(), shard, out_dir / shard.name,
                                         rejects=out_dir / "rejects" / shard.name))
    write_json(out_dir / "ledger.json", merge_ledgers("filters", ledgers).to_dict())
    return out_dir


def write_raw(folder: Path, records: list[dict], shards: int = 3) -> Path:
    size = -(-len(records) // shards)
    for i in range(shards):
        write_records(folder / f"part-{i:05d}.jsonl.zst", records[i * size:(i + 1) * size])
    return folder


@pytest.fixture
def curated(tmp_path) -> Path:
    return curate(write_raw(tmp_path / "raw", raw_records()), tmp_path / "curated")


@pytest.fixture
def params() -> dict:
    return {"assemble": {"name": "test-code", "splits": {"train": 0.8, "validation": 0.1, "test": 0.1},
                         "shard_bytes": 16_384, "zstd_level": 3, "zstd_threads": 1}}


@pytest.fixture
def registry(tmp_path) -> Path:
    return tmp_path / "releases"


def changes_by_kind(rows) -> dict:
    """A changelog's change rows as lists by kind (ids in file order; removals by reason; changes as
    key, from, to), as tests compare them."""
    found = {"added": [], "removed": {}, "changed": [], "split_changed": []}
    for row in rows:
        if row["change"] == "removed":
            found["removed"].setdefault(row["reason"], []).append(row["id"])
        elif row["change"] == "changed":
            found["changed"].append({"key": row["key"], "from": row["from"], "to": row["to"]})
        else:
            found[row["change"]].append(row["id"])
    return found


def release_changes(release: Path) -> dict:
    from quarry.datasets.changelog import read_changes
    return changes_by_kind(read_changes(release / "changes.jsonl.zst"))

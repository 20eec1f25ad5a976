"""The snapshot manifest: counts by language, subset and refusal reason, the shards and their file
lists (every file's SWHID, path, size and labels, one list per shard beside the manifest) and the
origin lists (every origin's revision, directory SWHID, counts by language and refusal reason:
listing.snapshot_origins reads them); its id is its own hash, which covers both kinds of list
through their sha256."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from quarry.config.snapshot import SnapshotParams
from quarry.infra.hashing import value_hash
from quarry.ledger import Ledger
from quarry.records import JsonDict, read_json
from quarry.snapshot.plan import Refused
from quarry.snapshot.settings import processing_hash
from quarry.snapshot.spool import OriginHead

MANIFEST = "manifest.json"


def build(sources: list[dict], cfg: SnapshotParams, batches: list[JsonDict], shards: list[dict],
          file_lists: list[dict], origin_lists: list[dict], ledger: Ledger) -> JsonDict:
    """The manifest of the processed origins (``batches``: driver.process_batch's sums), written
    to ``origin_lists`` (``origin_entry`` each, in order)."""
    languages: Counter = Counter()
    subsets: Counter = Counter()
    for batch in batches:
        languages.update(batch["languages"])
        subsets.update(batch["subsets"])
    body = {
        "stage": "snapshot",
        "sources": sources,
        "params_hash": value_hash(cfg.model_dump(mode="json", exclude={"sources"})),
        "processing_hash": processing_hash(cfg),
        "counts": {"origins": sum(b["origins"] for b in batches), "files": ledger.kept,
                   "bytes": sum(b["bytes"] for b in batches),
                   "languages": dict(sorted(languages.items())), "subsets": dict(sorted(subsets.items())),
                   "refused": dict(sorted(ledger.dropped.items()))},
        "ledger": ledger.to_dict(),
        "shards": shards,
        # every kept file's origin, revision, SWHID, path, size and labels, in shard order: beside
        # the manifest, not in it (a list of every file does not fit one process at scale)
        "file_lists": file_lists,
        # every origin's entry, in origin order, beside the manifest too (listing.snapshot_origins)
        "origin_lists": origin_lists,
    }
    return {"snapshot_id": snapshot_id(body), **body}


def origin_entry(head: OriginHead, refused: list[Refused], result: dict, reasons: Counter) -> JsonDict:
    """What the manifest says about one origin: names, revision, directory SWHID, counts."""
    hostile = [{"member": r.path, "reason": r.reason, **r.detail} for r in refused if r.reason.startswith("archive_")]
    entry = {"source": head.source, "kind": head.kind, "origin": head.origin, "revision": head.revision,
             **{k: v for k, v in head.info.items() if v is not None and k != "directory"}}
    if hostile:
        entry["archive_refusals"] = hostile
    return {**entry, "directory": result["directory"], "file_count": result["records"], "bytes": result["bytes"],
            "languages": result["languages"], "refused": dict(sorted(reasons.items()))}


def snapshot_id(manifest: JsonDict) -> str:
    """sha256 of the manifest's canonical JSON without its own id."""
    return value_hash({k: v for k, v in manifest.items() if k != "snapshot_id"})


def load(path: str | Path) -> JsonDict:
    """A manifest from a snapshot folder or the manifest file itself."""
    path = Path(path)
    return read_json(path / MANIFEST if path.is_dir() else path)


def verify(manifest: JsonDict) -> bool:
    return manifest.get("snapshot_id") == snapshot_id(manifest)

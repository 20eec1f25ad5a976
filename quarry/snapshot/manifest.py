"""The snapshot manifest: every origin (revision, directory SWHID, counts by language and refusal
reason), counts by language, subset and refusal reason, the shards and their file lists (every
file's SWHID, path, size and labels, one list per shard beside the manifest); its id is its own
hash, which covers the file lists through their sha256."""

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


def build(sources: list[dict], cfg: SnapshotParams, origins: list[JsonDict], results: list[dict], shards: list[dict],
          file_lists: list[dict], ledger: Ledger) -> JsonDict:
    """The manifest of ``origins`` (``origin_entry``, in order) and their processed ``results``
    (``process.origin_totals``)."""
    languages: Counter = Counter()
    subsets: Counter = Counter()
    for result in results:
        languages.update(result["languages"])
        subsets.update(result["subsets"])
    body = {
        "stage": "snapshot",
        "sources": sources,
        "params_hash": value_hash(cfg.model_dump(mode="json", exclude={"sources"})),
        "processing_hash": processing_hash(cfg),
        "origins": origins,
        "counts": {"origins": len(origins), "files": ledger.kept, "bytes": sum(r["bytes"] for r in results),
                   "languages": dict(sorted(languages.items())), "subsets": dict(sorted(subsets.items())),
                   "refused": dict(sorted(ledger.dropped.items()))},
        "ledger": ledger.to_dict(),
        "shards": shards,
        # every kept file's origin, revision, SWHID, path, size and labels, in shard order: beside
        # the manifest, not in it (a list of every file does not fit one process at scale)
        "file_lists": file_lists,
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

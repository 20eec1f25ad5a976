"""The snapshot manifest: every origin (revision, directory SWHID, files with SWHIDs, sizes and
languages), counts by language, subset and refusal reason, the shards; its id is its own hash."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from quarry.config.snapshot import SnapshotParams
from quarry.infra.hashing import value_hash
from quarry.ledger import Ledger
from quarry.records import JsonDict, read_json
from quarry.snapshot.plan import OriginPlan
from quarry.snapshot.settings import processing_hash

MANIFEST = "manifest.json"


def build(sources: list[dict], cfg: SnapshotParams, plans, results: list[dict], shards: list[dict],
          ledger: Ledger) -> JsonDict:
    origins = []
    languages: Counter = Counter()
    subsets: Counter = Counter()
    total_bytes = 0
    for plan, result in zip(plans, results):
        refused = Counter(r.reason for r in plan.refused) + Counter(r["reason"] for r in result["refused"])
        size = sum(f["bytes"] for f in result["files"])
        total_bytes += size
        languages.update(f["language"] for f in result["files"])
        subsets.update(f["pile_set_name"] for f in result["files"])
        own_languages = Counter(f["language"] for f in result["files"])
        origins.append({**plan_summary(plan), "directory": result["directory"], "file_count": len(result["files"]),
                        "bytes": size, "languages": dict(sorted(own_languages.items())),
                        "refused": dict(sorted(refused.items())), "files": result["files"]})
    body = {
        "stage": "snapshot",
        "sources": sources,
        "params_hash": value_hash(cfg.model_dump(mode="json", exclude={"sources"})),
        "processing_hash": processing_hash(cfg),
        "origins": origins,
        "counts": {"origins": len(origins), "files": ledger.kept, "bytes": total_bytes,
                   "languages": dict(sorted(languages.items())), "subsets": dict(sorted(subsets.items())),
                   "refused": dict(sorted(ledger.dropped.items()))},
        "ledger": ledger.to_dict(),
        "shards": shards,
    }
    return {"snapshot_id": snapshot_id(body), **body}


def plan_summary(plan: OriginPlan) -> JsonDict:
    """What the manifest says about an origin besides its files (JSON-able)."""
    hostile = [{"member": r.path, "reason": r.reason, **r.detail} for r in plan.refused
               if r.reason.startswith("archive_")]
    summary = {"source": plan.source, "kind": plan.kind, "origin": plan.origin, "revision": plan.revision,
               **{k: v for k, v in plan.info.items() if v is not None and k != "directory"}}
    if hostile:
        summary["archive_refusals"] = hostile
    return summary


def snapshot_id(manifest: JsonDict) -> str:
    """sha256 of the manifest's canonical JSON without its own id."""
    return value_hash({k: v for k, v in manifest.items() if k != "snapshot_id"})


def load(path: str | Path) -> JsonDict:
    """A manifest from a snapshot folder or the manifest file itself."""
    path = Path(path)
    return read_json(path / MANIFEST if path.is_dir() else path)


def verify(manifest: JsonDict) -> bool:
    return manifest.get("snapshot_id") == snapshot_id(manifest)

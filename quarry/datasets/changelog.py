"""What changed between two dataset versions: documents added, removed (by reason) and changed.

A document is known by its source location (origin + path) when it has one, else by its id.
Ids are content hashes (SWHIDs), so the same location under a new id is a changed document.
A removed document's reason comes from the rejects written while the newer version was built
(opt-out, a filter, ...), matched by id or by location; one that no stage rejected has left the
source ("source change").
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from pathlib import Path

from quarry.datasets.reader import open_dataset
from quarry.datasets.versions import locate, read_dropped, read_index
from quarry.records import JsonDict, Record, read_records, shard_paths

SOURCE_CHANGE = "source change"


def document_key(meta: JsonDict) -> str:
    if meta.get("origin") and meta.get("path"):
        return f"{meta['origin']}::{meta['path']}"
    return str(meta.get("id"))


def index_origin(row: JsonDict) -> str:
    """The origin of an index row: its own field, else the origin part of its key (older indexes)."""
    key = str(row.get("key") or "")
    return row.get("origin") or (key.split("::", 1)[0] if "::" in key else "")


def index_row(meta: JsonDict, copies: int = 1) -> JsonDict:
    """A document's row of a version's index."""
    doc_id = str(meta.get("id"))
    return {"id": doc_id, "key": document_key(meta), "origin": meta.get("origin"), "split": meta.get("split"),
            "subset": meta.get("pile_set_name"), "copies": copies}


def index_of(records: Iterable[Record]) -> list[JsonDict]:
    """One row per distinct document (repeats counted), sorted by id. The origin is a field of its
    own: a document without a path (a corpus record) has none in its key."""
    rows: dict[str, JsonDict] = {}
    for record in records:
        meta = record.get("meta") or {}
        row = rows.get(str(meta.get("id")))
        if row is None:
            rows[str(meta.get("id"))] = index_row(meta)
        else:
            row["copies"] += 1
    return [rows[k] for k in sorted(rows)]


def merged_index(parts: Iterable[Iterable[JsonDict]]) -> list[JsonDict]:
    """The index of a version from the index rows of its parts, each sorted by id (as ``index_of``
    gives it from the version's records: one row per id, repeats counted)."""
    rows: list[JsonDict] = []
    for row in heapq.merge(*parts, key=lambda row: row["id"]):
        if rows and rows[-1]["id"] == row["id"]:
            rows[-1]["copies"] += row["copies"]
        else:
            rows.append(dict(row))
    return rows


def rejects_of(folders: Iterable[Path]) -> Iterator[Record]:
    """(id, reason) of every document written to a rejects/ folder below the given folders."""
    for folder in folders:
        rejects = folder / "rejects"
        if not rejects.is_dir():
            continue
        for path in shard_paths(rejects):
            for record in read_records(path, require_text=False):
                meta = record.get("meta") or {}
                if meta.get("id"):
                    reason = f"{meta.get('stage') or path.stem.split('.')[0]}: {meta.get('reason') or 'dropped'}"
                    yield {"id": meta["id"], "key": document_key(meta), "reason": reason}


def diff(old: Iterable[dict], new: Iterable[dict], new_dropped: Iterable[dict] = ()) -> JsonDict:
    """The changelog from the ``old`` index to the ``new`` one (rows as written by index_of)."""
    old_rows = {r["id"]: r for r in old}
    new_rows = {r["id"]: r for r in new}
    reasons: dict[str, str] = {}  # by id, and by key: a document may change and be dropped at once
    for row in new_dropped:
        reasons.setdefault(row["id"], row["reason"])
        if row.get("key"):
            reasons.setdefault(row["key"], row["reason"])
    new_by_key = {m["key"]: doc_id for doc_id, m in new_rows.items()}

    changed, removed = [], {}
    for doc_id in sorted(set(old_rows) - set(new_rows)):
        meta = old_rows[doc_id]
        if doc_id not in reasons and meta["key"] in new_by_key:
            changed.append({"key": meta["key"], "from": doc_id, "to": new_by_key[meta["key"]]})
            continue
        reason = reasons.get(doc_id) or reasons.get(meta["key"]) or SOURCE_CHANGE
        removed.setdefault(reason, []).append(doc_id)
    changed_to = {c["to"] for c in changed}
    added = sorted(d for d in set(new_rows) - set(old_rows) if d not in changed_to)
    moved = sorted(d for d in set(old_rows) & set(new_rows) if old_rows[d]["split"] != new_rows[d]["split"])
    # Where each added or removed document lives (origin::path), so a reader sees files, not hashes.
    locations = {doc_id: new_rows[doc_id]["key"] for doc_id in added}
    locations.update({doc_id: old_rows[doc_id]["key"] for ids in removed.values() for doc_id in ids})
    return {
        "locations": dict(sorted(locations.items())),
        "added": added,
        "removed": {reason: ids for reason, ids in sorted(removed.items())},
        "changed": changed,
        "split_changed": moved,
        "counts": {"added": len(added), "removed": sum(map(len, removed.values())), "changed": len(changed),
                   "unchanged": len(set(old_rows) & set(new_rows))},
    }


def origin_of(key: str) -> str:
    """The origin part of a document key (``origin::path``); a bare id has none."""
    return key.split("::", 1)[0] if "::" in key else "(no origin)"


def render(log: JsonDict, limit: int = 50) -> str:
    """The changelog as Markdown: counts by origin, then each section's documents by location
    (origin, path) and id; long lists are cut at ``limit`` with a count of the rest."""
    locations = log.get("locations", {})

    def docs(items: list[str]) -> list[str]:
        lines = []
        for doc_id in items[:limit]:
            key = locations.get(doc_id)
            lines.append(f"- {key.replace('::', ' ', 1)} (`{doc_id}`)" if key and "::" in key else f"- `{doc_id}`")
        if len(items) > limit:
            lines.append(f"- ... and {len(items) - limit} more")
        return lines

    c = log["counts"]
    out = [f"# Changes from {log.get('from_label', '')} `{log.get('from', '')[:12]}` "
           f"to {log.get('to_label', '')} `{log.get('to', '')[:12]}`", "",
           f"{c['added']} added, {c['removed']} removed, {c['changed']} changed, {c['unchanged']} unchanged.", ""]
    by_origin: dict[str, list[int]] = {}
    for column, ids in ((0, log["added"]), (1, [i for ids in log["removed"].values() for i in ids])):
        for doc_id in ids:
            by_origin.setdefault(origin_of(locations.get(doc_id, "")), [0, 0])[column] += 1
    if by_origin:
        out += ["## By origin", "", "| origin | added | removed |", "|---|---:|---:|",
                *(f"| {origin} | {a} | {r} |" for origin, (a, r) in sorted(by_origin.items())), ""]
    if log["added"]:
        out += ["## Added", "", *docs(log["added"]), ""]
    for reason, removed in log["removed"].items():
        out += [f"## Removed ({reason})", "", *docs(removed), ""]
    if log["changed"]:
        changed = [f"- {c['key'].replace('::', ' ', 1)}: `{c['from']}` -> `{c['to']}`" for c in log["changed"][:limit]]
        out += ["## Changed", "", *changed, ""]
    return "\n".join(out)


def compare(old_ref, new_ref, registry=None) -> JsonDict:
    """The changelog between any two versions (registered references or dataset folders)."""
    sides = []
    for ref in (old_ref, new_ref):
        manifest, data, release = locate(ref, registry)
        if release is not None:
            index, dropped = read_index(release), read_dropped(release)
        else:
            index, dropped = index_of(open_dataset(data)), list(rejects_of([data]))
        sides.append((manifest or {}, index, dropped))
    (old_m, old_index, _), (new_m, new_index, new_dropped) = sides
    return {"from": old_m.get("version", str(old_ref)), "from_label": old_m.get("label", ""),
            "to": new_m.get("version", str(new_ref)), "to_label": new_m.get("label", ""),
            **diff(old_index, new_index, new_dropped)}

"""What changed between two dataset versions: documents added, removed (by reason) and changed.

A document is known by its source location (origin + path) when it has one, else by its id.
Ids are content hashes (SWHIDs), so the same location under a new id is a changed document.
A removed document's reason comes from the rejects written while the newer version was built
(opt-out, a filter, ...), matched by id or by location; one that no stage rejected has left the
source ("source change").
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from quarry.datasets.disk_sort import DiskSorter, merged_files, sorted_rows
from quarry.datasets.reader import open_dataset
from quarry.datasets.versions import locate, read_dropped, read_index
from quarry.errors import QuarryError
from quarry.records import JsonDict, Record, read_records, shard_paths, write_records

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


def index_of(records: Iterable[Record]) -> Iterator[JsonDict]:
    """One row per distinct document (repeats counted), sorted by id, the first seen kept (sorted on
    disk: no list of every document is held). The origin is a field of its own: a document without
    a path (a corpus record) has none in its key."""
    return merged_rows(sorted_rows((index_row(record.get("meta") or {}) for record in records),
                                   key=lambda row: row["id"]))


def index_of_files(paths: Iterable[str | os.PathLike]) -> Iterator[JsonDict]:
    """The index of a version from its parts' index rows (files, each sorted by id, as ``index_of``
    gives them from the part's records), merged as they are read."""
    return merged_rows(merged_files(paths, key=lambda row: row["id"]))


def merged_rows(rows: Iterable[JsonDict]) -> Iterator[JsonDict]:
    """Index rows in id order, one per id: the first row of each id, its repeats' copies added."""
    row = None
    for found in rows:
        if row is not None and row["id"] == found["id"]:
            row["copies"] += found["copies"]
            continue
        if row is not None:
            yield row
        row = dict(found)
    if row is not None:
        yield row


def spooled(rows: Iterable[JsonDict]) -> Iterator[JsonDict]:
    """``rows`` written to a temporary file now, read back (and the file removed) when iterated: an
    index read before its folder is rebuilt, without holding it."""
    handle, path = tempfile.mkstemp(prefix="quarry-index-", suffix=".jsonl.zst")
    os.close(handle)
    write_records(path, rows, validate=False)

    def read() -> Iterator[JsonDict]:
        try:
            yield from read_records(path, require_text=False)
        finally:
            os.unlink(path)
    return read()


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
    """The changelog from the ``old`` index to the ``new`` one (rows as written by index_of, sorted
    by id: index files hold them so), each read once. What is held grows with the changes, not with
    the versions: the two indexes are joined by id as they are read, every new row's key is sorted
    on disk, and of the rejects only those naming a removed document are kept."""
    old_only: dict[str, dict] = {}   # id -> row: removed, or changed to a new id under the same key
    new_only: dict[str, str] = {}    # id -> key: added, unless a changed document's new id
    moved, unchanged = [], 0
    with DiskSorter(key=lambda pair: pair["key"]) as new_keys:
        for old_row, new_row in _joined_by_id(old, new):
            if new_row is not None:
                new_keys.add({"key": new_row["key"], "id": new_row["id"]})
            if new_row is None:
                old_only[old_row["id"]] = old_row
            elif old_row is None:
                new_only[new_row["id"]] = new_row["key"]
            else:
                unchanged += 1
                if old_row["split"] != new_row["split"]:
                    moved.append(old_row["id"])
        keys = {row["key"] for row in old_only.values()}
        new_by_key = {}   # of the removed documents' keys: the last new id under each (in id order)
        for pair in new_keys.sorted():
            if pair["key"] in keys:
                new_by_key[pair["key"]] = pair["id"]
    asked = set(old_only) | keys
    reasons: dict[str, str] = {}  # by id, and by key: a document may change and be dropped at once
    for row in new_dropped:
        if row["id"] in asked:
            reasons.setdefault(row["id"], row["reason"])
        if row.get("key") and row["key"] in asked:
            reasons.setdefault(row["key"], row["reason"])

    changed, removed = [], {}
    for doc_id, meta in old_only.items():   # in id order
        if doc_id not in reasons and meta["key"] in new_by_key:
            changed.append({"key": meta["key"], "from": doc_id, "to": new_by_key[meta["key"]]})
            continue
        reason = reasons.get(doc_id) or reasons.get(meta["key"]) or SOURCE_CHANGE
        removed.setdefault(reason, []).append(doc_id)
    changed_to = {c["to"] for c in changed}
    added = [doc_id for doc_id in new_only if doc_id not in changed_to]
    # Where each added or removed document lives (origin::path), so a reader sees files, not hashes.
    locations = {doc_id: new_only[doc_id] for doc_id in added}
    locations.update({doc_id: old_only[doc_id]["key"] for ids in removed.values() for doc_id in ids})
    return {
        "locations": dict(sorted(locations.items())),
        "added": added,
        "removed": {reason: ids for reason, ids in sorted(removed.items())},
        "changed": changed,
        "split_changed": moved,
        "counts": {"added": len(added), "removed": sum(map(len, removed.values())), "changed": len(changed),
                   "unchanged": unchanged},
    }


def _joined_by_id(old: Iterable[dict], new: Iterable[dict]) -> Iterator[tuple[dict | None, dict | None]]:
    """(old row, new row) by id, either None where one index lacks the id; both read in id order."""
    olds, news = _in_id_order(old, "old"), _in_id_order(new, "new")
    old_row, new_row = next(olds, None), next(news, None)
    while old_row is not None or new_row is not None:
        if new_row is None or (old_row is not None and old_row["id"] < new_row["id"]):
            yield old_row, None
            old_row = next(olds, None)
        elif old_row is None or new_row["id"] < old_row["id"]:
            yield None, new_row
            new_row = next(news, None)
        else:
            yield old_row, new_row
            old_row, new_row = next(olds, None), next(news, None)


def _in_id_order(rows: Iterable[dict], side: str) -> Iterator[dict]:
    last = None
    for row in rows:
        if last is not None and row["id"] <= last:
            raise QuarryError(f"the {side} index is not sorted by id: {row['id']} after {last}")
        last = row["id"]
        yield row


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
            index, dropped = index_of(open_dataset(data)), rejects_of([data])
        sides.append((manifest or {}, index, dropped))
    (old_m, old_index, _), (new_m, new_index, new_dropped) = sides
    return {"from": old_m.get("version", str(old_ref)), "from_label": old_m.get("label", ""),
            "to": new_m.get("version", str(new_ref)), "to_label": new_m.get("label", ""),
            **diff(old_index, new_index, new_dropped)}

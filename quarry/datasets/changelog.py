"""What changed between two dataset versions: documents added, removed (by reason) and changed.

A document is known by its source location (origin + path) when it has one, else by its id.
Ids are content hashes (SWHIDs), so the same location under a new id is a changed document.
A removed document's reason comes from the rejects written while the newer version was built
(opt-out, a filter, ...), matched by id or by location; one that no stage rejected has left the
source ("source change").
"""

from __future__ import annotations

import heapq
import itertools
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from quarry.datasets.disk_sort import DiskSorter, merged_files, sorted_rows
from quarry.datasets.reader import open_dataset
from quarry.datasets.versions import locate, read_dropped, read_index
from quarry.errors import QuarryError
from quarry.records import JsonDict, Record, RecordWriter, read_records, shard_paths, write_records

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


# The change rows' kinds, in the order the changes file holds them (each in id order; removals by
# reason, then id; changes by their old id).
ADDED, REMOVED, CHANGED, SPLIT_CHANGED = "added", "removed", "changed", "split_changed"


def diff(old: Iterable[dict], new: Iterable[dict], new_dropped: Iterable[dict] = (), *,
         changes: str | os.PathLike) -> JsonDict:
    """The changelog from the ``old`` index to the ``new`` one (rows as written by index_of, sorted
    by id: index files hold them so), each read once. Every change is written to ``changes`` as a
    row (``change``: added, removed with its reason, changed with the new id, split_changed); the
    summary returned holds only counts. Nothing held grows with the versions or their changes: the
    two indexes are joined by id as they are read, and the rest is joins of lists sorted on disk
    (the removed documents by id and by key, every new row's key, the rejects' names)."""
    with tempfile.TemporaryDirectory(prefix="quarry-changelog-") as scratch, \
            DiskSorter(key=lambda row: row["key"]) as new_keys, \
            DiskSorter(key=lambda row: (row["reason"], row["id"])) as removed, \
            DiskSorter(key=lambda row: row["from"]) as changed, \
            DiskSorter(key=lambda row: row["to"]) as changed_to:
        folder = Path(scratch)
        unchanged = _split_by_id(old, new, folder, new_keys)
        reasons = _first_per_name(sorted_rows(_names(new_dropped), key=lambda row: row["name"]))
        write_records(folder / "reasons.jsonl.zst", reasons, level=1, validate=False)
        old_only = read_records(folder / "old_only.jsonl.zst", require_text=False)
        removed_by_key = sorted_rows(({"id": row["id"], "key": row["key"], "id_reason": reason}
                                      for row, reason in _joined(old_only, "id", _reasons(folder))),
                                     key=lambda row: (row["key"], row["id"]))
        for row, new_id, key_reason in _by_key(removed_by_key, new_keys.sorted(), _reasons(folder)):
            if row["id_reason"] is None and new_id is not None:
                changed.add({"change": CHANGED, "key": row["key"], "from": row["id"], "to": new_id})
                changed_to.add({"to": new_id})
                continue
            reason = row["id_reason"] or key_reason or SOURCE_CHANGE
            removed.add({"change": REMOVED, "id": row["id"], "key": row["key"], "reason": reason})
        counts = _write_changes(changes, folder, removed.sorted(), changed.sorted(), changed_to.sorted())
    by_reason = counts.pop("by_reason")
    return {"counts": {**counts, "unchanged": unchanged}, "removed_by_reason": dict(sorted(by_reason.items()))}


def _split_by_id(old: Iterable[dict], new: Iterable[dict], folder: Path, new_keys: DiskSorter) -> int:
    """Join the indexes by id: the old-only and new-only rows and the split changes to files (each in
    id order), every new row's key and id to ``new_keys``; returns the count of ids in both."""
    unchanged = 0
    with RecordWriter(folder / "old_only.jsonl.zst", level=1, validate=False) as old_only, \
            RecordWriter(folder / "new_only.jsonl.zst", level=1, validate=False) as new_only, \
            RecordWriter(folder / "moved.jsonl.zst", level=1, validate=False) as moved:
        for old_row, new_row in _joined_by_id(old, new):
            if new_row is not None:
                new_keys.add({"key": new_row["key"], "id": new_row["id"]})
            if new_row is None:
                old_only.write({"id": old_row["id"], "key": old_row["key"]})
            elif old_row is None:
                new_only.write({"id": new_row["id"], "key": new_row["key"]})
            else:
                unchanged += 1
                if old_row["split"] != new_row["split"]:
                    moved.write({"change": SPLIT_CHANGED, "id": old_row["id"], "key": old_row["key"],
                                 "from": old_row["split"], "to": new_row["split"]})
    return unchanged


def _names(dropped: Iterable[dict]) -> Iterator[JsonDict]:
    """Each reject's names for its document, its id and its key (when it has one), with its reason."""
    for row in dropped:
        yield {"name": row["id"], "reason": row["reason"]}
        if row.get("key"):
            yield {"name": row["key"], "reason": row["reason"]}


def _first_per_name(rows: Iterable[JsonDict]) -> Iterator[JsonDict]:
    """The first reason given for each name (rows sorted stably by name: in the order written)."""
    last = None
    for row in rows:
        if row["name"] != last:
            last = row["name"]
            yield row


def _reasons(folder: Path) -> Iterator[JsonDict]:
    return read_records(folder / "reasons.jsonl.zst", require_text=False)


def _joined(rows: Iterable[JsonDict], field: str, reasons: Iterator[JsonDict]) -> Iterator[tuple[JsonDict, str | None]]:
    """Each row (in ``field`` order) with the reason given for its ``field``, if any (``reasons`` in
    name order)."""
    reason = next(reasons, None)
    for row in rows:
        while reason is not None and reason["name"] < row[field]:
            reason = next(reasons, None)
        yield row, reason["reason"] if reason is not None and reason["name"] == row[field] else None


def _by_key(removed: Iterable[JsonDict], new_keys: Iterator[JsonDict],
            reasons: Iterator[JsonDict]) -> Iterator[tuple[JsonDict, str | None, str | None]]:
    """Each removed row (in key order) with the new id under its key (the last in id order: the new
    rows were added in id order and the sort is stable) and the reason given for its key."""
    pair, key, new_id = next(new_keys, None), None, None
    for row, key_reason in _joined(removed, "key", reasons):
        if row["key"] != key:   # several removed documents may share a key
            key, new_id = row["key"], None
            while pair is not None and pair["key"] <= key:
                if pair["key"] == key:
                    new_id = pair["id"]
                pair = next(new_keys, None)
        yield row, new_id, key_reason


def _write_changes(path: str | os.PathLike, folder: Path, removed: Iterable[JsonDict], changed: Iterable[JsonDict],
                   changed_to: Iterator[JsonDict]) -> JsonDict:
    """Write the change rows in their order (the added: the new-only ids that no changed document
    took); returns their counts, the removals' by reason."""
    counts = {ADDED: 0, REMOVED: 0, CHANGED: 0, SPLIT_CHANGED: 0, "by_reason": {}}
    taken = next(changed_to, None)
    with RecordWriter(path, validate=False) as out:
        for row in read_records(folder / "new_only.jsonl.zst", require_text=False):
            while taken is not None and taken["to"] < row["id"]:
                taken = next(changed_to, None)
            if taken is None or taken["to"] != row["id"]:
                out.write({"change": ADDED, **row})
                counts[ADDED] += 1
        for rows in (removed, changed, read_records(folder / "moved.jsonl.zst", require_text=False)):
            for row in rows:
                out.write(row)
                counts[row["change"]] += 1
                if row["change"] == REMOVED:
                    counts["by_reason"][row["reason"]] = counts["by_reason"].get(row["reason"], 0) + 1
    return counts


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


def read_changes(path: str | os.PathLike) -> Iterator[JsonDict]:
    """The change rows of a changes file, in the order written."""
    return read_records(path, require_text=False)


def render(log: JsonDict, changes: str | os.PathLike, limit: int = 50) -> str:
    """The changelog as Markdown: counts, the origins with the most documents added or removed,
    then each section's first ``limit`` documents by location (origin, path) and id, with a count
    of the rest. Read from the summary and the changes file (twice), holding ``limit`` per list."""
    c = log["counts"]
    out = [f"# Changes from {log.get('from_label', '')} `{log.get('from', '')[:12]}` "
           f"to {log.get('to_label', '')} `{log.get('to', '')[:12]}`", "",
           f"{c['added']} added, {c['removed']} removed, {c['changed']} changed, {c['unchanged']} unchanged.", ""]
    origins, more = _busiest_origins(changes, limit)
    if origins:
        out += ["## By origin", "", "| origin | added | removed |", "|---|---:|---:|",
                *(f"| {origin} | {a} | {r} |" for origin, (a, r) in sorted(origins.items()))]
        out += [f"| ... and {more} more origins | | |"] if more else []
        out.append("")
    shown: dict[tuple[str, str], list[str]] = {}
    for row in read_changes(changes):
        section = (row["change"], row.get("reason", ""))
        if row["change"] != SPLIT_CHANGED and len(shown.setdefault(section, [])) < limit:
            shown[section].append(_line(row))
    totals = {(ADDED, ""): c[ADDED], (CHANGED, ""): c[CHANGED],
              **{(REMOVED, reason): n for reason, n in log["removed_by_reason"].items()}}
    for (change, reason), lines in shown.items():
        title = {ADDED: "Added", CHANGED: "Changed"}.get(change) or f"Removed ({reason})"
        rest = totals[(change, reason)] - len(lines)
        out += [f"## {title}", "", *lines, *([f"- ... and {rest} more"] if rest > 0 else []), ""]
    return "\n".join(out)


def _line(row: JsonDict) -> str:
    where = row["key"].replace("::", " ", 1) if "::" in row["key"] else ""
    if row["change"] == CHANGED:
        return f"- {where or row['key']}: `{row['from']}` -> `{row['to']}`"
    return f"- {where} (`{row['id']}`)" if where else f"- `{row['id']}`"


def _busiest_origins(changes: str | os.PathLike, limit: int) -> tuple[dict[str, tuple[int, int]], int]:
    """The ``limit`` origins with the most documents added or removed ({origin: (added, removed)}),
    and how many other origins had any: counted from the change rows sorted by origin on disk."""
    top: list[tuple[int, int, str, tuple[int, int]]] = []   # a heap: (total, -rank by name, origin, counts)
    seen = 0
    with DiskSorter(key=lambda row: row["origin"]) as by_origin:
        for row in read_changes(changes):
            if row["change"] in (ADDED, REMOVED):
                by_origin.add({"origin": origin_of(row["key"]), "added": row["change"] == ADDED})
        for rank, (origin, rows) in enumerate(itertools.groupby(by_origin.sorted(), key=lambda row: row["origin"])):
            added = removed = 0
            for row in rows:
                added, removed = added + row["added"], removed + (not row["added"])
            seen += 1
            entry = (added + removed, -rank, origin, (added, removed))
            if len(top) < limit:
                heapq.heappush(top, entry)
            elif entry[0] > top[0][0]:   # on a tie the origin first by name stays
                heapq.heapreplace(top, entry)
    return {origin: counts for _, _, origin, counts in top}, seen - len(top)


def compare(old_ref, new_ref, changes: str | os.PathLike, registry=None) -> JsonDict:
    """The changelog between any two versions (registered references or dataset folders): its
    change rows written to ``changes``, its summary returned."""
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
            **diff(old_index, new_index, new_dropped, changes=changes)}

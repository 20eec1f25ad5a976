"""The registry's index and changelog are built from streams: rows sorted on disk a chunk at a
time, the changelog from a join of two id-ordered indexes. Checked against the changelog's
definition (the dicts of whole indexes it was first written with) on random version pairs, with
chunks small enough that every sort spills to disk."""

from __future__ import annotations

import random

import pytest

from quarry.datasets import disk_sort
from conftest import changes_by_kind
from quarry.datasets.changelog import SOURCE_CHANGE, diff, index_of, read_changes
from quarry.datasets.disk_sort import DiskSorter, sorted_rows
from quarry.errors import QuarryError


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch):
    monkeypatch.setattr(disk_sort, "CHUNK_ROWS", 7)


def defined_diff(old, new, dropped):
    """The changelog as defined over whole indexes held in dicts."""
    old_rows, new_rows = {r["id"]: r for r in old}, {r["id"]: r for r in new}
    reasons = {}
    for row in dropped:
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
        removed.setdefault(reasons.get(doc_id) or reasons.get(meta["key"]) or SOURCE_CHANGE, []).append(doc_id)
    changed_to = {c["to"] for c in changed}
    added = sorted(d for d in set(new_rows) - set(old_rows) if d not in changed_to)
    locations = {d: new_rows[d]["key"] for d in added}
    locations.update({d: old_rows[d]["key"] for ids in removed.values() for d in ids})
    split_changed = sorted(d for d in set(old_rows) & set(new_rows) if old_rows[d]["split"] != new_rows[d]["split"])
    return {"locations": dict(sorted(locations.items())), "added": added,
            "removed": dict(sorted(removed.items())), "changed": changed, "split_changed": split_changed,
            "counts": {"added": len(added), "removed": sum(map(len, removed.values())), "changed": len(changed),
                       "split_changed": len(split_changed), "unchanged": len(set(old_rows) & set(new_rows))},
            "removed_by_reason": {reason: len(ids) for reason, ids in sorted(removed.items())}}


def streamed_diff(old, new, dropped, folder):
    """The streamed changelog in the defined one's shape: its summary and its change rows."""
    summary = diff(old, new, dropped, changes=folder / "changes.jsonl.zst")
    rows = list(read_changes(folder / "changes.jsonl.zst"))
    locations = {row["id"]: row["key"] for row in rows if row["change"] in ("added", "removed")}
    return {"locations": dict(sorted(locations.items())), **changes_by_kind(rows), **summary}


def random_versions(rng: random.Random):
    """Two indexes sharing documents, with edits, moves between splits, keys shared by several ids
    (a file changed twice), bare-id keys, and rejects naming ids and keys in any order."""
    keys = [f"https://example.org/r{rng.randrange(6)}::f{n}.py" for n in range(40)]
    rows = {}
    for n in range(rng.randrange(20, 80)):
        doc_id = f"swh:1:cnt:{rng.getrandbits(40):010x}"
        key = rng.choice(keys) if rng.random() < 0.9 else doc_id
        rows[doc_id] = {"id": doc_id, "key": key, "origin": key.split("::")[0], "split": rng.choice(["train", "test"]),
                        "subset": "code", "copies": 1}
    ids = sorted(rows)
    old = [rows[d] for d in ids if rng.random() < 0.7]
    new = [dict(rows[d], split=rng.choice(["train", "test"])) if rng.random() < 0.2 else rows[d]
           for d in ids if rng.random() < 0.7]
    dropped = [{"id": rng.choice(ids), "key": rng.choice([*keys, None]), "reason": f"stage{rng.randrange(4)}: x"}
               for _ in range(rng.randrange(0, 30))]
    return old, new, dropped


def test_the_streamed_changelog_is_the_defined_one(tmp_path):
    rng = random.Random(11)
    for _ in range(300):
        old, new, dropped = random_versions(rng)
        assert streamed_diff(iter(old), iter(new), iter(dropped), tmp_path) == defined_diff(old, new, dropped)


def test_an_index_out_of_id_order_is_refused(tmp_path):
    rows = [{"id": "b", "key": "b", "split": "train"}, {"id": "a", "key": "a", "split": "train"}]
    with pytest.raises(QuarryError, match="new index is not sorted by id: a after b"):
        diff([], rows, changes=tmp_path / "changes.jsonl.zst")
    assert not list(tmp_path.iterdir())   # no changes file half-written


def test_rows_sorted_on_disk_are_sorted_stably_and_their_chunks_removed(tmp_path, monkeypatch):
    rng = random.Random(3)
    rows = [{"k": rng.randrange(10), "n": n} for n in range(500)]
    assert list(sorted_rows(iter(rows), key=lambda r: r["k"])) == sorted(rows, key=lambda r: r["k"])
    monkeypatch.setattr(disk_sort, "FAN_IN", 3)   # 71 chunks of 7 rows: merged by threes, level on level
    with DiskSorter(lambda r: r["k"], folder=str(tmp_path)) as sorter:
        for row in rows:
            sorter.add(row)
        [folder] = tmp_path.iterdir()
        assert 0 < len(list(folder.iterdir())) <= 2 * 4   # at most FAN_IN - 1 files per level of 3**level chunks
        assert list(sorter.sorted()) == sorted(rows, key=lambda r: r["k"])
    assert not list(tmp_path.iterdir())


def test_the_index_of_records_counts_repeats_and_keeps_the_first_seen():
    records = [{"meta": {"id": f"id{n % 13:02d}", "origin": f"o{n}", "path": "p.py", "split": "train"}}
               for n in range(60)]
    rows = list(index_of(iter(records)))
    assert [r["id"] for r in rows] == [f"id{n:02d}" for n in range(13)]
    assert [r["copies"] for r in rows] == [len(range(n, 60, 13)) for n in range(13)]
    assert [r["origin"] for r in rows] == [f"o{n}" for n in range(13)]   # the first record of each id


def test_sorted_files_are_merged_a_few_at_a_time(tmp_path, monkeypatch):
    """More sorted files than may be open at once (FAN_IN) are merged in rounds: the same rows in
    the same order as one merge, ties in file order."""
    from quarry.datasets.changelog import index_of_files
    from quarry.datasets.disk_sort import merged_files
    from quarry.records import write_records

    monkeypatch.setattr(disk_sort, "FAN_IN", 3)
    rng = random.Random(8)
    paths, every = [], []
    for n in range(11):
        rows = sorted(({"id": f"d{rng.randrange(40):02d}", "file": n, "copies": 1} for _ in range(rng.randrange(0, 9))),
                      key=lambda r: r["id"])
        paths.append(tmp_path / f"{n:02d}.jsonl.zst")
        write_records(paths[-1], rows, validate=False)
        every += rows
    assert list(merged_files(paths, key=lambda r: r["id"])) == sorted(every, key=lambda r: r["id"])
    index = list(index_of_files(paths))
    assert [r["id"] for r in index] == sorted({r["id"] for r in every})
    assert sum(r["copies"] for r in index) == len(every)
    assert sorted(p.name for p in tmp_path.iterdir()) == [p.name for p in paths]   # its rounds' files are gone


def test_the_markdown_shows_the_first_of_each_list_and_the_busiest_origins(tmp_path):
    """CHANGELOG.md holds ``limit`` entries per list, whatever the changes: the first of each section
    with a count of the rest, and the origins with the most documents added or removed."""
    from quarry.datasets.changelog import render

    def row(n, origin):
        return {"id": f"swh:1:cnt:{n:04d}", "key": f"https://example.org/{origin}::f{n}.py", "split": "train"}

    old = [row(n, f"r{n % 5}") for n in range(0, 60)]          # r0..r4 hold 12 each
    new = old[30:] + [row(n, "r9") for n in range(100, 103)]   # 30 removed (6 per origin), 3 added to r9
    dropped = [{"id": r["id"], "key": r["key"], "reason": "derive: opt-out"} for r in old[:10]]
    summary = diff(iter(old), iter(new), iter(dropped), changes=tmp_path / "changes.jsonl.zst")
    assert summary["removed_by_reason"] == {"derive: opt-out": 10, "source change": 20}
    markdown = render(summary, tmp_path / "changes.jsonl.zst", limit=2)
    sections = markdown.split("## ")[1:]
    assert [s.split("\n", 1)[0] for s in sections] == ["By origin", "Added", "Removed (derive: opt-out)",
                                                      "Removed (source change)"]
    assert sections[1].count("\n- https://") == 2 and "- ... and 1 more" in sections[1]
    assert "- ... and 8 more" in sections[2] and "- ... and 18 more" in sections[3]
    # six origins changed, the two with the most shown (a tie kept by name), the rest counted
    assert "| https://example.org/r0 | 0 | 6 |\n| https://example.org/r1 | 0 | 6 |" in sections[0]
    assert "... and 4 more origins" in sections[0] and "r9" not in sections[0]

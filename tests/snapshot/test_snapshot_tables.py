"""Table sources: Parquet shards in The Stack v2's layouts (file-level with and without ``content``,
the latter read from a blob store by content id; repository-grouped, a row per repository), a
generic Parquet of documents, and a Hugging Face DatasetDict saved with save_to_disk; real
standard-library files and installed packages as the contents."""

from __future__ import annotations

import gzip
import sysconfig
from pathlib import Path

import datasets
import pytest
import zstandard
from snapshot_stack import file_rows, repository_rows, write_parquet

from quarry.errors import ConfigError
from quarry.records import read_json, read_records
from quarry.snapshot.listing import snapshot_files, snapshot_origins
from quarry.snapshot.swhid import sha1_git
from quarry.stages.snapshot import run_snapshot

STDLIB = Path(sysconfig.get_paths()["stdlib"])
MODULES = ["textwrap.py", "shlex.py", "fnmatch.py", "bisect.py", "colorsys.py", "sched.py", "graphlib.py",
           "numbers.py"]


def stack_rows() -> list[dict]:
    """Rows of two repositories as The Stack v2 lists them (a subset of its columns)."""
    rows = []
    for i, name in enumerate(MODULES):
        text = (STDLIB / name).read_text(encoding="utf-8")
        repo = "octo/tools" if i % 2 else "acme/lib"
        rows.append({"blob_id": sha1_git(text.encode()).hex(), "repo_name": repo, "path": f"/src/{name}",
                     "revision_id": ("ab" if i % 2 else "cd") * 20, "language": "Python", "extension": "py",
                     "detected_licenses": ["MIT"] if i % 2 else [], "license_type": "permissive" if i % 2
                     else "no_license", "gha_license_id": "MIT" if i % 2 else None, "is_vendor": False,
                     "is_generated": False, "length_bytes": len(text.encode()), "star_events_count": 3 + i,
                     "content": text})
    return rows


def records(snapshot: Path) -> list[dict]:
    return [r for shard in sorted((snapshot / "shards").glob("*.jsonl.zst")) for r in read_records(shard)]


def test_stack_v2_rows_become_files_of_their_repositories_with_upstream_swhids(tmp_path):
    rows = stack_rows()
    write_parquet(tmp_path / "stack" / "train-00000.parquet", rows[:5])
    write_parquet(tmp_path / "stack" / "train-00001.parquet", rows[5:])
    source = {"name": "stack", "kind": "parquet", "path": str(tmp_path / "stack"), "preset": "stack-v2"}
    manifest = run_snapshot([source], tmp_path / "snap")
    origins = {o["origin"]: o for o in snapshot_origins(tmp_path / "snap")}
    assert set(origins) == {"https://github.com/acme/lib", "https://github.com/octo/tools"}
    assert origins["https://github.com/octo/tools"]["revision"] == "ab" * 20
    found = {r["meta"]["path"]: r for r in records(tmp_path / "snap")}
    assert set(found) == {f"src/{name}" for name in MODULES}
    for row in rows:
        meta = found[row["path"].strip("/")]["meta"]
        assert meta["id"] == f"swh:1:cnt:{row['blob_id']}" and meta["origin"] == f"https://github.com/{row['repo_name']}"
        assert meta["upstream"]["blob_id"] == row["blob_id"] and meta["upstream"]["star_events_count"] == row[
            "star_events_count"] and "content" not in meta["upstream"]
        assert meta["upstream_license"] == {"detected_licenses": row["detected_licenses"],
                                            "license_type": row["license_type"], "gha_license_id": row["gha_license_id"]}
        assert meta["language"] == "Python" and "standalone" not in meta
    again = run_snapshot([source], tmp_path / "snap2", workers=2)
    assert again["snapshot_id"] == manifest["snapshot_id"]


def test_rows_without_content_come_from_the_blob_store_and_a_wrong_id_is_refused(tmp_path):
    rows = stack_rows()
    store = tmp_path / "blobs"
    (store / rows[1]["blob_id"][:2]).mkdir(parents=True)
    for i, row in enumerate(rows):
        data = row["content"].encode()
        if i == 1:
            (store / row["blob_id"][:2] / f"{row['blob_id']}.zst").write_bytes(zstandard.ZstdCompressor().compress(data))
        elif i == 2:
            continue                                  # missing from the store
        else:
            (store / f"{row['blob_id']}.gz").write_bytes(gzip.compress(data))
    bad = dict(rows[3], blob_id="0" * 40)
    (store / f"{bad['blob_id']}.gz").write_bytes(gzip.compress(rows[3]["content"].encode() + b"# edited\n"))
    without = [{k: v for k, v in row.items() if k != "content"} for row in [*rows[:3], bad, *rows[4:]]]
    write_parquet(tmp_path / "ids" / "part.parquet", without)
    source = {"name": "ids", "kind": "parquet", "path": str(tmp_path / "ids"), "preset": "stack-v2",
              "blobs": str(store)}
    run_snapshot([source], tmp_path / "snap")
    kept = {r["meta"]["id"] for r in records(tmp_path / "snap")}
    assert kept == {f"swh:1:cnt:{row['blob_id']}" for i, row in enumerate(rows) if i not in (2, 3)}
    refused = {r["meta"]["path"]: r["meta"] for r in read_records(tmp_path / "snap" / "rejects" / "rejects.jsonl.zst")}
    assert refused[rows[2]["path"].strip("/")]["reason"] == "blob_missing"
    mismatch = refused[rows[3]["path"].strip("/")]
    assert mismatch["reason"] == "swhid_mismatch" and mismatch["upstream"] == "swh:1:cnt:" + "0" * 40
    assert read_json(tmp_path / "snap" / "ledger.json")["dropped"] == {"blob_missing": 1, "swhid_mismatch": 1}


def test_a_saved_dataset_dict_and_a_plain_parquet_are_read_with_a_column_map(tmp_path):
    docs = [{"doc": (STDLIB / name).read_text(encoding="utf-8"), "key": f"k{i}", "set": "code" if i < 5 else "more"}
            for i, name in enumerate(MODULES)]
    saved = datasets.DatasetDict({"train": datasets.Dataset.from_list(docs[:6]),
                                  "test": datasets.Dataset.from_list(docs[6:])})
    saved.save_to_disk(str(tmp_path / "saved"))
    columns = {"text": "doc", "id": "key", "subset": "set"}
    manifest = run_snapshot([{"name": "hf", "kind": "hfdisk", "path": str(tmp_path / "saved"), "columns": columns}],
                            tmp_path / "snap")
    found = records(tmp_path / "snap")
    assert len(found) == len(docs) and manifest["counts"]["files"] == len(docs)
    assert {r["meta"]["upstream"]["key"] for r in found} == {d["key"] for d in docs}
    assert {r["meta"]["pile_set_name"] for r in found} == {"code", "more"}
    assert all(r["meta"]["standalone"] and r["meta"]["language"] == "Python" for r in found)
    write_parquet(tmp_path / "plain" / "docs.parquet", docs)
    with pytest.raises(ConfigError, match=r"docs.parquet: no layout fits its columns \(doc, key, set\); presets .*"
                                          r"stack-v2-repos \(files, files.blob_id.*text \(text\); name one"):
        run_snapshot([{"name": "plain", "kind": "parquet", "path": str(tmp_path / "plain")}], tmp_path / "bad")
    assert not (tmp_path / "bad" / "manifest.json").exists()


PACKAGES = Path(sysconfig.get_paths()["purelib"])
REPOSITORIES = ["idna", "certifi", "markupsafe", "attrs", "attr"]  # installed packages as repositories


@pytest.fixture
def grouped(tmp_path):
    folders = {f"pypi/{name}": PACKAGES / name for name in REPOSITORIES}
    assert all(folder.is_dir() for folder in folders.values())
    rows, contents = repository_rows(folders, tmp_path / "blobs")
    write_parquet(tmp_path / "ids" / "train-00000.parquet", rows[:3], row_group_size=2)
    write_parquet(tmp_path / "ids" / "train-00001.parquet", rows[3:], row_group_size=2)
    return folders, rows, contents


def test_repository_grouped_rows_are_repositories_and_every_file_is_read_from_the_blob_store(tmp_path, grouped):
    folders, rows, contents = grouped
    source = {"name": "ids", "kind": "parquet", "path": str(tmp_path / "ids"), "blobs": str(tmp_path / "blobs")}
    manifest = run_snapshot([source], tmp_path / "snap", cache_dir=tmp_path / "cache")  # the layout recognised
    total = sum(len(row["files"]) for row in rows)
    assert total > 50 and manifest["counts"]["files"] + sum(manifest["counts"]["refused"].values()) == total
    assert set(manifest["counts"]["refused"]) <= {"empty"}       # no blob missing, none mismatched, none too large
    assert {o["layout"] for o in snapshot_origins(tmp_path / "snap")} == {"stack-v2-repos"}
    assert {o["origin"]: o["revision"] for o in snapshot_origins(tmp_path / "snap")} == {
        f"https://github.com/{row['repo_name']}": row["revision_id"] for row in rows}
    found = {(r["meta"]["origin"], r["meta"]["path"]): r for r in records(tmp_path / "snap")}
    for row in rows:
        for file in row["files"]:
            record = found.get((f"https://github.com/{row['repo_name']}", file["path"].strip("/")))
            if record is None:
                continue
            meta = record["meta"]
            assert meta["id"] == f"swh:1:cnt:{file['blob_id']}" and record["text"].encode() == contents[file["blob_id"]]
            assert meta["upstream"]["star_events_count"] == row["star_events_count"]       # the repository's
            assert meta["upstream"]["content_id"] == file["content_id"] and "files" not in meta["upstream"]
            assert meta["upstream_license"] == {"detected_licenses": file["detected_licenses"],
                                                "license_type": file["license_type"],
                                                "gha_license_id": row["gha_license_id"]}
    # The same files in the file-level layout give the same records, byte for byte.
    write_parquet(tmp_path / "flat" / "part.parquet", file_rows(rows), row_group_size=50)
    flat = {**source, "path": str(tmp_path / "flat"), "preset": "stack-v2"}
    run_snapshot([flat], tmp_path / "flat-snap", cache_dir=tmp_path / "cache")
    assert records(tmp_path / "flat-snap") == records(tmp_path / "snap")

    # The same folders read as folders keep the same texts, with the same ids, languages and subsets.
    dirs = [{"name": repo, "kind": "dir", "path": str(folder), "origin": f"https://github.com/{repo}"}
            for repo, folder in folders.items()]
    run_snapshot(dirs, tmp_path / "dirs", cache_dir=tmp_path / "cache")

    def key(r):
        return r["meta"]["origin"], r["meta"]["path"], r["meta"]["id"], r["meta"]["language"], r["meta"]["pile_set_name"]
    listed = {(f"https://github.com/{row['repo_name']}", f["path"].strip("/")) for row in rows for f in row["files"]}
    assert {key(r) for r in records(tmp_path / "dirs") if key(r)[:2] in listed} == {key(r) for r in found.values()}
    again = run_snapshot([source], tmp_path / "snap2", workers=2, cache_dir=tmp_path / "cache2")
    assert again["snapshot_id"] == manifest["snapshot_id"]


def test_a_missing_or_wrong_blob_of_a_repository_is_refused_with_its_row(tmp_path, grouped):
    _folders, rows, _contents = grouped
    first, second = rows[0]["files"][0], rows[0]["files"][1]
    for blob in (tmp_path / "blobs").rglob(f"{first['blob_id']}*"):
        blob.unlink()
    (wrong,) = (tmp_path / "blobs").rglob(f"{second['blob_id']}*")
    wrong.rename(wrong.with_name(second["blob_id"]))  # plain now, and another file's bytes
    wrong.with_name(second["blob_id"]).write_bytes(b"print('not this file')\n")
    source = {"name": "ids", "kind": "parquet", "path": str(tmp_path / "ids"), "preset": "stack-v2-repos",
              "blobs": str(tmp_path / "blobs")}
    run_snapshot([source], tmp_path / "snap", cache_dir=tmp_path / "cache")
    refused = {r["meta"]["path"]: r["meta"] for r in read_records(tmp_path / "snap" / "rejects" / "rejects.jsonl.zst")}
    missing, mismatch = refused[first["path"].strip("/")], refused[second["path"].strip("/")]
    assert (missing["reason"], missing["content_id"], missing["row"]) == ("blob_missing", first["blob_id"],
                                                                          "train-00000.parquet:1.1")
    assert mismatch["reason"] == "swhid_mismatch" and mismatch["upstream"] == f"swh:1:cnt:{second['blob_id']}"
    assert mismatch["row"] == "train-00000.parquet:1.2" and mismatch["kind"] == "code"
    (origin,) = [o for o in snapshot_origins(tmp_path / "snap")
                 if o["origin"] == f"https://github.com/{rows[0]['repo_name']}"]
    kept = {f["path"] for f in snapshot_files(tmp_path / "snap") if f["origin"] == origin["origin"]}
    assert len(kept) == origin["file_count"] and not kept & {first["path"].strip("/"), second["path"].strip("/")}
    assert origin["file_count"] == len(rows[0]["files"]) - 2 - origin["refused"].get("empty", 0)


def test_a_stack_v2_shard_is_read_with_no_other_input_through_the_cli(tmp_path, grouped, capsys):
    from quarry.cli import main

    _folders, rows, _contents = grouped
    without = [{k: v for k, v in row.items() if k != "content"} for row in stack_rows()]
    write_parquet(tmp_path / "files" / "part.parquet", without)
    assert main(["snapshot", str(tmp_path / "snap"), "-s", f"parquet:{tmp_path / 'files'}"]) == 1
    assert "columns.text" in capsys.readouterr().err                       # -ids: no content, no store
    write_parquet(tmp_path / "with" / "part.parquet", stack_rows())
    assert main(["snapshot", str(tmp_path / "snap"), "-s", f"parquet:{tmp_path / 'with'}"]) == 0
    assert read_json(tmp_path / "snap" / "manifest.json")["counts"]["files"] == len(MODULES)
    assert main(["snapshot", str(tmp_path / "ids"), "-s", f"parquet:{tmp_path / 'ids'}",
                 "--blobs", str(tmp_path / "blobs")]) == 0
    assert next(snapshot_origins(tmp_path / "ids"))["layout"] == "stack-v2-repos"
    assert main(["snapshot", str(tmp_path / "x"), "-s", f"parquet:{tmp_path / 'ids'}", "--preset", "stack-v3"]) == 1
    assert "--preset 'stack-v3': one of stack-v2" in capsys.readouterr().err


def test_a_tables_text_stays_in_the_table_until_a_map_reads_it_and_its_id_is_checked_there(tmp_path):
    """The plan holds each row's place and length, not its text (a shard's contents never pass
    through one process); the map reads a row group back and verifies the row's SWHID."""
    from quarry.config.snapshot import SnapshotParams
    from quarry.snapshot.driver import plan_all

    rows = stack_rows()
    rows[2] = dict(rows[2], blob_id="0" * 40)
    write_parquet(tmp_path / "stack" / "part.parquet", rows, row_group_size=3)
    source = {"name": "stack", "kind": "parquet", "path": str(tmp_path / "stack"), "preset": "stack-v2"}
    plans = plan_all([source], SnapshotParams(), tmp_path / "work")
    locators = [c.locator for plan in plans for c in plan.candidates]
    assert len(locators) == len(rows) and {loc[0] for loc in locators} == {"row"}
    assert {loc[3] for loc in locators} == {0, 1, 2}                 # row groups of 3, 3 and 2 rows
    assert not any(row["content"] in map(str, loc) for row in rows for loc in locators)
    assert {c.size for plan in plans for c in plan.candidates} == {len(row["content"].encode()) for row in rows}
    run_snapshot([source], tmp_path / "snap", cache_dir=tmp_path / "cache")
    (refused,) = read_records(tmp_path / "snap" / "rejects" / "rejects.jsonl.zst")
    assert (refused["meta"]["reason"], refused["meta"]["row"]) == ("swhid_mismatch", "part.parquet:3")
    assert refused["meta"]["content"] == f"swh:1:cnt:{sha1_git(rows[2]['content'].encode()).hex()}"
    assert {r["meta"]["path"] for r in records(tmp_path / "snap")} == {f"src/{n}" for i, n in enumerate(MODULES) if i != 2}


def test_layouts_are_recognised_from_their_columns(tmp_path):
    """The Stack v1 (hexsha: the git blob id) saved with save_to_disk, a plain `text` Parquet, and
    a repository-grouped shard whose files carry their contents: each read with no preset."""
    v1 = [{"hexsha": row["blob_id"], "size": row["length_bytes"], "ext": "py", "lang": "Python",
           "max_stars_repo_path": row["path"].strip("/"), "max_stars_repo_name": row["repo_name"],
           "max_stars_repo_head_hexsha": row["revision_id"], "max_stars_repo_licenses": ["MIT"],
           "max_stars_count": 3, "content": row["content"]} for row in stack_rows()]
    datasets.Dataset.from_list(v1).save_to_disk(str(tmp_path / "v1"))
    manifest = run_snapshot([{"name": "v1", "kind": "hfdisk", "path": str(tmp_path / "v1")}], tmp_path / "s1",
                            cache_dir=tmp_path / "cache")
    assert {o["layout"] for o in snapshot_origins(tmp_path / "s1")} == {"stack-v1"} and manifest["counts"]["files"] == len(v1)
    found = records(tmp_path / "s1")
    assert {r["meta"]["id"] for r in found} == {f"swh:1:cnt:{row['hexsha']}" for row in v1}
    assert {r["meta"]["origin"] for r in found} == {f"https://github.com/{row['max_stars_repo_name']}" for row in v1}
    assert all(r["meta"]["upstream_license"] == {"max_stars_repo_licenses": ["MIT"]} for r in found)

    write_parquet(tmp_path / "plain" / "docs.parquet", [{"text": row["content"]} for row in stack_rows()])
    plain = run_snapshot([{"name": "plain", "kind": "parquet", "path": str(tmp_path / "plain")}], tmp_path / "s2",
                         cache_dir=tmp_path / "cache")
    assert next(snapshot_origins(tmp_path / "s2"))["layout"] == "text" and plain["counts"]["files"] == len(MODULES)

    rows = stack_rows()
    grouped = [{"repo_name": repo, "revision_id": "ab" * 20,
                "files": [{k: row[k] for k in ("blob_id", "path", "language", "length_bytes", "content")}
                          for row in rows if row["repo_name"] == repo]} for repo in ("acme/lib", "octo/tools")]
    write_parquet(tmp_path / "repos" / "part.parquet", grouped)
    by_repo = run_snapshot([{"name": "repos", "kind": "parquet", "path": str(tmp_path / "repos")}], tmp_path / "s3",
                           cache_dir=tmp_path / "cache")
    assert {o["layout"] for o in snapshot_origins(tmp_path / "s3")} == {"stack-v2-repos"}
    assert by_repo["counts"]["files"] == len(rows) and by_repo["counts"]["origins"] == 2
    assert {r["meta"]["id"]: r["text"] for r in records(tmp_path / "s3")} == {
        f"swh:1:cnt:{row['blob_id']}": row["content"] for row in rows}
    # the files' contents stay in the table until the map reads their row back
    from quarry.config.snapshot import SnapshotParams
    from quarry.snapshot.driver import plan_all

    plans = plan_all([{"name": "repos", "kind": "parquet", "path": str(tmp_path / "repos")}], SnapshotParams(),
                     tmp_path / "work")
    locators = [c.locator for plan in plans for c in plan.candidates]
    assert {(loc[0], loc[5][1], loc[6]) for loc in locators} == {("row", "content", "files")}
    assert not any(row["content"] in map(str, loc) for row in rows for loc in locators)


def test_a_repository_whose_rows_lie_in_several_files_is_one_origin(tmp_path, grouped):
    """Each file of a table is planned apart; a repository's rows from every file make one origin,
    its files in path order, as from a single file: the same shards, byte for byte."""
    _, rows, _ = grouped
    flat = file_rows(rows)
    write_parquet(tmp_path / "one" / "part.parquet", flat, row_group_size=50)
    for number in range(3):   # every third row in each file: every repository in all three
        write_parquet(tmp_path / "three" / f"part-{number}.parquet", flat[number::3], row_group_size=7)
    source = {"name": "stack", "kind": "parquet", "preset": "stack-v2", "blobs": str(tmp_path / "blobs")}
    run_snapshot([{**source, "path": str(tmp_path / "one")}], tmp_path / "s1", cache_dir=tmp_path / "c1")
    three = run_snapshot([{**source, "path": str(tmp_path / "three")}], tmp_path / "s3", {"snapshot": {"shard_bytes": 20_000}},
                         workers=2, cache_dir=tmp_path / "c3")
    one_origins, three_origins = list(snapshot_origins(tmp_path / "s1")), list(snapshot_origins(tmp_path / "s3"))
    assert [o["origin"] for o in three_origins] == [o["origin"] for o in one_origins]
    assert len(three_origins) == len(rows) == three["counts"]["origins"]
    assert [(o["directory"], o["file_count"]) for o in three_origins] == \
        [(o["directory"], o["file_count"]) for o in one_origins]
    assert records(tmp_path / "s3") == records(tmp_path / "s1")
    assert [f["path"] for f in snapshot_files(tmp_path / "s3")] == [f["path"] for f in snapshot_files(tmp_path / "s1")]


def test_origins_stream_from_disk_through_merges_batches_and_origin_lists(tmp_path, grouped, monkeypatch):
    """The caps read every file's heads as one merged stream, through intermediate merges when the
    files are many; origins are processed in batches; the origin lists roll over at their size: the
    same snapshot, byte for byte, as the widest merge, the largest batches and one list give."""
    from quarry.snapshot import driver, spool
    from quarry.snapshot.manifest import load

    _, rows, _ = grouped
    flat = file_rows(rows)
    for number in range(7):   # a repository's rows spread over the files: origins joined across them
        write_parquet(tmp_path / "seven" / f"part-{number}.parquet", flat[number::7], row_group_size=5)
    source = {"name": "stack", "kind": "parquet", "preset": "stack-v2", "blobs": str(tmp_path / "blobs"),
              "path": str(tmp_path / "seven")}
    params = {"snapshot": {"shard_bytes": 20_000, "max_total_bytes": sum(r["length_bytes"] for r in flat) * 2 // 3}}
    wide = run_snapshot([source], tmp_path / "wide", params, cache_dir=tmp_path / "cache")
    monkeypatch.setattr(spool, "MERGE_FAN_IN", 2)
    monkeypatch.setattr(driver, "BATCH_ORIGINS", 2)
    monkeypatch.setattr(driver, "ORIGINS_PER_LIST", 3)
    narrow = run_snapshot([source], tmp_path / "narrow", params, workers=2, cache_dir=tmp_path / "cache")
    assert len(narrow["origin_lists"]) == -(-len(rows) // 3) > len(wide["origin_lists"]) == 1
    assert list(snapshot_origins(tmp_path / "narrow")) == list(snapshot_origins(tmp_path / "wide"))
    assert [o["origin"] for o in snapshot_origins(tmp_path / "narrow")] == \
        sorted(f"https://github.com/{r['repo_name']}" for r in rows)
    assert narrow["counts"] == wide["counts"] and narrow["counts"]["refused"].get("cap_total")
    assert narrow["shards"] == wide["shards"] and narrow["file_lists"] == wide["file_lists"]
    assert records(tmp_path / "narrow") == records(tmp_path / "wide")
    assert (tmp_path / "narrow" / "ledger.json").read_bytes() == (tmp_path / "wide" / "ledger.json").read_bytes()
    assert load(tmp_path / "narrow")["snapshot_id"] == narrow["snapshot_id"] != wide["snapshot_id"]  # lists differ

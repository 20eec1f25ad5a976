"""Table sources: Parquet shards in The Stack v2's layout (with and without ``content``, the latter
read from a blob store by content id), a generic Parquet of documents, and a Hugging Face
DatasetDict saved with save_to_disk; real standard-library files as the contents."""

from __future__ import annotations

import gzip
import sysconfig
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from quarry.errors import ConfigError
from quarry.records import read_json, read_records
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


def write_parquet(path: Path, rows: list[dict], row_group_size: int = 3) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=row_group_size)


def records(snapshot: Path) -> list[dict]:
    return [r for shard in sorted((snapshot / "shards").glob("*.jsonl.zst")) for r in read_records(shard)]


def test_stack_v2_rows_become_files_of_their_repositories_with_upstream_swhids(tmp_path):
    rows = stack_rows()
    write_parquet(tmp_path / "stack" / "train-00000.parquet", rows[:5])
    write_parquet(tmp_path / "stack" / "train-00001.parquet", rows[5:])
    source = {"name": "stack", "kind": "parquet", "path": str(tmp_path / "stack"), "preset": "stack-v2"}
    manifest = run_snapshot([source], tmp_path / "snap")
    origins = {o["origin"]: o for o in manifest["origins"]}
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

"""Content rules by kind on real text from this machine: one-line paragraph documents and a 2.5 MB
book are kept (code rules never cut prose), minified scripts are still refused, the document cap
is apart from the source-file cap, and a refused record keeps its upstream id and subset."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from snapshot_texts import STDLIB, book, minified, one_line_documents

from quarry.records import read_folder, read_json, read_records, write_records
from quarry.stages.snapshot import run_snapshot
from quarry.snapshot.listing import snapshot_origins


def rejects(out) -> dict[str, dict]:
    return {r["meta"]["path"]: r["meta"] for r in read_records(out / "rejects" / "rejects.jsonl.zst", require_text=False)}


@pytest.fixture(scope="module")
def texts():
    scripts = minified(min_bytes=50_000)
    assert scripts, "no minified script of 50 KB or more on this machine"
    return {"docs": one_line_documents(20, 3000), "book": book(2_500_000), "script": scripts[0]}


def test_one_line_documents_and_a_book_are_kept_and_a_minified_script_refused(tmp_path, texts):
    docs, script = texts["docs"], texts["script"]
    assert len(docs) == 20 and all("\n" not in d and len(d) > 2000 for d in docs)
    records = [{"text": d, "meta": {"id": f"pmid-{i}", "pile_set_name": "PubMed Abstracts"}} for i, d in enumerate(docs)]
    records.append({"text": texts["book"], "meta": {"id": "book-0", "pile_set_name": "Books3"}})
    records.append({"text": script[1], "meta": {"id": "gh-0", "pile_set_name": "Github", "path": script[0]}})
    write_records(tmp_path / "pile.jsonl.zst", records)
    out = tmp_path / "out"
    manifest = run_snapshot([{"name": "pile", "kind": "corpus", "path": str(tmp_path / "pile.jsonl.zst")}], out,
                            cache_dir=tmp_path / "cache")
    kept = {r["meta"]["upstream_id"]: r for r in read_folder(out / "shards")}
    assert set(kept) == {f"pmid-{i}" for i in range(20)} | {"book-0"}
    assert kept["book-0"]["text"] == texts["book"] and kept["book-0"]["meta"]["bytes"] > 2_000_000
    assert manifest["counts"]["refused"] == {"minified": 1}
    (refused,) = rejects(out).values()
    assert refused["reason"] == "minified" and refused["upstream_id"] == "gh-0" and refused["subset"] == "Github"
    assert read_json(out / "ledger.json")["kinds"] == {"code": {"minified": 1}}


def test_the_document_cap_is_apart_from_the_source_file_cap(tmp_path, texts):
    """A book in a folder is prose (its .txt name says so before it is read); a source file of the
    same size is refused by the file cap; a binary named like a man page is not read as prose."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "book.txt").write_text(texts["book"])
    modules = sorted(STDLIB.glob("*.py"))
    source = "".join(p.read_text(encoding="utf-8") for p in modules)[:1_500_000]
    (tree / "big.py").write_text(source)
    (tree / "libz.so.1").write_bytes((b"\x7fELF\x00" + bytes(range(256))) * 5000)
    out = tmp_path / "out"
    manifest = run_snapshot([{"kind": "dir", "path": str(tree)}], out, cache_dir=tmp_path / "cache")
    kept = {r["meta"]["path"]: r for r in read_folder(out / "shards")}
    assert list(kept) == ["book.txt"] and kept["book.txt"]["text"] == texts["book"]
    assert {p: m["reason"] for p, m in rejects(out).items()} == {"big.py": "too_large", "libz.so.1": "too_large"}
    assert manifest["counts"]["refused"] == {"too_large": 2}
    # with a document cap below the book, it is refused too, counted as prose
    capped = run_snapshot([{"kind": "dir", "path": str(tree)}], tmp_path / "capped",
                          {"snapshot": {"max_document_bytes": 2_000_000}}, cache_dir=tmp_path / "cache")
    assert capped["counts"]["files"] == 0
    assert read_json(tmp_path / "capped" / "ledger.json")["kinds"]["prose"] == {"too_large": 1}


def test_refused_records_keep_their_upstream_id_and_subset(tmp_path, texts):
    """Corpus records and table rows refused before or after reading are named upstream."""
    docs = texts["docs"]
    records = [{"text": texts["book"], "meta": {"id": "book-0", "pile_set_name": "Gutenberg (PG-19)"}},
               {"text": "   \n", "meta": {"id": "blank-1", "pile_set_name": "Pile-CC"}},
               {"text": docs[0], "meta": {"id": "pmid-0", "pile_set_name": "PubMed Abstracts"}}]
    write_records(tmp_path / "pile.jsonl.zst", records)
    params = {"snapshot": {"max_document_bytes": 1_000_000}}
    run_snapshot([{"name": "pile", "kind": "corpus", "path": str(tmp_path / "pile.jsonl.zst")}], tmp_path / "corpus",
                 params, cache_dir=tmp_path / "cache")
    refused = {m["upstream_id"]: m for m in rejects(tmp_path / "corpus").values()}
    assert {k: (m["reason"], m["subset"], m["kind"]) for k, m in refused.items()} == {
        "book-0": ("too_large", "Gutenberg (PG-19)", "document"), "blank-1": ("empty", "Pile-CC", "document")}
    # The same records as a Pile-style Parquet table (recognised from `text` and `meta.pile_set_name`)
    rows = [{"text": r["text"], "meta": {"pile_set_name": r["meta"]["pile_set_name"]}, "doc_id": r["meta"]["id"]}
            for r in records]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "pile.parquet")
    source = {"name": "t", "kind": "parquet", "path": str(tmp_path / "pile.parquet"), "preset": "pile",
              "columns": {"id": "doc_id"}}
    run_snapshot([source], tmp_path / "table", params, cache_dir=tmp_path / "cache")
    refused = {m["upstream_id"]: m for m in rejects(tmp_path / "table").values()}
    assert {k: (m["reason"], m["subset"], m["row"]) for k, m in refused.items()} == {
        "book-0": ("too_large", "Gutenberg (PG-19)", "pile.parquet:1"), "blank-1": ("empty", "Pile-CC", "pile.parquet:2")}
    (kept,) = read_folder(tmp_path / "table" / "shards")
    assert kept["meta"]["pile_set_name"] == "PubMed Abstracts" and kept["meta"]["upstream_id"] == "pmid-0"
    assert next(snapshot_origins(tmp_path / "table"))["layout"] == "pile"


def test_a_tables_rows_are_capped_by_their_source_never_per_shard(tmp_path, texts):
    """Rows standing alone are documents, as a corpus's records: a 5 MB Pile-style shard is read
    whole (the 4 MB per-origin cap is for repositories); the source's own max_bytes still caps it."""
    rows = [{"text": texts["book"], "meta": {"pile_set_name": "Books3"}},
            {"text": texts["book"][::-1], "meta": {"pile_set_name": "Books3"}}]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "books.parquet")
    source = {"name": "books", "kind": "parquet", "path": str(tmp_path / "books.parquet")}
    manifest = run_snapshot([source], tmp_path / "out", cache_dir=tmp_path / "cache")
    assert manifest["counts"]["files"] == 2 and manifest["counts"]["bytes"] > 4_000_000
    capped = run_snapshot([{**source, "max_bytes": 3_000_000}], tmp_path / "capped", cache_dir=tmp_path / "cache")
    assert capped["counts"]["refused"] == {"cap_source": 1}
    (refused,) = rejects(tmp_path / "capped").values()
    assert (refused["kind"], refused["subset"], refused["row"]) == ("document", "Books3", "books.parquet:2")

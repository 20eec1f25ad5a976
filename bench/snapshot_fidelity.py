"""Snapshot fidelity on inputs as they are distributed, all read from this machine. Prints one JSON object.

1. Text shapes (tests/snapshot/snapshot_texts.py): one-line paragraph documents (abstracts,
   Wikipedia paragraphs), books (2.5 MB), e-mails, line-per-event logs, LaTeX, man pages, code
   and minified scripts, as a Pile-style corpus (jsonl.zst), the same records as a Pile-style
   Parquet table (layout recognised) and as a folder of files named by shape (.txt, .eml, .log,
   .tex, .1, .py, .js): kept rate by shape, refusal reasons by shape, and what the rules before
   kinds (minified on any text, the 1 MB file cap on any record) would have refused.
2. The Stack v2's repository-grouped layout (tests/snapshot/snapshot_stack.py): installed packages
   as repositories, their contents in a mixed blob store (flat / ab/ fan-out; plain, gzip, zstd):
   files listed vs read, the same files in the file-level layout and as folders.

    python bench/snapshot_fidelity.py                       # 142 repositories
    python bench/snapshot_fidelity.py --repositories 20 --documents 20   # smaller

Floors (bench/floors.py): no prose document refused by a code rule and every prose shape kept whole;
every minified script refused as minified; every file of the repository-grouped layout read
(refused only for what its content is), the same records as the file-level layout and the same
texts, ids, languages and subsets as the folders.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "snapshot"))

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import snapshot_texts as texts  # noqa: E402
from snapshot_stack import file_rows, repository_rows, text_files, write_parquet  # noqa: E402

from floors import Floors  # noqa: E402

from quarry.config.snapshot import SnapshotParams  # noqa: E402
from quarry.records import read_folder, read_json, read_records, write_records  # noqa: E402
from quarry.snapshot.listing import snapshot_origins  # noqa: E402
from quarry.stages.snapshot import run_snapshot  # noqa: E402

PROSE_SHAPES = ("one_line_documents", "books", "emails", "logs", "latex", "man_pages")
CODE_RULES = ("minified", "generated")


def shapes(documents: int) -> dict[str, list[str]]:
    return {"one_line_documents": texts.one_line_documents(documents, 3000),
            "books": [texts.book(2_500_000)],
            "emails": texts.emails(), "logs": texts.logs(), "latex": texts.latex(), "man_pages": texts.man_pages(documents),
            "code": texts.code(40), "minified": [text for _name, text in texts.minified()]}


def rules_before(text: str, cfg: SnapshotParams) -> str | None:
    """What the snapshot refused a corpus record for before content rules went by kind."""
    data = text.encode("utf-8")
    if len(data) > cfg.max_file_bytes:
        return "too_large"
    if not text.strip():
        return "empty"
    if any(marker in text[:2000] for marker in cfg.generated_markers):
        return "generated"
    lines = text.count("\n") + 1
    if len(text) > cfg.minified_line_length and len(text) / lines > cfg.minified_line_length:
        return "minified"
    return None


def bench_shapes(work: Path, documents: int) -> dict:
    cfg = SnapshotParams()
    by_shape = shapes(documents)
    records = [{"text": text, "meta": {"id": f"{shape}-{i}", "pile_set_name": shape}}
               for shape, items in by_shape.items() for i, text in enumerate(items)]
    write_records(work / "corpus.jsonl.zst", records)
    pq.write_table(pa.Table.from_pylist([{"text": r["text"], "meta": {"pile_set_name": r["meta"]["pile_set_name"]}}
                                         for r in records]), work / "table.parquet", row_group_size=64)
    out: dict = {}
    # the same texts as a repository's files, named as such files are (a .js, not a .min.js, which
    # the path rules leave out): there the detected language decides the kind
    names = {"one_line_documents": "txt", "books": "txt", "emails": "eml", "logs": "log", "latex": "tex",
             "man_pages": "1", "code": "py", "minified": "js"}
    for shape, items in by_shape.items():
        for i, text in enumerate(items):
            path = work / "folder" / shape / f"{shape}-{i}.{names[shape]}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    for name, source in (("corpus", {"name": "corpus", "kind": "corpus", "path": str(work / "corpus.jsonl.zst")}),
                         ("parquet", {"name": "table", "kind": "parquet", "path": str(work / "table.parquet")}),
                         ("folder", {"name": "folder", "kind": "dir", "path": str(work / "folder")})):
        start = time.perf_counter()
        run_snapshot([source], work / name, {"snapshot": {"max_origin_bytes": 40_000_000}},
                     cache_dir=work / f"cache-{name}")
        seconds = time.perf_counter() - start

        def shape_of(meta: dict) -> str:  # a record's subset (a reject's `subset`), a file's folder
            return meta["path"].split("/")[0] if name == "folder" else meta.get("subset") or meta["pile_set_name"]
        kept = Counter(shape_of(r["meta"]) for r in read_folder(work / name / "shards"))
        refused: dict[str, Counter] = {}
        for reject in read_records(work / name / "rejects" / "rejects.jsonl.zst", require_text=False):
            meta = reject["meta"]
            refused.setdefault(shape_of(meta), Counter())[meta["reason"]] += 1
        out[name] = {
            "seconds": round(seconds, 2),
            "layout": next(snapshot_origins(work / name)).get("layout"),
            "by_shape": {shape: {"documents": len(items), "kept": kept[shape],
                                 "kept_rate": round(kept[shape] / len(items), 3) if items else None,
                                 "refused": dict(refused.get(shape, {}))}
                         for shape, items in by_shape.items()},
            "prose_refused_by_code_rules": sum(n for shape in PROSE_SHAPES
                                               for reason, n in refused.get(shape, {}).items()
                                               if reason in CODE_RULES or reason == "too_large"),
            "ledger_kinds": read_json(work / name / "ledger.json")["kinds"],
        }
    before = {shape: dict(Counter(r for text in items if (r := rules_before(text, cfg)))) for shape, items in by_shape.items()}
    out["rules_before_kinds"] = {"refused_by_shape": before,
                                 "prose_refused_by_code_rules": sum(n for shape in PROSE_SHAPES
                                                                    for n in before[shape].values())}
    out["sizes"] = {shape: {"documents": len(items), "MB": round(sum(len(t.encode()) for t in items) / 1e6, 3),
                            "mean_line_chars": round(sum(len(t) for t in items) / max(1, sum(t.count("\n") + 1 for t in items)), 1)}
                    for shape, items in by_shape.items()}
    return out


def repositories(count: int, max_files: int = 60) -> dict[str, Path]:
    """Installed packages (folders of the environment's site-packages) as repositories, in name
    order, those with 1 to ``max_files`` text files (keeps the bench under two minutes)."""
    chosen = {}
    for folder in sorted(texts.PACKAGES.iterdir()):
        if not folder.is_dir() or folder.name.startswith(("_", ".")) or "." in folder.name:
            continue
        n = len(text_files(folder))
        if 1 <= n <= max_files:
            chosen[f"site-packages/{folder.name}"] = folder
            if len(chosen) == count:
                break
    return chosen


def bench_repositories(work: Path, count: int) -> dict:
    folders = repositories(count)
    rows, contents = repository_rows(folders, work / "blobs")
    write_parquet(work / "ids" / "train-00000.parquet", rows[: len(rows) // 2], row_group_size=16)
    write_parquet(work / "ids" / "train-00001.parquet", rows[len(rows) // 2:], row_group_size=16)
    write_parquet(work / "flat" / "part.parquet", file_rows(rows), row_group_size=256)
    listed = sum(len(row["files"]) for row in rows)
    blobs = {suffix or "plain": sum(1 for p in (work / "blobs").rglob("*") if p.is_file() and p.suffix == suffix)
             for suffix in ("", ".gz", ".zst")}
    result: dict = {"repositories": len(rows), "files_listed": listed, "distinct_blobs": len(contents),
                    "blob_store": {**blobs, "fanout_folders": sum(1 for p in (work / "blobs").iterdir() if p.is_dir())}}
    start = time.perf_counter()
    grouped = run_snapshot([{"name": "ids", "kind": "parquet", "path": str(work / "ids"), "blobs": str(work / "blobs")}],
                           work / "grouped", workers=2, cache_dir=work / "cache-grouped")
    result["grouped"] = {"seconds": round(time.perf_counter() - start, 2),
                         "layout": sorted({o.get("layout") for o in snapshot_origins(work / "grouped")}),
                         "origins": grouped["counts"]["origins"], "kept": grouped["counts"]["files"],
                         "refused": grouped["counts"]["refused"],
                         "read": grouped["counts"]["files"] + sum(grouped["counts"]["refused"].values())}
    flat = run_snapshot([{"name": "ids", "kind": "parquet", "path": str(work / "flat"), "blobs": str(work / "blobs")}],
                        work / "flat-snap", workers=2, cache_dir=work / "cache-flat")
    same = list(read_folder(work / "flat-snap" / "shards")) == list(read_folder(work / "grouped" / "shards"))
    result["file_level"] = {"layout": sorted({o.get("layout") for o in snapshot_origins(work / "flat-snap")}), "kept": flat["counts"]["files"],
                            "records_identical_to_grouped": same}
    dirs = [{"name": repo, "kind": "dir", "path": str(folder), "origin": f"https://github.com/{repo}"}
            for repo, folder in folders.items()]
    run_snapshot(dirs, work / "dirs", workers=2, cache_dir=work / "cache-dirs")
    listed_keys = {(f"https://github.com/{row['repo_name']}", f["path"].strip("/")) for row in rows for f in row["files"]}

    def key(r):
        return r["meta"]["origin"], r["meta"]["path"], r["meta"]["id"], r["meta"]["language"], r["meta"]["pile_set_name"]
    from_dirs = {key(r) for r in read_folder(work / "dirs" / "shards") if key(r)[:2] in listed_keys}
    from_table = {key(r) for r in read_folder(work / "grouped" / "shards")}
    result["folders"] = {"kept_of_listed": len(from_dirs), "same_texts_ids_languages_subsets": from_dirs == from_table}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repositories", type=int, default=142)
    parser.add_argument("--documents", type=int, default=40, help="one-line documents and man pages")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quarry-fidelity-") as tmp:
        work = Path(tmp)
        (work / "shapes").mkdir()
        (work / "repos").mkdir()
        start = time.perf_counter()
        shaped = bench_shapes(work / "shapes", args.documents)
        repos = bench_repositories(work / "repos", args.repositories)
    floors = Floors()
    for name in ("corpus", "parquet", "folder"):
        result = shaped[name]
        floors.equals(f"{name}.prose_refused_by_code_rules", result["prose_refused_by_code_rules"], 0)
        for shape in PROSE_SHAPES:
            floors.equals(f"{name}.{shape}.kept_rate", result["by_shape"][shape]["kept_rate"], 1.0)
        minified = result["by_shape"]["minified"]
        floors.equals(f"{name}.minified.refused_as_minified", minified["refused"].get("minified"), minified["documents"])
    grouped = repos["grouped"]
    floors.equals("stack_v2_repositories.files_read", grouped["read"], repos["files_listed"])
    floors.equals("stack_v2_repositories.unread", sorted(set(grouped["refused"]) & {"blob_missing", "row_missing",
                                                                                  "swhid_mismatch", "too_large"}), [])
    floors.equals("stack_v2_repositories.file_level_identical", repos["file_level"]["records_identical_to_grouped"], True)
    floors.equals("stack_v2_repositories.folders_identical", repos["folders"]["same_texts_ids_languages_subsets"], True)
    floors.emit({"bench": "snapshot_fidelity", "seconds": round(time.perf_counter() - start, 1),
                 "shapes": shaped, "stack_v2_repositories": repos})


if __name__ == "__main__":
    main()

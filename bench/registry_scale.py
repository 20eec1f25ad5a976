"""The release registry at two sizes: what registering a version and writing its changelog from its
parent holds, and how long it takes, side by side for the code of this checkout and another
(``--baseline``: a checkout of an earlier commit, as `git worktree add` makes). Prints JSON.

Documents are the machine's installed files (site-packages): the id is the SWHID of the content,
the key the package folder and path. The parent version holds N of them; the new version drops
every file of 2% of the origins (an opt-out, recorded as rejects), changes 1% of the files' content
(the same key under a new id) and moves 0.5% to another split: the changes a re-derived version
brings (``--edit-share 1``: every file's content changes, as a new snapshot's version brings). Each size and code runs in a fresh process; its peak is the Python allocations
(tracemalloc) while the new version is registered (index, dropped rows, changelog), after the parent's.

    python bench/registry_scale.py                               # 16,000 and 64,000 documents
    python bench/registry_scale.py --chunk-rows 0                # the sorts' own chunk (200,000 rows)
    python bench/registry_scale.py --baseline /tmp/old-checkout  # and the earlier code beside it
    python bench/registry_scale.py --edit-share 1                # most documents changed
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from floors import Floors  # noqa: E402

RUN = r"""
import json, sys, time, tracemalloc
from pathlib import Path
from quarry.datasets import build, changelog
from quarry.records import write_records

documents, work, chunk_rows = json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2]), int(sys.argv[3])
try:   # what the on-disk sorts hold at once (earlier code has none)
    from quarry.datasets import disk_sort
    disk_sort.CHUNK_ROWS = chunk_rows or disk_sort.CHUNK_ROWS
except ImportError:
    pass
registry = work / "releases"

def version(name, rows, dropped):
    out = work / name
    (out / "rejects").mkdir(parents=True, exist_ok=True)
    write_records(out / "rejects" / "optout.jsonl.zst", dropped, validate=False)
    shards = []
    for start in range(0, len(rows), 2000):   # each input shard's rows, sorted by id, as the scatter writes them
        path = work / f"{name}-index-{start:07d}.jsonl.zst"
        write_records(path, sorted(rows[start:start + 2000], key=lambda r: r["id"]), validate=False)
        shards.append(path)
    return {"name": "bench", "version": name * 32, "label": "0.1.0" if name == "a" else "0.2.0"}, out, shards

def index_rows(shards):   # as assemble's publication merges them
    from quarry.records import read_records
    if hasattr(changelog, "index_of_files"):
        return changelog.index_of_files(shards)
    return changelog.merged_index(read_records(path, require_text=False) for path in shards)

def register(manifest, out, shards, parent):
    parent_manifest, parent_index = build.load_parent(parent, registry) if parent else (None, None)
    build._register(manifest, out, [out], parent_manifest, parent_index, registry, index_rows(shards))

manifest_a, out_a, shards_a = version("a", documents["old"], [])
register(manifest_a, out_a, shards_a, None)
manifest_b, out_b, shards_b = version("b", documents["new"], documents["dropped"])
tracemalloc.start()
started = time.perf_counter()
register(manifest_b, out_b, shards_b, manifest_a["version"])
seconds = time.perf_counter() - started
peak = tracemalloc.get_traced_memory()[1]
log = json.loads((registry / "bench" / manifest_b["version"] / "changelog.json").read_text())
counts = dict(log["counts"])
if "split_changed" in log:   # a checkout from before the change rows: the lists in the changelog
    counts["split_changed"] = len(log["split_changed"])
print(json.dumps({"seconds": round(seconds, 2), "python_peak_mb": round(peak / 1e6, 1), "counts": counts,
                  "split_changed": counts["split_changed"]}))
"""


def installed_files(limit: int) -> list[tuple[str, str]]:
    """(key, SWHID) of the first ``limit`` installed files, in sorted path order."""
    root = Path(sysconfig.get_paths()["purelib"])
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
        data = path.read_bytes()
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        relative = path.relative_to(root).as_posix()
        found.append((f"{relative.split('/')[0]}::{relative}", f"swh:1:cnt:{blob}"))
        if len(found) >= limit:
            break
    return found


def versions(files: list[tuple[str, str]], edit_share: float = 0.01) -> dict:
    """The parent's rows, the new version's rows and its rejects (deterministic: chosen by hash)."""
    def share(text: str) -> float:
        return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 2**32

    def row(key: str, doc_id: str, split: str) -> dict:
        return {"id": doc_id, "key": key, "origin": key.split("::")[0], "split": split, "subset": "code", "copies": 1}

    old, new, dropped, seen = [], [], [], set()
    expected = {"added": 0, "removed": 0, "changed": 0, "unchanged": 0, "split_changed": 0}
    for key, doc_id in files:
        if doc_id in seen:   # one row per id, as an index holds it
            continue
        seen.add(doc_id)
        split = "test" if share("split" + doc_id) < 0.02 else "train"
        old.append(row(key, doc_id, split))
        if share("optout" + key.split("::")[0]) < 0.02:
            dropped.append({"meta": {"id": doc_id, "origin": key.split("::")[0], "path": key.split("::")[1],
                                     "stage": "optout", "reason": "opt-out"}, "text": ""})
            expected["removed"] += 1
            continue
        if share("edit" + key) < edit_share:
            doc_id = "swh:1:cnt:" + hashlib.sha1(doc_id.encode()).hexdigest()
            expected["changed"] += 1
        else:
            expected["unchanged"] += 1
            if share("move" + key) < 0.005:
                split = "validation"
                expected["split_changed"] += 1
        new.append(row(key, doc_id, split))
    return {"old": old, "new": new, "dropped": dropped, "expected": expected}


def run(code: Path, documents: dict, work: Path, chunk_rows: int) -> dict:
    work.mkdir(parents=True)
    listing = work / "documents.json"
    listing.write_text(json.dumps({k: v for k, v in documents.items() if k != "expected"}))
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run([sys.executable, "-c", RUN, str(listing), str(work), str(chunk_rows)], env=env, cwd=code,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"registry bench failed ({code}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, nargs="+", default=[16_000, 64_000])
    parser.add_argument("--baseline", type=Path, help="a checkout of earlier code, run beside this one")
    parser.add_argument("--chunk-rows", type=int, default=2000,
                        help="rows an on-disk sort holds at once (0: the default, 200,000): small, so that these "
                             "sizes show what 100 times as many documents would with the default")
    parser.add_argument("--edit-share", type=float, default=0.01, help="share of the files whose content changes")
    args = parser.parse_args()
    files = installed_files(max(args.docs))
    codes = {"this": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    results: dict = {"documents_from": "site-packages files (SWHIDs of their content)", "chunk_rows": args.chunk_rows,
                     "edit_share": args.edit_share, "runs": {}}
    floors = Floors()
    with tempfile.TemporaryDirectory(prefix="registry-bench-") as scratch:
        for size in args.docs:
            documents = versions(files[:size], args.edit_share)
            for name, code in codes.items():
                found = run(code, documents, Path(scratch) / f"{name}-{size}", args.chunk_rows)
                results["runs"].setdefault(name, {})[str(len(documents["old"]))] = found
                print(f"{name} {size}: {found}", file=sys.stderr)
                floors.equals(f"{name}.{len(documents['old'])}.changelog_counts",
                              {**found["counts"], "split_changed": found["split_changed"]}, documents["expected"])
    for name, runs in results["runs"].items():
        peaks = [run["python_peak_mb"] for run in runs.values()]
        results["runs"][name]["peak_growth"] = round(peaks[-1] / peaks[0], 2) if len(peaks) > 1 and peaks[0] else None
    floors.emit(results)


if __name__ == "__main__":
    main()

"""Decontamination against a corpus's own test split: what is removed, and why.

The corpus is real source and documentation text from this interpreter's standard library and
its installed distributions (files in sorted path order, exact copies removed as the dedup stage
would, ids from content), written as jsonl.zst shards: the same corpus for the same
environment and size. Two rules run side by side on it, in one run:

- ``quarry``: the stage's defaults (licence notices and common n-grams ignored, own-split
  evidence proportional to the test document);
- ``single_ngram``: the rule as GPT-3 stated it and Quarry had it before: one shared 13-gram
  flags a document, n-grams in more than 10 training documents ignored.

For each: documents removed (count and share), throughput, and what was removed and why (the
evidence: shared n-grams and the share of the test document they cover; the most frequent
example n-grams; a sample of removed paths with the test file they overlap).

Planted contamination is the one labelled figure: ``--planted`` training documents (default 20,
at most one per test-split document) each get half of a test-split document pasted after their
own text, and every rule must find them: floor recall >= 0.95 (bench/floors.py). What a rule
removes from the real text has no labels; it is reported, not guarded.

    python bench/decontaminate.py               # 250 MB
    python bench/decontaminate.py --mb 40       # a quick look
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import site
import sys
import sysconfig
import tempfile
import time
from collections import Counter, deque
from pathlib import Path

from floors import Floors
from peers import peer_versions

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TEXT_SUFFIXES = {".py", ".pyi", ".c", ".h", ".cpp", ".js", ".ts", ".md", ".rst", ".txt", ".toml", ".cfg",
                 ".ini", ".yaml", ".yml", ".sh", ".html", ".css", ".pyx", ".pxd", ".json"}
MAX_FILE_BYTES = 400_000
SHARD_BYTES = 32 << 20


def corpus_roots() -> list[tuple[str, Path]]:
    roots = [("stdlib", Path(sysconfig.get_paths()["stdlib"]))]
    roots += [("site-packages", Path(p)) for p in site.getsitepackages()]
    return roots


def source_files(limit_bytes: int):
    """(origin, path, text) of distinct text files, in sorted path order, up to ``limit_bytes``."""
    from quarry.curation.dedup.shingles import normalized_content_hash

    seen, total = set(), 0
    for name, root in corpus_roots():
        for path in sorted(p for p in root.rglob("*") if p.suffix in TEXT_SUFFIXES):
            if "site-packages" in path.relative_to(root).parts or not path.is_file():
                continue  # the stdlib folder holds site-packages; it is read as its own root
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            key = normalized_content_hash(text)
            if len(text) < 200 or key in seen:
                continue
            seen.add(key)
            rel = path.relative_to(root)
            yield f"{name}/{rel.parts[0]}", rel.as_posix(), text
            total += len(text.encode())
            if total >= limit_bytes:
                return


def build_corpus(folder: Path, mb: float, planted: int) -> dict:
    from quarry.records import RecordWriter
    from quarry.splits import split_of

    folder.mkdir(parents=True, exist_ok=True)
    shard, size, writer, docs, total = 0, 0, None, 0, 0
    tests, hosts = [], deque(maxlen=planted)  # test-split documents to paste, documents to paste them into
    for origin, path, text in source_files(int(mb * 1e6)):
        if writer is None or size >= SHARD_BYTES:
            if writer is not None:
                writer.close()
            writer = RecordWriter(folder / f"part-{shard:05d}.jsonl.zst", level=1)
            shard, size = shard + 1, 0
        blob = text.encode("utf-8", "surrogatepass")
        sha1 = hashlib.sha1(b"blob %d\0" % len(blob) + blob).hexdigest()
        meta = {"id": f"swh:1:cnt:{sha1}", "origin": origin, "path": path}
        writer.write({"text": text, "meta": meta})
        long = len(text.split()) >= 200
        if long and split_of(meta["id"]) != "test":
            hosts.append((meta, text))
        elif long and len(tests) < planted:
            tests.append((meta, text))
        size += len(blob)
        total += len(blob)
        docs += 1
    if writer is not None:
        writer.close()
    ids = plant(folder / "planted.jsonl.zst", tests, hosts)
    return {"documents": docs + len(ids), "mb": round(total / 1e6, 1), "shards": shard + 1, "planted": ids}


def plant(shard: Path, tests: list, hosts: list) -> list[str]:
    """Training documents with the second half of a test-split document pasted after their text
    (a test file copied into another project); their ids, all outside the test split."""
    from quarry.records import write_records
    from quarry.splits import split_of

    records = []
    for (test, test_text), (host, host_text) in zip(tests, hosts):
        lines = test_text.splitlines()
        doc_id = next(f"planted:{test['id']}:{n}" for n in range(100) if split_of(f"planted:{test['id']}:{n}")
                      != "test")
        records.append({"text": host_text + "\n\n" + "\n".join(lines[len(lines) // 2:]),
                        "meta": {"id": doc_id, "origin": host["origin"], "path": host["path"] + ".planted"}})
    write_records(shard, records)
    return [r["meta"]["id"] for r in records]


def explain(report: dict, documents: int, planted: set[str]) -> dict:
    """What was removed from the real text and why: evidence buckets, the commonest example
    n-grams, a sample; and the share of planted copies found."""
    matches = [m for m in report["matches"] if m["id"] not in planted]
    found = sum(m["id"] in planted for m in report["matches"])
    shares = Counter()
    for match in matches:
        evidence = match["evidence"]
        share = evidence["shared"] / max(evidence["item_ngrams"], 1)
        kind = "own split" if evidence["own_split"] else "benchmark"
        shares[f"{kind}, {min(int(share * 10) * 10, 90)}-{min(int(share * 10) * 10, 90) + 10}% of the item"] += 1
    examples = Counter(match["example"] for match in matches)
    sample = [{"path": m["path"], "overlaps": m["evidence"]["item"], "shared_ngrams": m["evidence"]["shared"],
               "item_ngrams": m["evidence"]["item_ngrams"], "example": m["example"]} for m in matches[:: max(1, len(matches) // 12)][:12]]
    return {"planted_recall": round(found / len(planted), 4) if planted else None, "planted_found": found,
            "removed": len(matches), "removed_share": round(len(matches) / max(documents - len(planted), 1), 4),
            "by_evidence": dict(sorted(shares.items())),
            "commonest_examples": [{"ngram": text, "documents": n} for text, n in examples.most_common(8)],
            "sample": sample}


def run_rule(src: Path, out: Path, decontaminate: dict, workers: int, documents: int, mb: float,
             planted: set[str]) -> dict:
    from quarry.curation.decontaminate.overlap import REPORT
    from quarry.engine import run_local
    from quarry.stages.decontaminate import DECONTAMINATE

    start = time.perf_counter()
    ledger = run_local(DECONTAMINATE, src, out, {"decontaminate": decontaminate}, workers=workers)
    seconds = time.perf_counter() - start
    report = json.loads((out / REPORT).read_text())
    shutil.rmtree(out)
    return {"params": decontaminate, "seconds": round(seconds, 1), "mb_per_s": round(mb / seconds, 2),
            "test_split_items": report["test_split_items"], "ignored_common_in_train": report["ignored_common_in_train"],
            **explain(report, documents - ledger["contamination"]["test_split_items"], planted)}


RULES = {
    "quarry": {"test_split": "test"},
    "single_ngram": {"test_split": "test", "notices": False, "own_min_ngrams": 1, "own_min_share": 0.0,
                     "max_train_documents": 10},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=250.0, help="corpus size in MB of text")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rules", default=",".join(RULES), help="comma-separated: " + ", ".join(RULES))
    parser.add_argument("--planted", type=int, default=20, help="training documents with a test document pasted")
    parser.add_argument("--keep", help="build the corpus here and keep it (default: a temporary folder)")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-decontaminate-"))
    try:
        src = work / "corpus"
        start = time.perf_counter()
        corpus = build_corpus(src, args.mb, args.planted) if not (src / "part-00000.jsonl.zst").exists() else \
            json.loads((work / "corpus.json").read_text())
        (work / "corpus.json").write_text(json.dumps(corpus))
        corpus["build_seconds"] = round(time.perf_counter() - start, 1)
        planted = set(corpus["planted"])
        results = {name: run_rule(src, work / f"out-{name}", RULES[name], args.workers, corpus["documents"],
                                  corpus["mb"], planted) for name in args.rules.split(",")}
        floors = Floors()  # measured: every planted copy found by both rules (none planted: None, below)
        for name, result in results.items():
            floors.at_least(f"{name}.planted_recall", result["planted_recall"], 0.95)
        floors.emit({"corpus": {**corpus, "planted": len(planted)}, "workers": args.workers, "rules": results,
                     "versions": peer_versions("numpy", "xxhash")})
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

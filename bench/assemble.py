"""Shard writing speed and compression: jsonl.zst at zstd levels 3, 10 and 19 against gzip -6,
on the same records, in one run; plus an end-to-end `assemble` and a check that multi-threaded
zstd writes the same bytes as one thread. Floors (bench/floors.py): those bytes are the same, and
the assembled splits hold every input record exactly once.

Records are real source code: the .py files of this Python's standard library, in sorted order
(or any folder of shards with --src).

    python bench/assemble.py                 # ~16 MB, a few minutes on a busy laptop
    python bench/assemble.py --mb 512 --threads 8
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import sysconfig
import tempfile
import time
from pathlib import Path

from quarry.stages.assemble import assemble
from quarry.infra.hashing import file_hash
from quarry.records import RecordWriter, dumps, read_folder, read_records, write_records
from floors import Floors
from peers import peer_versions


def stdlib_records(limit_bytes: int) -> list[dict]:
    records, total = [], 0
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        data = text.encode()
        records.append({"text": text, "meta": {
            "id": "swh:1:cnt:" + hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest(),
            "pile_set_name": "github-python", "origin": "cpython", "path": str(path.name), "language": "Python",
            "license": {"spdx": "PSF-2.0", "category": "permissive", "evidence": "LICENSE"}}})
        total += len(dumps(records[-1]))
        if total >= limit_bytes:
            break
    return records


def timed_write(path: Path, records: list[dict], level: int, threads: int, repeat: int) -> tuple[float, int]:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        with RecordWriter(path, level=level, threads=threads) as writer:
            writer.write_all(records)
        best = min(best, time.perf_counter() - start)
    return best, path.stat().st_size


def timed_gzip(path: Path, records: list[dict], repeat: int) -> tuple[float, int]:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        with gzip.open(path, "wb", compresslevel=6) as fh:
            for record in records:
                fh.write(dumps(record))
        best = min(best, time.perf_counter() - start)
    return best, path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=16, help="uncompressed MB of records")
    parser.add_argument("--src", type=Path, help="a folder of shards to use instead of the stdlib")
    parser.add_argument("--threads", type=int, default=2, help="zstd compression threads")
    parser.add_argument("--repeat", type=int, default=1, help="best of N timings")
    parser.add_argument("--levels", default="3,10,19")
    args = parser.parse_args()

    records = list(read_folder(args.src)) if args.src else stdlib_records(int(args.mb * 1e6))
    raw = sum(len(dumps(r)) for r in records)
    mb = raw / 1e6
    results = {"records": len(records), "uncompressed_mb": round(mb, 2), "threads": args.threads, "writers": {}}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        seconds, size = timed_gzip(tmp / "gzip6.jsonl.gz", records, args.repeat)
        results["writers"]["gzip -6"] = {"mb_per_s": round(mb / seconds, 2), "ratio": round(raw / size, 3),
                                         "compressed_mb": round(size / 1e6, 3)}
        gzip_size = size
        for level in map(int, args.levels.split(",")):
            seconds, size = timed_write(tmp / f"zstd{level}.jsonl.zst", records, level, args.threads, args.repeat)
            results["writers"][f"zstd -{level}"] = {
                "mb_per_s": round(mb / seconds, 2), "ratio": round(raw / size, 3),
                "compressed_mb": round(size / 1e6, 3), "size_vs_gzip6": round(size / gzip_size, 3)}

        # RecordWriter promises the same bytes for any thread count
        one = write_records(tmp / "t1.jsonl.zst", records, level=3, threads=1)
        many = write_records(tmp / "tn.jsonl.zst", records, level=3, threads=max(2, args.threads))
        same = file_hash(tmp / "t1.jsonl.zst") == file_hash(tmp / "tn.jsonl.zst")
        results["same_bytes_for_1_and_n_threads"] = same and one.records == many.records

        write_records(tmp / "src" / "part-00000.jsonl.zst", records, level=3)
        params = {"assemble": {"name": "bench", "shard_bytes": 64 * 2**20, "zstd_level": 10,
                               "zstd_threads": args.threads}}
        start = time.perf_counter()
        manifest = assemble(tmp / "src", tmp / "dataset", params, register=False)
        seconds = time.perf_counter() - start
        results["assemble_zstd10"] = {"mb_per_s": round(mb / seconds, 2), "seconds": round(seconds, 2),
                                      "shards": sum(len(s["files"]) for s in manifest["splits"].values()),
                                      "version": manifest["version"][:12]}
        assembled = sorted(r["meta"]["id"] for split in manifest["splits"].values() for entry in split["files"]
                           for r in read_records(tmp / "dataset" / entry["path"]))
        results["assemble_zstd10"]["every_record_once"] = assembled == sorted(r["meta"]["id"] for r in records)
    results["versions"] = peer_versions("zstandard")
    floors = Floors()
    floors.equals("same_bytes_for_1_and_n_threads", results["same_bytes_for_1_and_n_threads"], True)
    floors.equals("assemble_zstd10.every_record_once", results["assemble_zstd10"]["every_record_once"], True)
    floors.emit(results)


if __name__ == "__main__":
    main()

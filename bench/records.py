"""Read and write throughput of jsonl.zst records: Quarry vs a plain json + zstandard loop vs
Hugging Face `datasets.load_dataset("json")`, on the same generated corpus, in one run.

    python bench/records.py --mb 200 --shards 4

Prints JSON; MB/s are of uncompressed JSONL bytes. Floors (bench/floors.py): every reader reads
back as many records as were written, and Quarry's read gives back the very records written.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import shutil
import tempfile
import time
from pathlib import Path

import zstandard

from quarry.records import read_records, write_records
from floors import Floors
from peers import peer_versions

WORDS = ("def return import self class for while if else None True False value result data "
         "path config tensor model token shard record license origin").split()


def make_records(total_mb: float, seed: int = 0):
    rng = random.Random(seed)
    budget = int(total_mb * 1e6)
    i = 0
    while budget > 0:
        lines = [" ".join(rng.choices(WORDS, k=rng.randint(3, 14))) for _ in range(rng.randint(5, 120))]
        text = "\n".join(lines)
        record = {"text": text, "meta": {"id": f"swh:1:cnt:{i:040x}", "pile_set_name": "bench",
                                        "path": f"src/m{i}.py", "language": "Python", "bytes": len(text)}}
        budget -= len(text) + 120
        i += 1
        yield record


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=200.0)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--level", type=int, default=3)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="quarry-bench-records-"))
    try:
        records = list(make_records(args.mb))
        per = -(-len(records) // args.shards)
        parts = [records[i:i + per] for i in range(0, len(records), per)]
        raw_mb = sum(len(json.dumps(r, ensure_ascii=False).encode()) + 1 for r in records) / 1e6

        def quarry_write():
            for n, part in enumerate(parts):
                write_records(work / "quarry" / f"part-{n:05d}.jsonl.zst", part, level=args.level)

        def baseline_write():
            (work / "baseline").mkdir()
            for n, part in enumerate(parts):
                with open(work / "baseline" / f"part-{n:05d}.jsonl.zst", "wb") as fh:
                    with zstandard.ZstdCompressor(level=args.level).stream_writer(fh) as zfh:
                        for r in part:
                            zfh.write((json.dumps(r, ensure_ascii=False) + "\n").encode())

        def quarry_read():
            return sum(1 for p in sorted((work / "quarry").iterdir()) for _ in read_records(p))

        def baseline_read():
            n = 0
            for p in sorted((work / "baseline").iterdir()):
                with open(p, "rb") as fh:
                    text = io.TextIOWrapper(zstandard.ZstdDecompressor().stream_reader(fh), encoding="utf-8")
                    for line in text:
                        json.loads(line)
                        n += 1
            return n

        def hf_read():
            import datasets

            datasets.disable_progress_bars()
            files = [str(p) for p in sorted((work / "quarry").iterdir())]
            ds = datasets.load_dataset("json", data_files=files, split="train", cache_dir=str(work / "hf-cache"))
            return sum(1 for _ in ds)

        results = {"corpus_mb_uncompressed": round(raw_mb, 1), "records": len(records), "shards": args.shards,
                   "zstd_level": args.level}
        floors = Floors()
        for name, fn in [("quarry_write", quarry_write), ("baseline_json_zstd_write", baseline_write),
                         ("quarry_read", quarry_read), ("baseline_json_zstd_read", baseline_read),
                         ("hf_datasets_load_and_iterate", hf_read)]:
            value, seconds = timed(fn)
            if name.endswith("read") or name.startswith("hf"):
                floors.equals(f"{name}.records", value, len(records))
            results[name] = {"seconds": round(seconds, 2), "mb_per_s": round(raw_mb / seconds, 1)}
        read_back = [r for p in sorted((work / "quarry").iterdir()) for r in read_records(p)]
        floors.equals("quarry_round_trip_identical", read_back == records, True)
        results["compressed_mb"] = round(sum(p.stat().st_size for p in (work / "quarry").iterdir()) / 1e6, 1)
        results["versions"] = peer_versions("datasets", "zstandard", "orjson")
        floors.emit(results)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

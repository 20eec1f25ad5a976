"""Near-duplicate clustering in one process against the same clustering in partitions: peak
memory per worker process, and the same components.

Synthetic band keys (deterministic): ``--dup-share`` of the documents are near copies of an
earlier document (so copies of copies form chains and larger clusters), and a copy shares each
of the 25 bands with its original with probability ``--band-share`` (0.33: Jaccard 0.8 at 5
rows per band); every other key is distinct. They are written as the per-shard index files the
dedup stage reads (band-major keys, a signature flag), so both paths run the library code on
them: the one-process path (quarry.curation.dedup.pairs.candidate_pairs + union-find, as
cluster.near_clusters) and the partitioned one (quarry.curation.dedup.partition: bucket partitions,
verify partitions, merge of forests) with 2, 4 and 8 partitions. Pairs are not verified
(no signatures: ``verify: none``); verification is per pair, so it divides with the pairs.

Every step runs in a fresh process; its peak RSS (VmHWM) is reported as measured and net of
an idle worker (a process that imported the same modules). A worker's peak is the larger of its
bucket and verify partitions; the merge is reported beside them. Prints JSON, with how memory
scales per document so larger sizes can be projected. Floors (bench/floors.py): the components
of every partition count equal the one-process components; from 1,000,000 documents (below,
the interpreter's own memory dominates), every worker's net peak <= 1.5 x (one-process net
peak / workers).

    python bench/clustering.py                       # 2,000,000 documents
    python bench/clustering.py --docs 20000000       # about 4 GB of band keys on disk
    python bench/clustering.py --docs 100000000 --shard-docs 1000000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import resource
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from floors import Floors

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BANDS, ROWS = 25, 5
MEMORY_FLOOR_DOCS = 1_000_000
GOAL = 1.5


def _mix(values: np.ndarray, salt: int) -> np.ndarray:
    x = values.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64((salt * 0x632BE59BD9B4E019 + 1) % 2**64)
    x ^= x >> np.uint64(31)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(29)
    return x


def write_index(folder: Path, docs: int, shard_docs: int, dup_share: float, band_share: float, seed: int) -> list[Path]:
    """Shards of synthetic index files (bands.npy band-major, has_sig.npy); their prefixes."""
    from quarry.curation.dedup.index import save_scratch

    prefixes = []
    dup_cut, band_cut = np.uint64(int(dup_share * 2**64 - 1)), np.uint64(int(band_share * 2**64 - 1))
    for first in range(0, docs, shard_docs):
        ids = np.arange(first, min(docs, first + shard_docs), dtype=np.int64)
        copy = (_mix(ids, seed) < dup_cut) & (ids > 0)
        origin = np.where(copy, (_mix(ids, seed + 1) % np.maximum(ids, 1).astype(np.uint64)).astype(np.int64), ids)
        keys = np.empty((BANDS, len(ids)), dtype=np.uint64)
        for band in range(BANDS):
            shares = copy & (_mix(ids, seed + 100 + band) < band_cut)
            keys[band] = _mix(np.where(shares, origin, ids), seed + 1000 + band)
        prefix = folder / f"shard-{first // shard_docs:06d}" / "index"
        prefix.parent.mkdir(parents=True)
        save_scratch(Path(f"{prefix}.bands.npy"), keys)
        save_scratch(Path(f"{prefix}.has_sig.npy"), np.ones(len(ids), dtype=bool))
        prefixes.append(prefix)
    return prefixes


def _peak_mb() -> float:
    """This process's peak RSS: VmHWM, since ru_maxrss keeps the parent's size across fork + exec."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _canonical(docs: np.ndarray, labels: np.ndarray) -> str:
    """A digest of the clusters: documents ascending, each labelled by its cluster's smallest member."""
    order = np.lexsort((docs, labels))
    d, grouped = docs[order], labels[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]]) if len(d) else np.empty(0, dtype=np.int64)
    smallest = np.repeat(d[starts], np.diff(np.r_[starts, len(d)]))
    by_doc = np.argsort(d, kind="stable")
    return hashlib.sha256(d[by_doc].tobytes() + smallest[by_doc].tobytes()).hexdigest()


def _config():
    from quarry.curation.dedup.config import DedupConfig

    return DedupConfig(verify="none", bands=BANDS, rows=ROWS)


def idle_task() -> dict:
    import quarry.curation.dedup.partition  # noqa: F401  the modules every step imports
    from quarry.curation.dedup.unionfind import UnionFind  # noqa: F401

    return {"peak_mb": _peak_mb()}


def one_process_task(prefixes: list[str]) -> dict:
    from quarry.curation.dedup.index import ShardIndex
    from quarry.curation.dedup.pairs import candidate_pairs, verified
    from quarry.curation.dedup.unionfind import UnionFind

    begun = time.perf_counter()
    index = ShardIndex([Path(p) for p in prefixes])
    pairs = candidate_pairs(index, np.ones(index.total, dtype=bool), BANDS)
    edges = verified(index, pairs, _config())
    uf = UnionFind(index.total)
    uf.union_pairs(edges)
    roots = uf.roots()
    in_cluster = np.flatnonzero(np.bincount(roots, minlength=index.total)[roots] > 1)
    peak = _peak_mb()
    return {"peak_mb": peak, "seconds": time.perf_counter() - begun, "pairs": int(len(pairs)),
            "clustered_docs": int(len(in_cluster)), "clusters": _canonical(in_cluster, roots[in_cluster])}


def bucket_task(prefixes: list[str], live: str, part: int, parts: int, out: str) -> dict:
    from quarry.curation.dedup.index import ShardIndex
    from quarry.curation.dedup.partition import bucket_partition

    result = bucket_partition(ShardIndex([Path(p) for p in prefixes]), Path(live), BANDS, part, parts, Path(out))
    return {"peak_mb": _peak_mb(), "estimate_mb": result.peak_mb, "pairs": str(result.pairs),
            "offsets": str(result.offsets)}


def verify_task(prefixes: list[str], sources: list[tuple[str, str]], part: int, out: str) -> dict:
    from quarry.curation.dedup.index import ShardIndex
    from quarry.curation.dedup.partition import verify_partition

    result = verify_partition(ShardIndex([Path(p) for p in prefixes]), [(Path(a), Path(b)) for a, b in sources],
                              part, _config(), Path(out))
    return {"peak_mb": _peak_mb(), "estimate_mb": result.peak_mb, "pairs": result.candidate_pairs}


def merge_task(forests: list[str], docs: int) -> dict:
    from quarry.curation.dedup.partition import merge_forests

    docs, labels, estimate = merge_forests([Path(f) for f in forests], docs)
    peak = _peak_mb()  # before the digest, which is the bench's own
    return {"peak_mb": peak, "estimate_mb": estimate, "clusters": _canonical(docs, labels)}


def run(pool_size: int, fn, calls: list[tuple]) -> list[dict]:
    """Each call in a fresh spawned process (so each peak is its own), ``pool_size`` at a time."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(pool_size, mp_context=context, max_tasks_per_child=1) as pool:
        futures = [pool.submit(fn, *call) for call in calls]
        return [future.result() for future in futures]


def partitioned(prefixes: list[str], docs: int, parts: int, folder: Path, pool_size: int) -> dict:
    folder.mkdir(parents=True)
    live = folder / "live.bin"
    live.write_bytes(np.ones(docs, dtype=bool).tobytes())
    begun = time.perf_counter()
    buckets = run(pool_size, bucket_task, [(prefixes, str(live), p, parts, str(folder / f"b{p:03d}"))
                                           for p in range(parts)])
    sources = [(b["pairs"], b["offsets"]) for b in buckets]
    forests = [str(folder / f"v{p:03d}.forest.npy") for p in range(parts)]
    verify = run(pool_size, verify_task, [(prefixes, sources, p, forests[p]) for p in range(parts)])
    [merge] = run(1, merge_task, [(forests, docs)])
    return {"seconds": time.perf_counter() - begun, "pairs": sum(v["pairs"] for v in verify),
            "worker_peak_mb": [round(max(b["peak_mb"], v["peak_mb"]), 1) for b, v in zip(buckets, verify, strict=True)],
            "bucket_peak_mb": round(max(b["peak_mb"] for b in buckets), 1),
            "verify_peak_mb": round(max(v["peak_mb"] for v in verify), 1), "merge_peak_mb": round(merge["peak_mb"], 1),
            "estimated_peak_mb": {"buckets": max(b["estimate_mb"] for b in buckets),
                                  "verify": max(v["estimate_mb"] for v in verify), "merge": merge["estimate_mb"]},
            "clusters": merge["clusters"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=2_000_000)
    parser.add_argument("--shard-docs", type=int, default=250_000, help="documents per index shard")
    parser.add_argument("--workers", default="2,4,8", help="partition (worker) counts to compare")
    parser.add_argument("--dup-share", type=float, default=0.3)
    parser.add_argument("--band-share", type=float, default=0.33)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--pool", type=int, default=os.cpu_count() or 1, help="worker processes alive at once")
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    scratch = Path(tempfile.mkdtemp(prefix="quarry-clustering-"))
    try:
        begun = time.perf_counter()
        prefixes = [str(p) for p in write_index(scratch / "index", args.docs, args.shard_docs, args.dup_share,
                                                args.band_share, args.seed)]
        written = time.perf_counter() - begun
        [idle] = run(1, idle_task, [()])
        [one] = run(1, one_process_task, [(prefixes,)])
        runs = {n: partitioned(prefixes, args.docs, n, scratch / f"p{n}", min(args.pool, n)) for n in counts}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    idle_mb = idle["peak_mb"]
    one_net = one["peak_mb"] - idle_mb
    floors = Floors()
    table = {}
    for n, result in runs.items():
        net = max(*result["worker_peak_mb"], result["merge_peak_mb"]) - idle_mb
        ratio = round(net / (one_net / n), 3) if one_net > 0 else None
        table[n] = {**{k: v for k, v in result.items() if k != "clusters"}, "seconds": round(result["seconds"], 1),
                    "max_worker_net_mb": round(net, 1), "goal_net_mb": round(GOAL * one_net / n, 1),
                    "net_over_one_process_share": ratio,
                    "net_bytes_per_doc": round(net * 1e6 / args.docs, 2)}
        floors.equals(f"partitions_{n}.same_clusters", result["clusters"] == one["clusters"], True)
        floors.equals(f"partitions_{n}.same_pairs", result["pairs"] == one["pairs"], True)
        if args.docs >= MEMORY_FLOOR_DOCS:
            floors.at_most(f"partitions_{n}.worker_net_peak_over_one_process_share", ratio, GOAL)
    floors.emit({
        "docs": args.docs, "shards": len(prefixes), "bands": BANDS, "rows": ROWS, "dup_share": args.dup_share,
        "band_share": args.band_share, "band_keys_mb": round(args.docs * BANDS * 8 / 1e6, 1),
        "index_written_seconds": round(written, 1), "idle_worker_mb": round(idle_mb, 1),
        "memory_floor": f"checked from {MEMORY_FLOOR_DOCS:,} documents",
        "one_process": {"peak_mb": round(one["peak_mb"], 1), "net_mb": round(one_net, 1),
                        "net_bytes_per_doc": round(one_net * 1e6 / args.docs, 2), "seconds": round(one["seconds"], 1),
                        "candidate_pairs": one["pairs"], "clustered_docs": one["clustered_docs"]},
        "partitions": table,
    })


if __name__ == "__main__":
    main()

"""Snapshot throughput on the embedded default (stdlib + installed distributions), cold and warm,
side by side with peers on the same files: content SWHIDs vs `git hash-object`, and language
detection vs Pygments' own `guess_lexer_for_filename`. Prints one JSON object.

    python bench/snapshot.py                      # the params.yaml default (~32 MB of text)
    python bench/snapshot.py --max-total-mb 10    # smaller
    python bench/snapshot.py --workers 1 2 4

Floors (bench/floors.py): SWHIDs identical to git's, language agreement with Pygments >= 0.99
(measured 0.999 on 3000 files), and one snapshot id for every run (cold, warm, any worker count).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quarry.config.values import Params, load_params  # noqa: E402
from quarry.snapshot import language  # noqa: E402
from quarry.stages.snapshot import run_snapshot  # noqa: E402
from quarry.snapshot.driver import plan_all  # noqa: E402
from quarry.config import with_overrides  # noqa: E402
from quarry.snapshot.swhid import content_swhid  # noqa: E402
from floors import Floors  # noqa: E402
from peers import peer_versions  # noqa: E402


def _rate(files: int, size: int, seconds: float) -> dict:
    return {"seconds": round(seconds, 3), "files": files, "MB": round(size / 1e6, 2),
            "files_per_s": round(files / seconds, 1), "MB_per_s": round(size / 1e6 / seconds, 2)}


def bench_snapshot(params: Params, workers: int, work: Path) -> dict:
    cache = work / f"cache-{workers}"
    out = {}
    for phase in ("cold", "warm"):
        start = time.perf_counter()
        manifest = run_snapshot(None, work / f"out-{workers}-{phase}", params, workers=workers, cache_dir=cache)
        out[phase] = _rate(manifest["counts"]["files"], manifest["counts"]["bytes"], time.perf_counter() - start)
        out[phase]["snapshot_id"] = manifest["snapshot_id"][:16]
    return out


def bench_swhid(paths: list[str]) -> dict:
    data = [Path(p).read_bytes() for p in paths]
    size = sum(len(d) for d in data)
    start = time.perf_counter()
    ours = [content_swhid(d).rsplit(":", 1)[1] for d in data]
    quarry_s = time.perf_counter() - start
    start = time.perf_counter()
    git = subprocess.run(["git", "hash-object", "--no-filters", "--stdin-paths"], input="\n".join(paths) + "\n",
                         capture_output=True, text=True, check=True).stdout.split()
    git_s = time.perf_counter() - start
    return {"quarry_swh_model": _rate(len(data), size, quarry_s), "git_hash_object": _rate(len(data), size, git_s),
            "identical": ours == git}


def bench_language(files: list[tuple[str, str]]) -> dict:
    from pygments.lexers import guess_lexer_for_filename
    from pygments.util import ClassNotFound

    texts = []
    for rel, full in files:
        text = Path(full).read_bytes().decode("utf-8", "replace")
        texts.append((rel, text))
    start = time.perf_counter()
    ours = [language.detect(rel, text[:512].encode(), text) for rel, text in texts]
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    peer = []
    for rel, text in texts:
        try:
            peer.append(guess_lexer_for_filename(rel.rsplit("/", 1)[-1], text).name)
        except ClassNotFound:
            peer.append(language.UNKNOWN)
    peer_s = time.perf_counter() - start
    size = sum(len(t) for _, t in texts)
    agree = sum(a == b for a, b in zip(ours, peer))
    return {"quarry_detect": _rate(len(texts), size, ours_s),
            "pygments_guess_lexer_for_filename": _rate(len(texts), size, peer_s),
            "agreement": round(agree / max(1, len(texts)), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--max-total-mb", type=float, default=None, help="override snapshot.max_total_bytes")
    parser.add_argument("--peer-files", type=int, default=3000, help="files for the SWHID / language peers")
    args = parser.parse_args()

    repo = Path(__file__).resolve().parents[1]
    params = load_params(repo / "params.yaml")
    sources = params.snapshot.as_dict()["sources"]
    for source in sources:  # this checkout's lock, whatever QUARRY_HOME names
        if source.get("lock"):
            source["lock"] = str(repo / source["lock"])
    params = with_overrides(params, {"snapshot.sources": sources})
    if args.max_total_mb is not None:
        params = with_overrides(params, {"snapshot.max_total_bytes": int(args.max_total_mb * 1e6)})
    result = {"python": sys.version.split()[0], "snapshot": {}}
    with tempfile.TemporaryDirectory(prefix="quarry-bench-snapshot-") as tmp:
        work = Path(tmp)
        for workers in args.workers:
            result["snapshot"][f"workers={workers}"] = bench_snapshot(params, workers, work)
        cfg = params.snapshot
        plans = plan_all(cfg.as_dict()["sources"], cfg, work / "staging")
        files = [(c.path, c.locator[1]) for p in plans for c in p.candidates if c.locator[0] == "file"]
        files = files[: args.peer_files]
        result["swhid"] = bench_swhid([full for _, full in files])
        result["language"] = bench_language(files)
    result["versions"] = peer_versions("swh.model", "pygments", "dulwich")
    floors = Floors()
    floors.equals("swhid.identical", result["swhid"]["identical"], True)
    floors.at_least("language.agreement", result["language"]["agreement"], 0.99)
    ids = {run["snapshot_id"] for runs in result["snapshot"].values() for run in runs.values()}
    floors.equals("snapshot.distinct_snapshot_ids", len(ids), 1)
    floors.emit(result)


if __name__ == "__main__":
    main()

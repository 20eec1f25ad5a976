"""License stage throughput on a corpus of real code, against plain ScanCode on the same texts.

The corpus is this interpreter's standard library and every installed distribution, snapshotted
the way the embedded default is (sources in order, origins sorted, so the same environment gives
the same corpus) up to ``--corpus-mb``. The licenses stage runs over it twice with a fresh answer
cache: cold, then warm. Every text the stage asks the detector about is recorded; a deterministic
sample of them (every k-th distinct text by hash) goes to plain ScanCode (the worker, one process,
no normalised keys, no shortcuts), which gives its texts/s and MB/s and the share of answers that
differ. Of every distinct text the stage's workers are shown, ``fast_path`` counts those exact
matching settles (scancode_worker.settled: no approximate matching) and how many of them the full
matching answers otherwise (floor: none). Every answer resolved without ScanCode (an SPDX
line, a shipped license text) is checked against plain ScanCode too. Prints one JSON document.

    python bench/licenses.py --corpus-mb 20 --plain-sample 60      # a few minutes
    python bench/licenses.py --corpus-mb 290 --workers 2            # the full measurement
    python bench/licenses.py --diverse --corpus-mb 24 --workers 1   # C headers, Perl, shell scripts

ScanCode runs as the machine's one server (quarry.curation.licenses.engine), here one of this run's own
(QUARRY_SCANCODE_RUNTIME in its temp folder), so the cold run loads the index as a first run on the
machine does; ``--running-server`` uses the machine's, which may already hold it. The CPU seconds
count the server's (the index load) and its children's (the detections), as read from /proc.

Floors (bench/floors.py): at most 1% of the sampled answers differ from plain ScanCode's, and no
answer resolved without ScanCode does (measured at 20 MB: 0 of 60, 0 of 7).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from floors import Floors  # noqa: E402
from machine_code import is_shell  # noqa: E402
from peers import peer_versions  # noqa: E402

from quarry.curation.licenses.cache import CachedDetector  # noqa: E402
from quarry.curation.licenses.engine import ScanCodeWorker, process_cpu_seconds, scancode_version  # noqa: E402
from quarry.curation.licenses.findings import LicenseFinding  # noqa: E402
from quarry.curation.licenses.normalize import license_part, normalize  # noqa: E402
from quarry.config.values import Params, as_params, load_params  # noqa: E402
from quarry.engine import run_local  # noqa: E402
from quarry.stages.licenses import LICENSES, use_detector  # noqa: E402
from quarry.stages.snapshot import run_snapshot  # noqa: E402


def corpus_params(corpus_mb: float, sources: list[dict] | None = None) -> Params:
    """The embedded default's sources (or ``sources``) with caps raised so the corpus reaches ``corpus_mb``."""
    params = load_params(REPO / "params.yaml").as_dict()
    snap = params["snapshot"]
    snap["sources"] = sources or [
        {"name": "stdlib", "kind": "stdlib", "max_bytes": 60_000_000, "max_origin_bytes": 60_000_000},
        {"name": "installed", "kind": "installed", "max_origin_bytes": 40_000_000,
         "lock": str(REPO / "requirements.lock")}]  # this checkout's, whatever QUARRY_HOME says
    snap["max_origin_bytes"] = 40_000_000
    snap["max_total_bytes"] = int(corpus_mb * 1e6)
    snap["shard_bytes"] = 16_000_000
    return as_params(params)


# The machine's diverse code: C headers, Perl modules and shell scripts, one origin per folder
# (a library's headers, a Perl distribution's modules, the scripts of one folder).
DIVERSE_ROOTS = ("/usr/include", "/usr/share/perl", "/usr/lib/x86_64-linux-gnu/perl", "/usr/share/perl5")
SHELL_ROOTS = ("/usr/bin", "/usr/sbin", "/usr/share", "/usr/lib", "/etc")


def diverse_sources(work: Path) -> list[dict]:
    """dir sources over the machine's C, Perl and shell code, sorted (the same machine gives the
    same corpus). Shell scripts are scattered, so they are copied into one folder per directory."""
    folders = set()
    for root in map(Path, DIVERSE_ROOTS):
        if root.is_dir():
            for path in root.rglob("*"):
                if path.is_file() and path.suffix in (".h", ".hpp", ".pm", ".pl", ".pod"):
                    folders.add(path.parent)
    shell = work / "shell-scripts"
    if not shell.exists():
        for root in map(Path, SHELL_ROOTS):
            for path in sorted(root.rglob("*")) if root.is_dir() else []:
                if path.is_file() and not path.is_symlink() and path.suffix in ("", ".sh") and is_shell(path):
                    target = shell / str(path.parent).strip("/").replace("/", "_") / path.name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(path.read_bytes())
    if shell.exists():
        folders.update(p for p in shell.iterdir() if p.is_dir())
    return [{"name": "diverse", "kind": "dir", "path": str(folder), "origin": f"file://{folder}",
             "exclude": ["**/*.so*"]} for folder in sorted(folders)]


def build_corpus(work: Path, corpus_mb: float, workers: int, diverse: bool = False) -> tuple[Path, dict]:
    """The snapshot folder (reused when ``work`` already holds one of the same parameters)."""
    params = corpus_params(corpus_mb, diverse_sources(work) if diverse else None)
    key = hashlib.sha256(json.dumps(params.snapshot.as_dict(), sort_keys=True).encode()).hexdigest()[:16]
    folder = work / f"corpus-{key}"
    if not (folder / "manifest.json").is_file():
        run_snapshot(None, folder, params, workers=workers, cache_dir=work / "snapshot-cache")
    return folder, json.loads((folder / "manifest.json").read_text())


class RecordingDetector(CachedDetector):
    """The stage's detector, recording every text asked about and the seconds spent answering."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.texts: set[str] = set()
        self.seconds = 0.0

    def detect(self, texts):
        start = time.perf_counter()
        try:
            return super().detect(texts)
        finally:
            self.seconds += time.perf_counter() - start
            self.texts.update(texts)


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (stage processes, ScanCode workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def scancode_cpu(detector: CachedDetector) -> float:
    """CPU seconds of the ScanCode processes no rusage of this process counts: the server children
    serving the detector's workers, and the server itself (its index load) when one of them started it."""
    workers = [w for w in detector._workers if w.shared]
    return (sum(w.cpu_seconds() for w in workers)
            + sum(process_cpu_seconds(w.server_pid) for w in workers if w.started_server))


def run_stage(snapshot: Path, out: Path, params: Params, workers: int) -> tuple[dict, RecordingDetector]:
    detector = RecordingDetector(workers=workers, batch_size=params.licenses.batch_size)
    start, cpu = time.perf_counter(), cpu_seconds()
    with detector:
        # The stage runs in this process, its ScanCode work spread over the detector's workers.
        use_detector(detector, params.licenses.batch_size)
        ledger = run_local(LICENSES, snapshot, out, params, workers=1)
        detector.workers_used, detector.index_load = detector.started_workers, detector.index_seconds
        remote = scancode_cpu(detector)
        detector.server = {"connections": sum(w.shared for w in detector._workers),
                           "started": any(w.started_server for w in detector._workers)}
    detector.wall, detector.cpu = time.perf_counter() - start, cpu_seconds() - cpu + remote
    return ledger, detector


def rates(documents: int, size: int, seconds: float, cores: int, cpu: float) -> dict:
    """Per core: wall time times the cores used, and (load-independent on a shared machine) CPU time."""
    return {"seconds": round(seconds, 2), "cpu_seconds": round(cpu, 1),
            "documents_per_s_per_core": round(documents / seconds / cores, 1),
            "MB_per_s_per_core": round(size / 1e6 / seconds / cores, 3),
            "MB_per_cpu_s": round(size / 1e6 / cpu, 3)}


def answer(result: dict) -> tuple:
    """What a detection decides downstream: the SPDX expression and each license's category."""
    finding = LicenseFinding.from_result(result)
    return (None, ()) if finding is None else (finding.spdx, tuple(sorted(finding.categories.items())))


def sample(texts: set[str], size: int) -> list[str]:
    """Every k-th text in hash order: the same sample for the same texts."""
    ordered = sorted(texts, key=lambda t: hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest())
    if size <= 0 or size >= len(ordered):
        return ordered
    step = len(ordered) / size
    return [ordered[int(i * step)] for i in range(size)]


def compare_with_plain(ours: CachedDetector, texts: list[str], shortcut_texts: list[str]) -> dict:
    """Plain ScanCode on ``texts`` (timed) and on the texts answered without ScanCode (checked)."""
    with ScanCodeWorker(batch_size=8, plain=True) as plain:
        start, cpu = time.perf_counter(), plain.cpu_seconds()
        plain_results = plain.detect(texts)
        seconds, cpu = time.perf_counter() - start, plain.cpu_seconds() - cpu
        shortcut_plain = plain.detect(shortcut_texts) if shortcut_texts else []
    size = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts)
    differ = [(t, a, b) for t, a, b in zip(texts, (answer(r) for r in ours.detect(texts)), map(answer, plain_results))
              if a != b]
    shortcut_differ = [(t, a, b) for t, a, b in zip(shortcut_texts, (answer(r) for r in ours.detect(shortcut_texts)),
                                                     map(answer, shortcut_plain)) if a != b]
    return {
        "plain_scancode": {"texts": len(texts), "MB": round(size / 1e6, 3), "seconds": round(seconds, 2),
                           "cpu_seconds": round(cpu, 1), "texts_per_s_per_core": round(len(texts) / seconds, 2),
                           "texts_per_cpu_s": round(len(texts) / cpu, 2),
                           "MB_per_s_per_core": round(size / 1e6 / seconds, 4)},
        "answers_differ": {"texts": len(differ), "share": round(len(differ) / max(1, len(texts)), 4),
                           "examples": [{"text": t[:160], "ours": a[0], "plain": b[0]} for t, a, b in differ[:8]]},
        "resolved_without_scancode": {"checked": len(shortcut_texts), "differ": len(shortcut_differ),
                                      "examples": [{"text": t[:160], "ours": a[0], "plain": b[0]}
                                                   for t, a, b in shortcut_differ[:8]]},
    }


def check_fast_path(texts: list[str]) -> dict:
    """Every distinct text the stage's workers are shown (the licence part of a normal form): how many
    exact matching settles (scancode_worker.settled), the seconds detecting them took, and how many
    of those the full matching (plain) answers otherwise."""
    shown = sorted({license_part(normalize(t)) for t in texts})
    with ScanCodeWorker(batch_size=8) as worker:
        settled = [text for text, done in zip(shown, worker.settles(shown)) if done]
        start = time.perf_counter()
        fast = worker.detect(settled)
        seconds = time.perf_counter() - start
        worker.plain = True
        full = worker.detect(settled)
    differ = [(t, answer(a), answer(b)) for t, a, b in zip(settled, fast, full) if answer(a) != answer(b)]
    return {"texts": len(shown), "settled": len(settled), "share": round(len(settled) / max(1, len(shown)), 4),
            "settled_seconds": round(seconds, 2), "answers_differ": len(differ),
            "examples": [{"text": t[:160], "fast": a[0], "full": b[0]} for t, a, b in differ[:8]]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus-mb", type=float, default=290.0, help="cap on the corpus (MB; what files weigh as read: the text is a little less)")
    parser.add_argument("--workers", type=int, default=2, help="stage processes and ScanCode workers")
    parser.add_argument("--plain-sample", type=int, default=300, help="distinct texts for plain ScanCode (0: all)")
    parser.add_argument("--work", type=Path, default=None, help="keep the corpus here between runs")
    parser.add_argument("--diverse", action="store_true",
                        help="the machine's C headers, Perl modules and shell scripts instead of Python packages")
    parser.add_argument("--running-server", action="store_true",
                        help="use the machine's ScanCode server (it may hold the index already) instead of a new one")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="quarry-bench-licenses-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if not args.running_server:  # a server of this run's own; it exits when the folder goes
            os.environ["QUARRY_SCANCODE_RUNTIME"] = str(Path(tmp) / "run")
        start = time.perf_counter()
        snapshot, manifest = build_corpus(work, args.corpus_mb, args.workers, args.diverse)
        corpus_s = time.perf_counter() - start
        documents, size = manifest["counts"]["files"], manifest["counts"]["bytes"]
        params = copy.deepcopy(corpus_params(args.corpus_mb, diverse_sources(work) if args.diverse else None))
        home = Path(tempfile.mkdtemp(prefix="home-", dir=work))  # a fresh answer cache: .quarry/cache/licenses
        os.environ["QUARRY_HOME"] = str(home)
        cores = min(args.workers, os.cpu_count() or 1)
        runs = {}
        for phase in ("cold", "warm"):
            ledger, detector = run_stage(snapshot, home / phase, params, args.workers)
            runs[phase] = {**rates(documents, size, detector.wall, cores, detector.cpu),
                           "detect_seconds": round(detector.seconds, 2), "texts_asked": len(detector.texts),
                           "scancode_calls": detector.scancode_calls, "resolved": dict(detector.stats.resolved),
                           "scancode_workers": detector.workers_used,
                           "scancode_server": detector.server,
                           "index_load_s": round(detector.index_load, 2)}
        with CachedDetector(home / ".quarry" / "cache" / "licenses") as ours:
            texts = sample(detector.texts, args.plain_sample)
            shortcut_texts = sorted(t for t in detector.texts if ours.resolve_without_scancode(t) is not None)
            comparison = compare_with_plain(ours, texts, shortcut_texts)
        shortcut = set(shortcut_texts)
        comparison["fast_path"] = check_fast_path([t for t in detector.texts if t not in shortcut])
        plain = comparison["plain_scancode"]
        asked_mb = sum(len(t.encode("utf-8", "surrogatepass")) for t in detector.texts) / 1e6
        report = {
            "versions": {**peer_versions(), "scancode-toolkit": scancode_version()},
            "corpus": {"documents": documents, "MB": round(size / 1e6, 1), "origins": manifest["counts"].get("origins"),
                       "snapshot_s": round(corpus_s, 1), "snapshot_id": manifest["snapshot_id"][:16]},
            "cores": cores, "load_average": os.getloadavg(),
            "stage": runs,
            "texts_asked": {"distinct": len(detector.texts), "MB": round(asked_mb, 2),
                            "plain_scancode_projected_cpu_s": round(len(detector.texts) / plain["texts_per_cpu_s"], 1)},
            **comparison,
            "kept": ledger.get("kept"), "input": ledger.get("input"),
        }
    floors = Floors()
    floors.at_most("answers_differ.share", report["answers_differ"]["share"], 0.01)
    floors.equals("resolved_without_scancode.differ", report["resolved_without_scancode"]["differ"], 0)
    floors.equals("fast_path.answers_differ", report["fast_path"]["answers_differ"], 0)
    floors.emit(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

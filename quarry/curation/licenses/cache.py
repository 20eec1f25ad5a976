"""Detections cached on disk by normalised text: a license seen once never reaches ScanCode again.

License files and headers repeat across thousands of repositories, differing in copyright lines,
comment markers and spacing that ScanCode never reads. A text is normalised first (see
normalize) and the cache is keyed by the hash of its license part, under a folder per ScanCode
version and worker code (a new index never reuses old answers); ScanCode is shown that part,
so the answer is a function of the key alone, whichever text brought it. Texts that ScanCode's
own license data decides (an SPDX line of known ids, a shipped license text: see known) are
answered without ScanCode, before the cache is read, and are not stored. Entries are written
atomically, so concurrent workers can share the folder.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import Counter, deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from quarry.curation.licenses.engine import (Detection, ScanCodeWorker, WORKER_SCRIPT, scancode_python, scancode_version,
                                    server_enabled)
from quarry.curation.licenses.known import SPDX_STATEMENT, KnownLicenses
from quarry.curation.licenses.normalize import license_part, normal_key, normalize
from quarry.infra.parallel import available_cores, cores_per_process
from quarry.paths import state_dir
from quarry.records import atomic_write_bytes


def text_key(text: str) -> str:
    """The cache key of a text: the hash of the license part of its normal form."""
    return normal_key(license_part(normalize(text)))


def default_cache_dir() -> Path:
    return state_dir() / "cache" / "licenses"


# Memory of a ScanCode worker (KiB): a direct worker holds a whole index (PSS 1.05 GB measured, ~2 GB
# at its peak); a child of the machine's server shares the server's (~1.1 GB, once) and adds ~0.1 GB.
DIRECT_WORKER_KIB = 2 * 1024 * 1024
SHARED_WORKER_KIB = 512 * 1024
SERVER_KIB = 2 * 1024 * 1024


def default_workers() -> int:
    """ScanCode workers a detector may start: its process's share of the cores (the worker processes
    of a run each have a detector), as many as its share of memory holds."""
    try:
        with open("/proc/meminfo") as meminfo:
            available = next(int(line.split()[1]) for line in meminfo if line.startswith("MemAvailable:"))
        if server_enabled():
            by_memory = max(1, (available - SERVER_KIB) // SHARED_WORKER_KIB)
        else:
            by_memory = max(1, available // DIRECT_WORKER_KIB)
    except (OSError, StopIteration, ValueError):
        by_memory = 1
    processes = max(1, available_cores() // cores_per_process())
    return max(1, min(cores_per_process(), by_memory // processes))


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    sent: int = 0  # texts sent to ScanCode: distinct misses
    resolved: Counter = field(default_factory=Counter)  # texts answered from ScanCode's data, by matcher


class CachedDetector:
    """ScanCode detections through normalised keys and an on-disk cache. ScanCode workers start on
    the first miss only; a large set of misses is shared out, batch by batch, over up to ``workers``
    workers (connections to the machine's ScanCode server, which holds the one index: see
    quarry.curation.licenses.engine; default: one per core that memory allows, or one when an already running
    ``worker`` is shared). Another worker starts only for ``MIN_TEXTS_PER_WORKER`` misses."""

    MEMORY_ENTRIES = 100_000  # answers also kept in memory, for repeated texts within a run
    MIN_TEXTS_PER_WORKER = 32  # fewer misses do not pay for another worker (a whole index, for a direct one)

    def __init__(self, cache_dir: Path | None = None, *, batch_size: int = 64, python: Path | None = None,
                 worker: ScanCodeWorker | None = None, workers: int | None = None):
        """``worker``: an already running ScanCode worker to share (left open by ``close``)."""
        self.python = python
        self.batch_size = max(1, batch_size)
        self.max_workers = max(1, workers if workers is not None else 1 if worker else default_workers())
        self._shared_worker = worker
        self.cache_dir = Path(cache_dir or default_cache_dir())
        self._folder: Path | None = None
        self._known: KnownLicenses | None | bool = False  # False: not loaded yet
        self.stats = CacheStats()
        self._memory: dict[str, Detection] = {}
        self._workers: list[ScanCodeWorker] = [worker] if worker else []
        self._early: Future | None = None  # the first worker, starting in the background

    @property
    def folder(self) -> Path:
        """The cache folder of the installed ScanCode version and of the worker's code, which
        turns ScanCode's matches into answers (resolved on first use, so a run with nothing to
        detect needs no ScanCode at all)."""
        if self._folder is None:
            version = scancode_version(self.python or scancode_python())
            worker = hashlib.sha256(WORKER_SCRIPT.read_bytes()).hexdigest()[:12]
            self._folder = self.cache_dir / f"scancode-{version}-{worker}"
        return self._folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def _remember(self, key: str, result: Detection) -> None:
        if len(self._memory) >= self.MEMORY_ENTRIES:
            self._memory.clear()
        self._memory[key] = result

    def _lookup(self, key: str) -> Detection | None:
        if key in self._memory:
            return self._memory[key]
        try:
            result = orjson.loads(self._path(key).read_bytes())
        except (FileNotFoundError, orjson.JSONDecodeError):
            return None
        self._remember(key, result)
        return result

    @property
    def known(self) -> KnownLicenses | None:
        """ScanCode's shipped license data (None when its install has none)."""
        if self._known is False:
            python = self.python or scancode_python()
            self._known = KnownLicenses.load(python, self.cache_dir / f"known-{scancode_version(python)}.json")
        return self._known

    def resolve_without_scancode(self, text: str) -> Detection | None:
        """ScanCode's answer for ``text`` when its shipped license data decides it, else None."""
        return self.known.resolve(normalize(text)) if self.known else None

    def detect(self, texts: list[str]) -> list[Detection]:
        """ScanCode's result for every text (see scancode_worker), in order; misses go in batches."""
        answers: dict[str, Detection] = {}  # by text
        missing: dict[str, str] = {}  # key -> normal form
        waiting: dict[str, list[str]] = {}  # key -> texts waiting for it
        prepared = []
        for text in dict.fromkeys(texts):
            normal = normalize(text)
            part = license_part(normal)
            prepared.append((text, normal, part))
            if (not self._workers and self._early is None and not SPDX_STATEMENT.match(normal)
                    and self._lookup(normal_key(part)) is None):
                # ScanCode will be asked: it starts now, its index loading while the other texts are
                # read and the table of shipped texts is loaded
                self._start_early()
        for text, normal, part in prepared:
            if self.known and (result := self.known.resolve(normal)) is not None:
                self.stats.resolved[result["matches"][0]["matcher"]] += 1
                answers[text] = result
                continue
            normal = part
            key = normal_key(normal)
            if key in missing:
                waiting[key].append(text)
            elif (result := self._lookup(key)) is not None:
                self.stats.hits += 1
                answers[text] = result
            else:
                missing[key] = normal
                waiting[key] = [text]
        self.stats.misses += len(missing)
        if missing:
            self.stats.sent += len(missing)
            for key, result in self._scan(list(missing.items())).items():
                # a lost entry (a crash) is only a miss again: no fsync per answer (1 s per 200 on this disk)
                atomic_write_bytes(self._path(key), orjson.dumps(result, option=orjson.OPT_SORT_KEYS), durable=False)
                self._remember(key, result)
                answers.update((text, result) for text in waiting[key])
        return [answers[text] for text in texts]

    def _scan(self, items: list[tuple[str, str]]) -> dict[str, Detection]:
        """key -> ScanCode result. The longest texts go first and batches shrink so that every
        worker stays busy to the end; batches are pulled from one queue by every worker, so a slow
        text holds up only its own worker. Which worker answers does not change the answer."""
        count = max(1, min(self.max_workers, math.ceil(len(items) / self.MIN_TEXTS_PER_WORKER)))
        items = sorted(items, key=lambda item: (-len(item[1]), item[0]))
        size = max(1, min(self.batch_size, math.ceil(len(items) / (count * 4)))) if count > 1 else self.batch_size
        batches = deque(items[i:i + size] for i in range(0, len(items), size))
        workers = self._start_workers(count)
        lock = threading.Lock()

        def drain(worker: ScanCodeWorker) -> dict[str, Detection]:
            answers = {}
            while True:
                with lock:
                    if not batches:
                        return answers
                    batch = batches.popleft()
                answers.update(zip((key for key, _ in batch), worker.detect([text for _, text in batch])))

        if len(workers) == 1:
            return drain(workers[0])
        results: dict[str, Detection] = {}
        with ThreadPoolExecutor(len(workers)) as pool:
            for answers in pool.map(drain, workers):
                results.update(answers)
        return results

    def _start_early(self) -> None:
        """Start the first worker in the background (connecting to the machine's ScanCode server, or
        starting it: seconds of index loading, in its own process); ``_start_workers`` takes it."""
        early: Future = Future()

        def start() -> None:
            try:
                early.set_result(ScanCodeWorker(self.python, batch_size=self.batch_size))
            except BaseException as exc:  # noqa: BLE001 - raised where the worker is taken
                early.set_exception(exc)

        threading.Thread(target=start, name="scancode-start", daemon=True).start()
        self._early = early

    def _start_workers(self, count: int) -> list[ScanCodeWorker]:
        if self._early is not None:
            early, self._early = self._early, None
            self._workers.append(early.result())
        needed = count - len(self._workers)
        if needed > 0:
            with ThreadPoolExecutor(needed) as pool:  # starts overlap (the first may start the server)
                started = list(pool.map(lambda _: ScanCodeWorker(self.python, batch_size=self.batch_size),
                                        range(needed)))
            self._workers.extend(started)
        return self._workers[:max(1, count)]

    @property
    def worker(self) -> ScanCodeWorker:
        """The first ScanCode worker (started if need be): to share with another detector."""
        return self._start_workers(1)[0]

    @property
    def started_workers(self) -> int:
        return len(self._workers)

    @property
    def index_seconds(self) -> float:
        """How long the slowest worker took to load ScanCode's index (0 when none started)."""
        return max((worker.index_seconds for worker in self._workers), default=0.0)

    @property
    def scancode_calls(self) -> int:
        """Texts this detector sent to ScanCode (every other answer came from the cache)."""
        return self.stats.sent

    def close(self) -> None:
        if self._early is not None:  # started for texts the shipped data then answered
            early, self._early = self._early, None
            try:
                self._workers.append(early.result())
            except Exception:  # noqa: BLE001 - nothing was asked of it
                pass
        for worker in self._workers:
            if worker is not self._shared_worker:
                worker.close()
        self._workers = []

    def __enter__(self) -> CachedDetector:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

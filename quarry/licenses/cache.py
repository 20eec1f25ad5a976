"""Detections cached on disk by content hash: a LICENSE text seen once never reaches ScanCode again.

License files repeat across thousands of repositories, so the cache is keyed by the sha256 of
the text alone, under a folder per ScanCode version (a new index never reuses old answers).
Entries are written atomically, so concurrent workers can share the folder.
"""

from __future__ import annotations

import hashlib
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from quarry.licenses.engine import WORKER_SCRIPT, ScanCodeWorker, scancode_python, scancode_version
from quarry.paths import state_dir
from quarry.records import atomic_write_bytes


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def default_cache_dir() -> Path:
    return state_dir() / "cache" / "licenses"


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    sent: int = 0  # texts sent to ScanCode: distinct misses


class CachedDetector:
    """ScanCode detections through an on-disk cache. ScanCode workers start on the first miss only;
    with ``workers`` > 1, a large set of misses is shared out, batch by batch, over that many
    worker processes (each holds its own index: about 1.6 GB)."""

    MEMORY_ENTRIES = 100_000  # answers also kept in memory, for repeated texts within a run

    def __init__(self, cache_dir: Path | None = None, *, batch_size: int = 64, python: Path | None = None,
                 worker: ScanCodeWorker | None = None, workers: int = 1):
        """``worker``: an already running ScanCode worker to share (left open by ``close``)."""
        self.python = python
        self.batch_size = max(1, batch_size)
        self.max_workers = max(1, workers)
        self._shared_worker = worker
        self.cache_dir = Path(cache_dir or default_cache_dir())
        self._folder: Path | None = None
        self.stats = CacheStats()
        self._memory: dict[str, dict[str, Any]] = {}
        self._workers: list[ScanCodeWorker] = [worker] if worker else []

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

    def _remember(self, key: str, result: dict[str, Any]) -> None:
        if len(self._memory) >= self.MEMORY_ENTRIES:
            self._memory.clear()
        self._memory[key] = result

    def _lookup(self, key: str) -> dict[str, Any] | None:
        if key in self._memory:
            return self._memory[key]
        try:
            result = orjson.loads(self._path(key).read_bytes())
        except (FileNotFoundError, orjson.JSONDecodeError):
            return None
        self._remember(key, result)
        return result

    def detect(self, texts: list[str]) -> list[dict[str, Any]]:
        """ScanCode's result for every text (see scancode_worker), in order; misses go in batches."""
        keys = [text_key(text) for text in texts]
        found: dict[str, dict[str, Any]] = {}
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts):
            if key in found or key in missing:
                continue
            result = self._lookup(key)
            if result is None:
                missing[key] = text
            else:
                found[key] = result
        self.stats.hits += len(texts) - len(missing)
        self.stats.misses += len(missing)
        if missing:
            self.stats.sent += len(missing)
            for key, result in self._scan(list(missing.items())).items():
                atomic_write_bytes(self._path(key), orjson.dumps(result, option=orjson.OPT_SORT_KEYS))
                self._remember(key, result)
                found[key] = result
        return [found[key] for key in keys]

    def _scan(self, items: list[tuple[str, str]]) -> dict[str, dict[str, Any]]:
        """key -> ScanCode result; batches are pulled from one queue by every worker, so a slow
        text holds up only its own worker. Which worker answers does not change the answer."""
        batches = deque(items[i:i + self.batch_size] for i in range(0, len(items), self.batch_size))
        workers = self._start_workers(min(self.max_workers, len(batches)))
        lock = threading.Lock()

        def drain(worker: ScanCodeWorker) -> dict[str, dict[str, Any]]:
            answers = {}
            while True:
                with lock:
                    if not batches:
                        return answers
                    batch = batches.popleft()
                answers.update(zip((key for key, _ in batch), worker.detect([text for _, text in batch])))

        if len(workers) == 1:
            return drain(workers[0])
        results: dict[str, dict[str, Any]] = {}
        with ThreadPoolExecutor(len(workers)) as pool:
            for answers in pool.map(drain, workers):
                results.update(answers)
        return results

    def _start_workers(self, count: int) -> list[ScanCodeWorker]:
        needed = count - len(self._workers)
        if needed > 0:
            with ThreadPoolExecutor(needed) as pool:  # index loads overlap
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
        for worker in self._workers:
            if worker is not self._shared_worker:
                worker.close()
        self._workers = []

    def __enter__(self) -> CachedDetector:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

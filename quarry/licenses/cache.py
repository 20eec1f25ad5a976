"""Detections cached on disk by content hash: a LICENSE text seen once never reaches ScanCode again.

License files repeat across thousands of repositories, so the cache is keyed by the sha256 of
the text alone, under a folder per ScanCode version (a new index never reuses old answers).
Entries are written atomically, so concurrent workers can share the folder.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from quarry.licenses.engine import ScanCodeWorker, scancode_python, scancode_version
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
    """ScanCode detections through an on-disk cache; the worker starts on the first miss only."""

    def __init__(self, cache_dir: Path | None = None, *, batch_size: int = 64, python: Path | None = None,
                 worker: ScanCodeWorker | None = None):
        """``worker``: an already running ScanCode worker to share (left open by ``close``)."""
        self.python = python
        self.batch_size = batch_size
        self._shared_worker = worker
        version = scancode_version(python or scancode_python())
        self.folder = Path(cache_dir or default_cache_dir()) / f"scancode-{version}"
        self.stats = CacheStats()
        self._memory: dict[str, dict[str, Any]] = {}
        self._worker: ScanCodeWorker | None = worker

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def _lookup(self, key: str) -> dict[str, Any] | None:
        if key in self._memory:
            return self._memory[key]
        try:
            result = orjson.loads(self._path(key).read_bytes())
        except (FileNotFoundError, orjson.JSONDecodeError):
            return None
        self._memory[key] = result
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
            for key, result in zip(missing, self.worker.detect(list(missing.values()))):
                atomic_write_bytes(self._path(key), orjson.dumps(result, option=orjson.OPT_SORT_KEYS))
                self._memory[key] = found[key] = result
        return [found[key] for key in keys]

    @property
    def worker(self) -> ScanCodeWorker:
        if self._worker is None:
            self._worker = ScanCodeWorker(self.python, batch_size=self.batch_size)
        return self._worker

    @property
    def scancode_calls(self) -> int:
        """Texts this detector sent to ScanCode (every other answer came from the cache)."""
        return self.stats.sent

    def close(self) -> None:
        if self._worker is not None and self._worker is not self._shared_worker:
            self._worker.close()
        self._worker = None

    def __enter__(self) -> CachedDetector:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

"""Heavy per-process state (a ScanCode index, compiled regex tables, a loaded registry), built
once per worker process and reused by every shard that process runs."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

_built: dict[Hashable, Any] = {}


def per_process(key: Hashable, build: Callable[[], T]) -> T:
    """``build()`` the first time this process asks for ``key``; the same object afterwards."""
    if key not in _built:
        _built[key] = build()
    return _built[key]


def provide(key: Hashable, value: T) -> T:
    """Make ``value`` what this process gets for ``key`` (a caller's own instance, e.g. a
    benchmark's instrumented detector, for the phases that run in this process)."""
    _built[key] = value
    return value

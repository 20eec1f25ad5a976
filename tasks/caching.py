"""The cache policy every Quarry task uses: task code + the content of its inputs.

A ``Path`` input is keyed by the hash of its bytes (a file) or of its tree (a folder), so a
task re-runs when its input shard changes, not when a timestamp does; any other input is keyed
by its canonical JSON. Results persist under the project's .quarry/prefect/storage.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prefect import task
from prefect.cache_policies import TASK_SOURCE, CachePolicy

from quarry.hashing import tree_hash, value_hash


def fingerprint(value: Any) -> Any:
    """A JSON-able stand-in for a task input that changes exactly when its content does."""
    if isinstance(value, Path):
        return {"path": os.fspath(value), "content": tree_hash(value) if value.exists() else None}
    if isinstance(value, dict):
        return {str(k): fingerprint(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [fingerprint(v) for v in value]
    return value


@dataclass
class ContentInputs(CachePolicy):
    """Cache key over the content of the task's inputs (see ``fingerprint``)."""

    exclude: list[str] = field(default_factory=list)

    def compute_key(self, task_ctx, inputs: dict[str, Any], flow_parameters: dict[str, Any], **kwargs) -> str:
        kept = {name: fingerprint(value) for name, value in sorted((inputs or {}).items())
                if name not in self.exclude}
        return value_hash(kept)


CONTENT_CACHE = TASK_SOURCE + ContentInputs()

TRANSIENT = (OSError, TimeoutError, ConnectionError)


def _retry_transient(task_obj, task_run, state) -> bool:
    """Retry only errors that can pass (I/O, timeouts); a bad record fails at once."""
    try:
        state.result()
    except TRANSIENT:
        return True
    except Exception:  # noqa: BLE001
        return False
    return False


def cached_task(fn=None, /, **options):
    """@task with Quarry's defaults: content cache, persisted result, retries on transient errors."""
    defaults = dict(cache_policy=CONTENT_CACHE, persist_result=True, retries=2, retry_delay_seconds=1,
                    retry_condition_fn=_retry_transient)
    defaults.update(options)
    if fn is None:
        return functools.partial(cached_task, **defaults)
    return task(fn, **defaults)

"""The cache policy every Quarry task uses: task code + library code + the content of its inputs.

A ``Path`` input is keyed by the hash of its bytes (a file) or of its tree (a folder), so a
task re-runs when its input shard changes, not when a timestamp does; any other input is keyed
by its canonical JSON. The code part covers the task's own source and the source of the quarry
package it calls, so a change to a curation step invalidates the shards it produced. Results
persist under the project's .quarry/prefect/storage.

Every cached task declares the files it writes (``outputs=``; ``()`` for a task that only returns
values): its result then records each output's hash, and ``run_verified`` re-runs any cache hit
whose files were deleted or changed since, so a hit always means the files on disk are the ones
that run wrote. DVC deletes a stage's outputs before it runs the stage again; without this a hit
would hand the next task a path to nothing. tests/foundation/test_task_outputs.py runs every task
and fails on any file written outside its declaration.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE, TASK_SOURCE, CachePolicy
from prefect.futures import as_completed

from quarry.infra.hashing import code_version, tree_hash, value_hash
from quarry.records import JsonDict


def fingerprint(value: Any) -> Any:
    """A JSON-able stand-in for a task input that changes exactly when its content does."""
    if hasattr(value, "cache_fingerprint"):  # a value keyed by what it says of itself (quarry.engine.Keyed)
        return value.cache_fingerprint()
    if isinstance(value, Path):
        return {"path": os.fspath(value), "content": tree_hash(value) if value.exists() else None}
    if hasattr(value, "model_dump") and not isinstance(value, type):  # a typed (pydantic) config
        return {"type": type(value).__qualname__, **fingerprint(value.model_dump())}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"type": type(value).__qualname__,
                **{f.name: fingerprint(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, dict):
        return {str(k): fingerprint(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [fingerprint(v) for v in value]
    return value


@dataclass
class ContentInputs(CachePolicy):
    """Cache key over the content of the task's inputs (see ``fingerprint``) and the library code."""

    exclude: list[str] = field(default_factory=list)

    def compute_key(self, task_ctx, inputs: JsonDict, flow_parameters: JsonDict, **kwargs) -> str:
        kept = {name: fingerprint(value) for name, value in sorted((inputs or {}).items())
                if name not in self.exclude}
        return value_hash({"inputs": kept, "library": code_version()})


CONTENT_CACHE = TASK_SOURCE + ContentInputs()

TRANSIENT = (OSError, TimeoutError, ConnectionError)


def retry_transient(task_obj, task_run, state) -> bool:
    """Retry only errors that can pass (I/O, timeouts); a bad record fails at once."""
    try:
        state.result()
    except TRANSIENT:
        return True
    except Exception:  # noqa: BLE001
        return False
    return False


# What a task writes: names of its parameters that are paths it writes (files or folders), or a
# function of its bound arguments returning those paths (outputs named by a rule, not one argument).
Outputs = Sequence[str] | Callable[[JsonDict], Iterable[Any]]


def cached_task(fn=None, /, *, outputs: Outputs | None = None, **options):
    """@task with Quarry's defaults: content cache, persisted result, retries on transient errors.

    ``outputs`` is required of every cached task (see ``Outputs``); with any, the task's result
    becomes ``{"result": value, "outputs": {path: hash}}``, which only ``run_verified`` unwraps.
    """
    defaults = dict(cache_policy=CONTENT_CACHE, persist_result=True, retries=2, retry_delay_seconds=1,
                    retry_condition_fn=retry_transient)
    defaults.update(options)
    if fn is None:
        return functools.partial(cached_task, outputs=outputs, **defaults)
    if outputs is None:
        if defaults["cache_policy"] is not NO_CACHE:
            raise TypeError(f"cached task {fn.__qualname__}: declare the paths it writes (outputs=...; () for none)")
        outputs = ()
    if outputs:
        fn = _recording_outputs(fn, outputs)
    return task(fn, **defaults)


def declared_outputs(fn, arguments: JsonDict) -> list[str]:
    """The paths a task function declares it writes, for these bound arguments."""
    spec = getattr(fn, "declared_outputs", ())
    paths = spec(arguments) if callable(spec) else (arguments.get(name) for name in spec)
    # A declared parameter may hold one path or a list of paths (a batch of shards).
    flat = (p for path in paths for p in (path if isinstance(path, (list, tuple)) else [path]))
    return [os.fspath(path) for path in flat if path is not None]


def _recording_outputs(fn, outputs: Outputs):
    signature = inspect.signature(fn)

    @functools.wraps(fn)  # keeps the wrapped source for TASK_SOURCE (inspect unwraps)
    def wrapper(*args, **kwargs):
        value = fn(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        files = {path: tree_hash(path) if Path(path).exists() else None
                 for path in declared_outputs(wrapper, bound.arguments)}
        return {"result": value, "outputs": files}

    wrapper.declared_outputs = outputs
    return wrapper


def outputs_intact(result: dict) -> bool:
    return all(digest is None and not Path(path).exists() or Path(path).exists() and tree_hash(path) == digest
               for path, digest in result["outputs"].items())


def run_verified(task_obj, calls: Sequence[JsonDict], on_done: Callable[[int], None] | None = None) -> list[Any]:
    """Submit ``task_obj(**kwargs)`` for every call (in parallel on the flow's task runner) and
    return the results in order; a cache hit whose output files are missing or changed is run
    again with the cache refreshed. Only tasks that declare outputs are run this way.
    ``on_done(i)`` is called as call i finishes (progress)."""
    if not getattr(task_obj.fn, "declared_outputs", None):
        raise TypeError(f"task {task_obj.name}: declares no outputs to verify; call it directly")
    futures = [task_obj.submit(**kwargs) for kwargs in calls]
    index = {future.task_run_id: i for i, future in enumerate(futures)}
    results: list[Any] = [None] * len(futures)
    hits: list[int] = []
    for future in as_completed(futures):
        i = index[future.task_run_id]
        results[i] = future.result()
        if future.state.name == "Cached":  # a run that just wrote its files needs no second look
            hits.append(i)
        if on_done is not None:
            on_done(i)
    stale = [i for i in sorted(hits) if not outputs_intact(results[i])]
    if stale:
        refresh = task_obj.with_options(refresh_cache=True)
        redo = {i: refresh.submit(**calls[i]) for i in stale}
        for i, future in redo.items():
            results[i] = future.result()
    return [result["result"] for result in results]

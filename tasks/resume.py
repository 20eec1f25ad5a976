"""Tasks that resume: each shard (or plan item) a map task finishes leaves a record in the phase's
scratch folder (its result and the hash of every file it wrote), so a task run again after its
worker was killed or preempted skips the jobs it already finished and whose files are still as
written. The
record's key covers the phase, the job's content (its input shard's bytes, earlier results), the
typed config and the code, so a changed input or param never reuses one."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

from quarry.engine.stage import ItemJob, ShardJob
from quarry.infra.hashing import code_version, tree_hash, value_hash
from quarry.records import atomic_write_bytes
from tasks.caching import fingerprint


def run_resumable(fn: Callable[[Any, Any], Any], phase: str, job: Any, config: Any) -> tuple[Any, bool]:
    """``fn(job, config)``, or the result a finished earlier call of it recorded; and whether the
    record gave it."""
    if not isinstance(job, ShardJob | ItemJob) or not job.record:  # a global, or an uncached map's item
        return fn(job, config), False
    record_file = Path(job.record)
    record_file.parent.mkdir(parents=True, exist_ok=True)
    key = value_hash({"phase": phase, "job": fingerprint(job), "config": fingerprint(config), "code": code_version()})
    if record_file.is_file():
        record = _record(record_file)
        if record is not None and record["key"] == key and _intact(record["outputs"]):
            return pickle.loads(record["result"]), True
    result = fn(job, config)
    outputs = {path: tree_hash(path) if os.path.exists(path) else None for path in job.outputs() if path != job.record}
    # the result pickled apart: a record of other code (a result type since renamed) is read, and
    # found stale by its key, without unpickling what it returned
    atomic_write_bytes(record_file, pickle.dumps({"key": key, "outputs": outputs, "result": pickle.dumps(result)}))
    return result, False


def _record(path: Path) -> dict | None:
    """A finished call's record (key, outputs, pickled result); None for one torn by a kill or
    written in an earlier layout (the result unpickled with it, which other code may not read)."""
    try:
        record = pickle.loads(path.read_bytes())
    except (pickle.UnpicklingError, EOFError, ValueError, AttributeError, ImportError, TypeError):
        return None
    return record if isinstance(record, dict) and isinstance(record.get("result"), bytes) else None


def _intact(outputs: dict[str, str | None]) -> bool:
    return all((digest is None and not os.path.exists(path)) or (os.path.exists(path) and tree_hash(path) == digest)
               for path, digest in outputs.items())

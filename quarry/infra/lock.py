"""One writer per project: every command that writes the project's outputs holds its lock.

The lock is an OS file lock on .quarry/project.lock, which also says who holds it (pid, host,
command, start time). A second writer waits with a message naming the holder, or fails at once
(``wait=False``); the kernel releases the lock of a process that died, and the next writer takes
it over with a warning naming the dead holder. The holder's own processes (Dask workers, torchrun
ranks, a nested flow) are already inside it: the lock is re-entrant in a process, and children
inherit ``HELD`` from the environment. Read-only commands never take it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from quarry.errors import QuarryError
from quarry.paths import project_root, state_dir

HELD = "QUARRY_PROJECT_LOCK"   # the lock file this process (or its parent) holds
LOCK_FILE = "project.lock"

_depth: dict[str, int] = {}


def lock_path(root: Path | None = None) -> Path:
    return state_dir(root) / LOCK_FILE


def holder(path: Path) -> dict | None:
    """Who the lock file says holds it (None: nobody wrote it, or it was released)."""
    try:
        text = path.read_text()
    except OSError:
        return None
    try:
        return json.loads(text) if text.strip() else None
    except ValueError:
        return None


def describe(info: dict) -> str:
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.get("started", 0)))
    return f"pid {info.get('pid')} on {info.get('host')} (`{info.get('command')}`, since {started})"


@contextlib.contextmanager
def project_lock(command: str, *, wait: bool = True, root: Path | None = None) -> Iterator[None]:
    """Hold the project's writer lock for the block; ``command`` says what holds it."""
    path = lock_path(root).resolve()
    key = str(path)
    if _depth.get(key) or os.environ.get(HELD) == key:  # this process, or the one that started it
        _depth[key] = _depth.get(key, 0) + 1
        try:
            yield
        finally:
            _depth[key] -= 1
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            info = holder(path) or {}
            message = f"{path.parent.parent}: the project is being written by {describe(info)}"
            if not wait:
                raise QuarryError(f"{message}; not waiting (--no-wait)") from None
            _say(f"{message}; waiting for it to finish")
            fcntl.flock(handle, fcntl.LOCK_EX)
        if (stale := holder(path)) is not None:  # it never released the lock: it died holding it
            _say(f"taking over the project lock from {describe(stale)}, which is no longer running")
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "command": command,
                                 "started": time.time()}))
        handle.flush()
        _depth[key], previous = 1, os.environ.get(HELD)
        os.environ[HELD] = key
        try:
            yield
        finally:
            _depth[key] = 0
            if previous is None:
                os.environ.pop(HELD, None)
            else:
                os.environ[HELD] = previous
            handle.seek(0)
            handle.truncate()  # released: the next writer finds no holder to warn about
            handle.flush()
            fcntl.flock(handle, fcntl.LOCK_UN)


def _say(message: str) -> None:
    print(f"quarry: {message}", file=sys.stderr, flush=True)


def writing(dst: Path, command: str | None = None) -> contextlib.AbstractContextManager:
    """The project lock when ``dst`` lies inside the project (a command writing its outputs), else
    nothing: a stage run on folders of one's own needs no lock."""
    root = project_root()
    inside = dst.resolve() == root or root in dst.resolve().parents
    command = command or " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])
    return project_lock(command, root=root) if inside else contextlib.nullcontext()

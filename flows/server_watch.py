"""The supervisor of the project's local Prefect server (started beside it by flows.server).

The server outlives the flows by design, so something has to end it: this process stops the
server's process group when the project folder is gone, or when no flow run has been active for
params ``pipeline.server_idle_minutes``. Activity is a running or pending flow run, a flow run
that ended since the last look, a `quarry flow` that just asked for the server (it touches
server.json), or a live `quarry serve` (its pid in serve.pid). It exits when the server does.

    python -m flows.server_watch GROUP URL PROJECT_DIR STATE_DIR IDLE_SECONDS
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import time
import urllib.request
from pathlib import Path

from flows.server import group_alive, stop_group

ACTIVE = ["RUNNING", "PENDING", "CANCELLING"]


def _post(url: str, body: dict):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def last_activity(url: str) -> float | None:
    """Now when a flow run is active, else when the last one ended (None: no run yet, or no answer)."""
    try:
        if _post(f"{url}/flow_runs/count", {"flow_runs": {"state": {"type": {"any_": ACTIVE}}}}):
            return time.time()
        latest = _post(f"{url}/flow_runs/filter", {"sort": "END_TIME_DESC", "limit": 1})
    except (OSError, ValueError):
        return None
    ended = latest[0].get("end_time") if latest else None
    if not ended:
        return None
    from datetime import datetime

    return datetime.fromisoformat(ended.replace("Z", "+00:00")).timestamp()


def _recorded(state: Path) -> dict | None:
    with contextlib.suppress(OSError, ValueError):
        return json.loads((state / "server.json").read_text())
    return None


def _serving(state: Path) -> bool:
    """Whether a `quarry serve` of this project is running (it waits on the server for its schedule)."""
    with contextlib.suppress(OSError, ValueError):
        os.kill(int((state / "serve.pid").read_text()), 0)
        return True
    return False


def watch(group: int, url: str, project: Path, state: Path, idle_seconds: float) -> str:
    """Poll until the server ends or is stopped; returns why."""
    poll = max(0.5, min(10.0, idle_seconds / 4))
    last = time.time()
    while group_alive(group):
        if not project.is_dir():
            stop_group(group)
            return "project folder gone"
        with contextlib.suppress(OSError):
            last = max(last, (state / "server.json").stat().st_mtime)
        last = max(last, last_activity(url) or 0.0, time.time() if _serving(state) else 0.0)
        if time.time() - last > idle_seconds:
            with open(state / "server.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # not while a `quarry flow` is deciding to reuse it
                current = _recorded(state)
                if current is None or current.get("pid") != group:  # no longer the project's server
                    stop_group(group)
                    return "replaced"
                if (state / "server.json").stat().st_mtime <= last:
                    (state / "server.json").unlink()
                    stop_group(group)
                    return f"idle for {idle_seconds:g} s"
        time.sleep(poll)
    return "server ended"


def main(argv: list[str]) -> int:
    group, url, project, state, idle = int(argv[0]), argv[1], Path(argv[2]), Path(argv[3]), float(argv[4])
    why = watch(group, url, project, state, idle)
    if state.is_dir():
        with contextlib.suppress(OSError), open(state / "servers.log", "a") as log:
            log.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {group} stopped: {why}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

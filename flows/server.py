"""One Prefect API for every flow of a run: PREFECT_API_URL when set, else the project's local
server, started by the first `quarry flow` that needs it and reused by the next ones (all the
stages of one `dvc repro`, later runs too) instead of a temporary server per process.

Prefect reads its settings once, at import: ``ensure_api()`` refreshes them when Prefect was
imported first, so that process's flows use the project's server too.
The server's address is in .quarry/prefect/server.json; every start is appended to
servers.log. ``stop_api()`` ends it; so does its supervisor (flows.server_watch) after params
``pipeline.server_idle_minutes`` without a flow run, or when the project folder is gone.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from quarry.config.pipeline import PipelineParams
from quarry.errors import QuarryError
from quarry.config.values import load_params
from quarry.paths import project_root, state_dir
from tasks.settings import configure_prefect_env

STARTUP_SECONDS = 240
SERVER_NICENESS = 10   # the server yields the cores to the stages' workers; it catches up when they idle


def _folder() -> Path:
    folder = state_dir() / "prefect"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(folder: Path) -> dict:
    port = _free_port()
    url = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": os.environ.get("PREFECT_HOME", str(folder))}
    env.pop("PREFECT_API_URL", None)
    with open(folder / "server.out", "ab") as log:
        process = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
                                    "--port", str(port)], stdout=log, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)  # outlives this run, for the next stage
    with contextlib.suppress(OSError):  # a bookkeeper: it records the work, it must not slow it down
        os.setpriority(os.PRIO_PROCESS, process.pid, SERVER_NICENESS)
    deadline = time.monotonic() + STARTUP_SECONDS
    while not healthy(url):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise QuarryError(f"the local Prefect server did not start; see {folder / 'server.out'}")
        time.sleep(0.5)
    with open(folder / "servers.log", "a") as log:
        log.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {process.pid} {url}\n")
    _supervise(process.pid, url, folder, env)
    return {"url": url, "pid": process.pid}


def _supervise(group: int, url: str, folder: Path, env: dict) -> None:
    """Start the server's supervisor (flows.server_watch): it stops the server when idle or orphaned."""
    params = load_params() if (project_root() / "params.yaml").is_file() else None
    idle = (params.pipeline if params else PipelineParams()).server_idle_minutes
    code = str(Path(__file__).resolve().parents[1])  # the project's flows/, whatever the caller's path
    env = {**env, "PYTHONPATH": os.pathsep.join(filter(None, [code, env.get("PYTHONPATH")]))}
    with open(folder / "server.out", "ab") as log:
        subprocess.Popen([sys.executable, "-m", "flows.server_watch", str(group), url, str(project_root()),
                          str(folder), str(idle * 60 if idle else float("inf"))], stdout=log,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=folder,
                         start_new_session=True)  # not in the server's group: it outlives a stop to log it


def ensure_api() -> str:
    """The API URL flows of this process (and its Dask workers) report to; sets PREFECT_API_URL."""
    if url := os.environ.get("PREFECT_API_URL"):
        _refresh_prefect_settings()
        return url
    configure_prefect_env()  # the server's database lives in the project's Prefect home
    folder = _folder()
    state = folder / "server.json"
    with open(folder / "server.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two stages started at once share one server
        current = json.loads(state.read_text()) if state.is_file() else None
        if current is None or not healthy(current["url"]):
            current = _start(folder)
            state.write_text(json.dumps(current))
        else:
            os.utime(state)  # in use: the supervisor counts idle time from here
    os.environ["PREFECT_API_URL"] = current["url"]
    _refresh_prefect_settings()
    return current["url"]


def _refresh_prefect_settings() -> None:
    """Prefect's settings from the environment again when it was imported before they were set:
    else its flows start a temporary server of their own (seconds of start-up, and flow runs in
    another database than the task runs of the workers that got PREFECT_API_URL)."""
    if (context := sys.modules.get("prefect.context")) is not None:
        context.refresh_global_settings_context()


def running_api() -> str | None:
    """The URL of the project's local server when it answers, else None."""
    state = _folder() / "server.json"
    current = json.loads(state.read_text()) if state.is_file() else None
    return current["url"] if current and healthy(current["url"]) else None


STOP_SECONDS = 30


def stop_api() -> bool:
    """Stop the project's local server and wait until its processes are gone; False when none was
    running."""
    state = _folder() / "server.json"
    if not state.is_file():
        return False
    current = json.loads(state.read_text())
    state.unlink()
    return stop_group(current["pid"])  # the server leads its own process group (start_new_session)


def stop_group(group: int) -> bool:
    """SIGTERM the process group, SIGKILL after STOP_SECONDS; returns once its processes are gone,
    False when none was running."""
    for sig, seconds in ((signal.SIGTERM, STOP_SECONDS), (signal.SIGKILL, 5)):
        try:
            os.killpg(group, sig)
        except ProcessLookupError:
            return sig == signal.SIGKILL
        if gone_within(group, seconds):
            return True
    return True


def gone_within(group: int, seconds: float, poll: float = 0.1) -> bool:
    """Whether every process of the group has ended within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not group_alive(group):
            return True
        time.sleep(poll)
    return False


@contextlib.contextmanager
def serving():
    """Marks a `quarry serve` of this project as running: the supervisor keeps the server for it."""
    pid_file = _folder() / "serve.pid"
    pid_file.write_text(str(os.getpid()))
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            pid_file.unlink()


def group_alive(group: int) -> bool:
    """Whether a process of ``group`` still runs (zombies, already ended, do not count)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group and fields[0] != "Z":  # state, ppid, pgrp
                return True
    if not Path("/proc/self/stat").exists():  # no procfs (macOS): ask the kernel
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        return True
    return False

"""Processes a test started that outlive it, found by what they inherited.

Every process the suite starts inherits ``QUARRY_TEST_SESSION`` (this run) and ``QUARRY_TEST_NODE``
(the test being set up or run when it started, or the session or module fixture that started it).
A test's process still alive once the test is over is a leftover, except the few meant to serve
the tests after it: the pytest process's own helpers (multiprocessing's resource tracker, the
temporary Prefect server an in-process flow starts, which stops at exit) and the ScanCode server
(shared by every worker, it stops after an idle time). Those, and what fixtures of a wider scope
started, are stopped at the end of the session.
"""

from __future__ import annotations

import os
import time
import uuid

import psutil

SESSION_VAR, NODE_VAR = "QUARRY_TEST_SESSION", "QUARRY_TEST_NODE"
SESSION = uuid.uuid4().hex
SHARED_SERVICES = ("scancode_worker.py",)   # started by a test, shared by the later ones, stopped at the end
OWN_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver", "prefect.server.api.server",
               "uvicorn")                   # children of the pytest process that live as long as it
GRACE_S = 10.0                              # a process stopping as its test ends (a server's shutdown) may take this


def mark_session() -> None:
    os.environ[SESSION_VAR] = SESSION


def mark_test(node: str) -> None:
    os.environ[NODE_VAR] = node


def _ours(proc: psutil.Process, node: str | None) -> bool:
    try:
        env = proc.environ()
    except (psutil.Error, OSError):
        return False
    return env.get(SESSION_VAR) == SESSION and (node is None or env.get(NODE_VAR) == node)


def _shared(proc: psutil.Process) -> bool:
    try:
        return any(name in part for part in proc.cmdline() for name in SHARED_SERVICES)
    except psutil.Error:
        return False


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _own_helper(proc: psutil.Process) -> bool:
    try:
        return proc.ppid() == os.getpid() and any(name in part for part in proc.cmdline() for name in OWN_HELPERS)
    except psutil.Error:
        return False


def session_processes(since: float = 0.0, node: str | None = None) -> list[psutil.Process]:
    """Live processes of this session started after ``since`` (and by the test ``node``), this one aside."""
    found = []
    for proc in psutil.process_iter(["create_time"]):
        if proc.pid == os.getpid() or (proc.info["create_time"] or 0) < since - 1:
            continue
        if _ours(proc, node) and _alive(proc):
            found.append(proc)
    return found


def left_by(node: str, since: float, grace: float = GRACE_S) -> list[psutil.Process]:
    """The test's processes still alive after it (the services meant to outlive it aside), once they
    had ``grace`` seconds to finish stopping."""
    deadline = time.monotonic() + grace
    while True:
        left = [p for p in session_processes(since, node) if not _own_helper(p) and not _shared(p)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.5)


def describe(procs: list[psutil.Process]) -> str:
    out = []
    for proc in procs:
        try:
            out.append(f"pid {proc.pid} ({' '.join(proc.cmdline())[:160]})")
        except psutil.Error:
            out.append(f"pid {proc.pid}")
    return "; ".join(out)


def stop(procs: list[psutil.Process]) -> None:
    for proc in procs:
        try:
            proc.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(procs, timeout=5)
    for proc in alive:
        try:
            proc.kill()
        except psutil.Error:
            pass

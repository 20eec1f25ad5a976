"""Helpers for tests that start a real local server (prefect, mlflow) or a torchrun rendezvous."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url: str, process: subprocess.Popen, timeout: float = 240,
                 describe: Callable[[], str] = lambda: "") -> None:
    """Poll ``url``/health until it answers 200; fail if the server exits or the time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None:
            raise AssertionError(f"server for {url} exited before it was healthy. {describe()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"server at {url} not healthy after {timeout} s. {describe()}")
        time.sleep(0.5)

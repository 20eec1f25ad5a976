"""Client of the ScanCode worker: a process in ScanCode's own virtualenv, spoken to in JSON lines.

The worker (scancode_worker.py, shipped beside this module and run by path) holds ScanCode's license
index; ``detect`` sends texts in batches. The interpreter comes from QUARRY_SCANCODE_PYTHON, else
the path setup recorded in the project's environment (<sys.prefix>/quarry-scancode-python), else
<project>/.venv-scancode/bin/python.

One index per machine: a worker is a connection to a ScanCode server (scancode_worker.py --serve)
that loaded the index once and forks a child per connection, the children sharing its pages. The
server listens on a Unix socket in a folder of this user's under the temp folder (or
QUARRY_SCANCODE_RUNTIME), one per ScanCode interpreter, version and worker code; the first worker
that finds none running starts it, under a lock file, so workers starting together start one. It
exits QUARRY_SCANCODE_IDLE_S seconds (default 120) after its last connection closed, or when its
socket file goes. QUARRY_SCANCODE_SERVER=0, or where a process cannot fork, gives the old direct
worker: a subprocess loading its own index.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TypeAlias

from quarry.errors import QuarryError
from quarry.paths import project_root

# What ScanCode says of one text (its license detections, matches and scores), cached by the
# text's hash: ScanCode's own JSON shape, read by quarry.curation.licenses.findings.
Detection: TypeAlias = dict[str, Any]

WORKER_SCRIPT = Path(__file__).with_name("scancode_worker.py")
SETUP_HINT = ("create it with: python3.11 -m venv .venv-scancode && "
              ".venv-scancode/bin/pip install scancode-toolkit==32.5.0 'pluggy<1.6' "
              "(or point QUARRY_SCANCODE_PYTHON at a Python that has ScanCode)")


class ScanCodeError(QuarryError):
    """ScanCode is missing, failed to start, or failed on a request."""


# setup.sh writes the interpreter it built here, inside the project's environment, so ScanCode is
# found from wherever `quarry` runs, not only from the project folder.
RECORDED_PYTHON = Path(sys.prefix) / "quarry-scancode-python"


def scancode_python() -> Path:
    """The interpreter of ScanCode's virtualenv: QUARRY_SCANCODE_PYTHON, else the one setup
    recorded in this environment, else <project>/.venv-scancode; a clear error when there is none."""
    if env := os.environ.get("QUARRY_SCANCODE_PYTHON"):
        path = Path(env)
        if not path.exists():
            raise ScanCodeError(f"QUARRY_SCANCODE_PYTHON={env}: no such interpreter; {SETUP_HINT}")
        return path
    if RECORDED_PYTHON.is_file():
        path = Path(RECORDED_PYTHON.read_text(encoding="utf-8").strip())
        if path.exists():
            return path
    path = project_root() / ".venv-scancode" / "bin" / "python"
    if not path.exists():
        raise ScanCodeError(f"ScanCode virtualenv not found at {path.parent.parent}; {SETUP_HINT}")
    return path


def scancode_version(python: Path | None = None) -> str:
    """The installed scancode-toolkit version, read from its dist-info without starting Python."""
    python = python or scancode_python()
    prefix = Path(os.path.abspath(python)).parent.parent  # keep the venv path: do not resolve the symlink
    for dist in sorted(prefix.glob("lib/python3*/site-packages/scancode_toolkit-*.dist-info")):
        return dist.name[len("scancode_toolkit-"):-len(".dist-info")]
    return "unknown"


def server_enabled() -> bool:
    """Workers connect to the machine's ScanCode server, unless QUARRY_SCANCODE_SERVER=0 or this
    platform cannot fork a server's children (then each worker is a subprocess of its own)."""
    if os.environ.get("QUARRY_SCANCODE_SERVER", "1").strip().lower() in ("0", "no", "off", "false"):
        return False
    return hasattr(os, "fork") and hasattr(socket, "AF_UNIX")


def idle_seconds() -> float:
    """How long the ScanCode server waits for a connection after its last one closed."""
    try:
        return max(1.0, float(os.environ.get("QUARRY_SCANCODE_IDLE_S", "120")))
    except ValueError:
        return 120.0


def server_folder(python: Path | None = None) -> Path:
    """The folder of the ScanCode server for ``python``: this user's, keyed by the interpreter, the
    installed ScanCode version and the worker's code (a changed worker never serves old code)."""
    python = python or scancode_python()
    version = scancode_version(python)
    key = hashlib.sha256(b"\0".join([os.path.abspath(python).encode(), version.encode(),
                                      WORKER_SCRIPT.read_bytes()])).hexdigest()[:12]
    base = Path(os.path.abspath(os.environ.get("QUARRY_SCANCODE_RUNTIME") or tempfile.gettempdir()))
    return base / f"quarry-scancode-server-{os.getuid()}" / f"{version}-{key}"


def _private_folder(folder: Path) -> Path:
    """``folder`` and its parent made if need be, both this user's alone (the temp folder is shared)."""
    folder.parent.parent.mkdir(parents=True, exist_ok=True)
    for path in (folder.parent, folder):
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            pass
        info = os.lstat(path)
        if not os.path.isdir(path) or os.path.islink(path) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise ScanCodeError(f"ScanCode server folder {path} is not this user's private folder; remove it "
                                "or set QUARRY_SCANCODE_RUNTIME")
    return folder


MAX_SOCKET_PATH = 100  # a socket address holds 108 bytes


def _connect(path: Path) -> socket.socket | None:
    """A connection to the server listening on ``path``; None when none listens there. A path too
    long for a socket address is reached through its folder's descriptor (/proc/self/fd/N/sock), as
    the server binds it (scancode_worker.bind_long)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    folder = None
    try:
        address = str(path)
        if len(os.fsencode(address)) > MAX_SOCKET_PATH:
            folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
            address = f"/proc/self/fd/{folder}/{path.name}"
        sock.connect(address)
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.ENOENT, errno.ECONNREFUSED, errno.ENOTSOCK):
            return None
        raise ScanCodeError(f"cannot connect to the ScanCode server at {path}: {exc}") from None
    finally:
        if folder is not None:
            os.close(folder)
    return sock


# Servers this process started: kept so that their Popen objects are reaped, not warned about.
_STARTED: list[subprocess.Popen] = []


class ScanCodeWorker:
    """One ScanCode worker: a connection to the machine's ScanCode server (started if none runs), or
    with ``shared=False`` (or QUARRY_SCANCODE_SERVER=0) a subprocess loading its own index. Use as a
    context manager, or call ``close()``."""

    HELLO_TIMEOUT_S = 60.0  # a server that accepted a connection answers its hello at once

    def __init__(self, python: Path | None = None, batch_size: int = 64, *, plain: bool = False,
                 shared: bool | None = None):
        """``plain``: ScanCode's full matching for every text, without the exact-match shortcut
        (scancode_worker.settled): what bench/licenses.py compares answers with."""
        self.python = python or scancode_python()
        self.batch_size = max(1, batch_size)
        self.plain = plain
        self.calls = 0  # texts sent to ScanCode (a cache hit never counts here)
        self.shared = server_enabled() if shared is None else bool(shared)
        self.started_server = False  # this worker started the server (and waited for its index)
        self._proc: subprocess.Popen | None = None
        self._sock: socket.socket | None = None
        self._stderr = None
        if self.shared:
            hello = self._open_shared()
        else:
            hello = self._open_direct()
        self.version = hello.get("version", "unknown")
        self.pid = int(hello.get("pid") or (self._proc.pid if self._proc else 0))
        self.server_pid = hello.get("server_pid")
        # the seconds this worker waited for an index: the load of its own, or of the server it started
        self.index_seconds = float(hello.get("index_seconds", 0.0))
        if self.started_server:
            self.index_seconds = float(hello.get("server_index_seconds", 0.0))

    def _open_direct(self) -> dict:
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            self._proc = subprocess.Popen(
                [str(self.python), str(WORKER_SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self._stderr, text=True, encoding="utf-8", bufsize=1,
            )
        except OSError as exc:
            raise ScanCodeError(f"cannot start ScanCode worker with {self.python}: {exc}") from None
        self._reader, self._writer = self._proc.stdout, self._proc.stdin
        hello = self._receive()
        if not hello.get("ready"):
            raise ScanCodeError(f"ScanCode worker did not start: {hello}")
        return hello

    def _open_shared(self) -> dict:
        folder = _private_folder(server_folder(self.python))
        path = folder / "sock"
        sock = _connect(path)
        if sock is not None and (hello := self._handshake(sock)) is not None:
            return hello
        with open(folder / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # workers starting together start one server
            for _ in range(3):  # a server ending at its idle time may drop a connection it had not taken
                sock = _connect(path)
                if sock is None:
                    self._start_server(folder, path)
                    sock = _connect(path)
                    if sock is None:
                        raise ScanCodeError(f"ScanCode server started but does not listen at {path}: "
                                            f"{_log_tail(folder)}")
                if (hello := self._handshake(sock)) is not None:
                    return hello
        raise ScanCodeError(f"ScanCode server at {path} accepts connections but does not answer: {_log_tail(folder)}")

    def _handshake(self, sock: socket.socket) -> dict | None:
        """The child's hello on a new connection; None when the server closed it unanswered."""
        sock.settimeout(self.HELLO_TIMEOUT_S)
        reader = sock.makefile("r", encoding="utf-8", newline="\n")
        try:
            line = reader.readline()
        except OSError:
            line = ""
        if not line:
            reader.close()
            sock.close()
            return None
        sock.settimeout(None)
        hello = json.loads(line)
        if not hello.get("ready"):
            raise ScanCodeError(f"ScanCode worker did not start: {hello}")
        self._sock, self._reader = sock, reader
        self._writer = sock.makefile("w", encoding="utf-8", newline="\n")
        return hello

    def _start_server(self, folder: Path, path: Path) -> None:
        """Start the server (the lock held) and wait until it listens: it loads the index first."""
        log = folder / "server.log"
        with open(log, "wb") as stderr:
            try:
                server = subprocess.Popen(
                    [os.path.abspath(self.python), str(WORKER_SCRIPT.resolve()), "--serve", str(path),
                     "--idle", str(idle_seconds())],
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, text=True, encoding="utf-8",
                    cwd="/", start_new_session=True,  # not in this process's group: other workers use it
                )
            except OSError as exc:
                raise ScanCodeError(f"cannot start ScanCode worker with {self.python}: {exc}") from None
        _STARTED[:] = [p for p in _STARTED if p.poll() is None] + [server]
        line = server.stdout.readline()
        server.stdout.close()
        ready = json.loads(line) if line.strip() else {}
        if not ready.get("ready"):
            server.wait(timeout=30)
            raise ScanCodeError(f"ScanCode worker did not start (server exited with code {server.returncode}): "
                                f"{ready.get('error') or _log_tail(folder)}; {SETUP_HINT}")
        self.started_server = True

    def detect(self, texts: list[str]) -> list[Detection]:
        """Raw ScanCode results for ``texts``, in order, sent ``batch_size`` at a time."""
        results: list[Detection] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start:start + self.batch_size]
            self._send({"op": "detect", "texts": batch, "plain": self.plain})
            reply = self._receive()
            if not reply.get("ok"):
                raise ScanCodeError(f"ScanCode failed on a batch: {reply.get('error')}")
            results.extend(reply["results"])
            self.calls += len(batch)
        return results

    def settles(self, texts: list[str]) -> list[bool]:
        """For each text, whether exact matching settles it (scancode_worker.settled): the texts a
        detection answers without approximate matching."""
        settled: list[bool] = []
        for start in range(0, len(texts), self.batch_size):
            self._send({"op": "settles", "texts": texts[start:start + self.batch_size]})
            reply = self._receive()
            if not reply.get("ok"):
                raise ScanCodeError(f"ScanCode failed on a batch: {reply.get('error')}")
            settled.extend(reply["settled"])
        return settled

    def cpu_seconds(self) -> float:
        """CPU seconds the process serving this worker has used (Linux /proc; 0 where unreadable)."""
        return process_cpu_seconds(self.pid)

    def _send(self, message: dict) -> None:
        try:
            self._writer.write(json.dumps(message) + "\n")
            self._writer.flush()
        except (BrokenPipeError, OSError):
            raise ScanCodeError(f"ScanCode worker exited: {self._stderr_tail()}") from None

    def _receive(self) -> dict:
        try:
            line = self._reader.readline()
        except OSError:
            line = ""
        if not line:
            if self._proc is not None:
                self._proc.wait(timeout=30)
                raise ScanCodeError(f"ScanCode worker exited with code {self._proc.returncode}: "
                                    f"{self._stderr_tail()}")
            raise ScanCodeError(f"ScanCode worker exited: {self._stderr_tail()}")
        return json.loads(line)

    def _stderr_tail(self, limit: int = 800) -> str:
        if self._stderr is None:  # a server's child: its errors go to the server's log
            return _log_tail(server_folder(self.python), limit)
        self._stderr.seek(0)
        text = self._stderr.read().decode("utf-8", "replace").strip()
        return text[-limit:] or "(no output)"

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._send({"op": "quit"})
            except ScanCodeError:
                pass
            for stream in (self._writer, self._reader, self._sock):
                try:
                    stream.close()
                except OSError:
                    pass
            self._sock = None
        if self._proc is not None:
            if self._proc.poll() is None:
                try:
                    self._send({"op": "quit"})
                    self._proc.stdin.close()
                    self._proc.wait(timeout=30)
                except (ScanCodeError, subprocess.TimeoutExpired):
                    self._proc.kill()
                    self._proc.wait()
            if self._stderr is not None:
                self._stderr.close()

    def __enter__(self) -> ScanCodeWorker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _log_tail(folder: Path, limit: int = 800) -> str:
    try:
        text = (folder / "server.log").read_bytes().decode("utf-8", "replace").strip()
    except OSError:
        return "(no server log)"
    return text[-limit:] or "(no output)"


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux /proc; 0 where unreadable)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

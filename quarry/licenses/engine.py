"""Client of the ScanCode worker: a long-lived subprocess in ScanCode's own virtualenv.

The worker (scancode_worker.py, shipped beside this module and run by path) loads the license
index once; ``detect`` sends texts in batches over JSON lines. The interpreter comes from
QUARRY_SCANCODE_PYTHON, else the path setup recorded in the project's environment
(<sys.prefix>/quarry-scancode-python), else <project>/.venv-scancode/bin/python.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TypeAlias

from quarry.errors import QuarryError
from quarry.paths import project_root

# What ScanCode says of one text (its license detections, matches and scores), cached by the
# text's hash: ScanCode's own JSON shape, read by quarry.licenses.findings.
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


class ScanCodeWorker:
    """One ScanCode worker process. Use as a context manager, or call ``close()``."""

    def __init__(self, python: Path | None = None, batch_size: int = 64, *, plain: bool = False):
        """``plain``: ScanCode's full matching for every text, without the exact-match shortcut
        (scancode_worker.settled): what bench/licenses.py compares answers with."""
        self.python = python or scancode_python()
        self.batch_size = max(1, batch_size)
        self.plain = plain
        self.calls = 0  # texts sent to ScanCode (a cache hit never counts here)
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            self._proc = subprocess.Popen(
                [str(self.python), str(WORKER_SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self._stderr, text=True, encoding="utf-8", bufsize=1,
            )
        except OSError as exc:
            raise ScanCodeError(f"cannot start ScanCode worker with {self.python}: {exc}") from None
        hello = self._receive()
        if not hello.get("ready"):
            raise ScanCodeError(f"ScanCode worker did not start: {hello}")
        self.version = hello.get("version", "unknown")
        self.index_seconds = float(hello.get("index_seconds", 0.0))

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

    def _send(self, message: dict) -> None:
        try:
            self._proc.stdin.write(json.dumps(message) + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise ScanCodeError(f"ScanCode worker exited: {self._stderr_tail()}") from None

    def _receive(self) -> dict:
        line = self._proc.stdout.readline()
        if not line:
            self._proc.wait(timeout=30)
            raise ScanCodeError(f"ScanCode worker exited with code {self._proc.returncode}: {self._stderr_tail()}")
        return json.loads(line)

    def _stderr_tail(self, limit: int = 800) -> str:
        self._stderr.seek(0)
        text = self._stderr.read().decode("utf-8", "replace").strip()
        return text[-limit:] or "(no output)"

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                self._send({"op": "quit"})
                self._proc.stdin.close()
                self._proc.wait(timeout=30)
            except (ScanCodeError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        self._stderr.close()

    def __enter__(self) -> ScanCodeWorker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

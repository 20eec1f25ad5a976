"""Temporary files beside their destination, created with the user's umask.

``tempfile.mkstemp`` creates files mode 0600; renamed into place they would stay unreadable to a
colleague on a shared disk. Every file Quarry writes atomically starts here instead.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    with _UMASK_LOCK:  # reading the umask means setting it; keep the window closed to other threads
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def temp_beside(path: str | os.PathLike) -> tuple[int, Path]:
    """An open descriptor and the path of a new hidden temp file in ``path``'s folder, with the
    mode an ordinary ``open(path, "w")`` would give (0666 less the umask)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.fchmod(fd, 0o666 & ~current_umask())
    return fd, Path(tmp)

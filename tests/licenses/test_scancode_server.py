"""The machine's ScanCode server: one index load shared by every worker (forked children), the
same answers as a direct worker's, a killed client that harms no one else, an exit when idle or
when its socket file goes, and a stale socket file recovered from. Real ScanCode, real processes."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from licenses_helpers import needs_scancode
from quarry.curation.licenses.engine import ScanCodeWorker, server_folder

pytestmark = needs_scancode
REPO = Path(__file__).resolve().parents[2]


def alive(pid: int) -> bool:
    """A running process (a zombie, ended but not yet reaped, is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.fixture
def runtime(monkeypatch):
    """A server folder of the test's own (short: a socket path holds 108 bytes); removing it at the
    end ends any server still listening there."""
    folder = tempfile.mkdtemp(prefix="qsc-", dir="/tmp")
    monkeypatch.setenv("QUARRY_SCANCODE_RUNTIME", folder)
    monkeypatch.delenv("QUARRY_SCANCODE_SERVER", raising=False)
    yield Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


def real_texts(license_texts) -> list[str]:
    """Licence texts and headers: ScanCode's own data, the machine's common licences, notices
    that need approximate matching (a notice with a second licence, a reworded one)."""
    texts = [license_texts(key) for key in ("mit", "apache-2.0", "bsd-new", "isc")]
    common = Path("/usr/share/common-licenses")
    texts += [(common / name).read_text(encoding="utf-8") for name in ("Apache-2.0", "BSD", "MPL-2.0")
              if (common / name).is_file()]
    texts += [
        "SPDX-License-Identifier: GPL-2.0-or-later",
        "This library is free software; you can redistribute it and/or modify it under the terms of the "
        "GNU Lesser General Public License as published by the Free Software Foundation; either version "
        "2.1 of the License, or (at your option) any later version.\n\nPermission to use, copy, modify "
        "and distribute this software is hereby granted, provided that the above notice appears in all "
        "copies.",
        "Licensed under the Apache License, Version 2.0 (the \"License\"); you may not use this file except "
        "in compliance with the License. Some parts are under the MIT license instead.",
    ]
    return texts


def test_workers_share_one_server_and_answer_as_a_direct_worker(runtime, license_texts):
    texts = real_texts(license_texts)
    direct = {}

    def run_direct():  # its own index, loaded beside the server's
        with ScanCodeWorker(shared=False, batch_size=4) as worker:
            direct["results"] = worker.detect(texts)
            worker.plain = True
            direct["plain"] = worker.detect(texts[-2:])

    thread = threading.Thread(target=run_direct)
    thread.start()
    try:
        first = ScanCodeWorker(batch_size=4)
        second = ScanCodeWorker(batch_size=4)
        with first, second:
            assert first.shared and second.shared
            assert first.started_server and not second.started_server
            assert first.server_pid == second.server_pid and first.pid != second.pid
            assert first.index_seconds > 0.5  # it waited for the server's load
            assert second.index_seconds == 0.0  # the index was there already
            assert (runtime / server_folder().relative_to(runtime) / "sock").is_socket()
            ours, theirs = first.detect(texts), second.detect(texts)
            second.plain = True
            plain = second.detect(texts[-2:])
    finally:
        thread.join()
    assert ours == theirs == direct["results"]
    assert plain == direct["plain"]
    assert [r["spdx"] for r in ours[:4]] == ["MIT", "Apache-2.0", "BSD-3-Clause", "ISC"]


CLIENT = """
import json, sys, time
from quarry.curation.licenses.engine import ScanCodeWorker
worker = ScanCodeWorker()
print(json.dumps({"pid": worker.pid, "server_pid": worker.server_pid, "started": worker.started_server}), flush=True)
worker.detect(["SPDX-License-Identifier: MIT"])
time.sleep(float(sys.argv[1]))
"""


def client(seconds: float = 60, cores: set[int] | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, "-c", CLIENT, str(seconds)], stdout=subprocess.PIPE, text=True,
                            env=env, preexec_fn=(lambda: os.sched_setaffinity(0, cores)) if cores else None)


def test_a_killed_client_harms_neither_the_server_nor_other_clients(runtime, monkeypatch):
    """Nor does the server's end when its socket file is removed: each child serves its client. A
    child runs on its client's cores, not on those of the process that started the server."""
    monkeypatch.setenv("QUARRY_SCANCODE_IDLE_S", "2")
    pinned = set(sorted(os.sched_getaffinity(0))[:1])
    other = client(cores=pinned)  # it starts the server, pinned to one core
    try:
        hello = json.loads(other.stdout.readline())
        assert hello["started"]
        with ScanCodeWorker() as worker:
            assert not worker.started_server and worker.server_pid == hello["server_pid"]
            assert os.sched_getaffinity(hello["pid"]) == pinned
            assert os.sched_getaffinity(worker.pid) == os.sched_getaffinity(0)
            other.kill()
            other.wait()
            assert gone_within(hello["pid"], 10)  # its child ended with its connection
            assert alive(worker.server_pid)
            assert worker.detect(["SPDX-License-Identifier: MIT"])[0]["spdx"] == "MIT"
            # its socket file removed, the server ends at once; the children it forked go on serving
            shutil.rmtree(runtime)
            assert gone_within(worker.server_pid, 10)
            assert worker.detect(["SPDX-License-Identifier: Apache-2.0"])[0]["spdx"] == "Apache-2.0"
        assert gone_within(worker.pid, 10)
    finally:
        other.kill()
        other.wait()


def test_a_stale_socket_is_recovered_from_and_the_server_exits_when_idle(runtime, monkeypatch):
    """A socket file nothing listens on (a server killed outright leaves one) is replaced by a new
    server; that server exits when it has had no client for QUARRY_SCANCODE_IDLE_S seconds, its socket
    file and scratch folder gone with it. Its folder here is deeper than a socket address can name."""
    monkeypatch.setenv("QUARRY_SCANCODE_IDLE_S", "2")
    monkeypatch.setenv("TMPDIR", str(runtime))  # the server's scratch folder goes here
    monkeypatch.setattr(tempfile, "tempdir", str(runtime))
    monkeypatch.setenv("QUARRY_SCANCODE_RUNTIME", str(runtime / ("a-deep-folder-" * 6)))
    folder = server_folder()
    assert len(str(folder / "sock")) > 108
    folder.mkdir(parents=True, mode=0o700)
    folder.parent.chmod(0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    handle = os.open(folder, os.O_RDONLY)
    stale.bind(f"/proc/self/fd/{handle}/sock")
    os.close(handle)
    stale.close()  # the file stays, refusing connections
    with ScanCodeWorker() as worker:
        assert worker.started_server
        assert worker.detect(["SPDX-License-Identifier: MIT"])[0]["spdx"] == "MIT"
        scratch = [p for p in runtime.iterdir() if p.name.startswith("quarry-scancode-") and p != folder.parent]
        assert len(scratch) == 1 and any(scratch[0].iterdir())  # ScanCode's own temp folder is inside
        time.sleep(2.5)  # longer than the idle time: a connected client keeps the server
        assert alive(worker.server_pid)
    assert gone_within(worker.server_pid, 10)
    assert not (folder / "sock").exists()
    assert not scratch[0].exists()


@pytest.mark.slow  # two processes start together: one loads the index
def test_workers_starting_together_start_one_server(runtime):
    clients = [client(5) for _ in range(2)]
    hellos = [json.loads(c.stdout.readline()) for c in clients]
    for c in clients:
        c.wait(timeout=60)
    assert hellos[0]["server_pid"] == hellos[1]["server_pid"]
    assert sorted(h["started"] for h in hellos) == [False, True]


def test_a_python_without_scancode_is_a_clear_error(runtime, monkeypatch):
    from quarry.curation.licenses.engine import ScanCodeError

    monkeypatch.setenv("QUARRY_SCANCODE_PYTHON", sys.executable)  # Quarry's: no ScanCode there
    with pytest.raises(ScanCodeError, match="ScanCode worker did not start.*licensedcode"):
        ScanCodeWorker()

"""The ScanCode worker: found from the installation, not from the folder `quarry` runs in; it leaves
nothing in the temp folder."""

import os
import subprocess
import sys
import tempfile

from quarry.curation.licenses.engine import RECORDED_PYTHON, ScanCodeWorker

SCRIPT = """
from quarry.curation.licenses.engine import ScanCodeWorker
with ScanCodeWorker() as worker:
    print(worker.python)
    print(worker.detect(["SPDX-License-Identifier: MIT"])[0])
"""


def test_scancode_found_from_a_folder_outside_the_project(tmp_path):
    assert RECORDED_PYTHON.is_file(), "scripts/setup.sh records ScanCode's interpreter in the environment"
    env = {k: v for k, v in os.environ.items() if k not in ("QUARRY_SCANCODE_PYTHON", "QUARRY_HOME")}
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    python, result = done.stdout.splitlines()[:2]
    assert python == RECORDED_PYTHON.read_text(encoding="utf-8").strip()
    assert "mit" in result.lower()


def test_a_worker_leaves_no_temp_folder_behind(monkeypatch, tmp_path):
    """ScanCode creates a temp folder on import; the direct worker's scratch folder holds it and goes
    with the worker, after a quit and after its parent closed the pipe without one (the parent died).
    (The server's goes with the server: test_scancode_server.)"""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with ScanCodeWorker(shared=False) as worker:
        assert worker.detect(["SPDX-License-Identifier: MIT"])[0]
        scratch = list(tmp_path.iterdir())
        assert [p.name.startswith("quarry-scancode-") for p in scratch] == [True]
        assert any(scratch[0].iterdir())  # ScanCode's own folder is inside it
    assert list(tmp_path.iterdir()) == []

    orphan = ScanCodeWorker(shared=False)
    assert list(tmp_path.iterdir())
    orphan._proc.stdin.close()  # what the parent's death does to the pipe
    orphan._proc.wait(timeout=60)
    assert list(tmp_path.iterdir()) == []
    orphan.close()

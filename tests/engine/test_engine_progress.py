"""Progress a user can watch: plain lines in a log, a bar on a real pseudo-terminal, and a
progress artifact per phase in Prefect, from real stage runs."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import quarry.infra.progress
from quarry.engine import run_local, run_stage
from quarry.records import write_records
from quarry.stages.filters import FILTERS

REPO = Path(__file__).resolve().parents[2]
TEXT = "def value(x):\n    return [x * i for i in range(10)]\n"


def shards(folder: Path, n: int = 6) -> Path:
    for i in range(n):
        write_records(folder / f"part-{i:05d}.jsonl.zst",
                      [{"text": TEXT * (j + 2) + f"# {i} {j}\n", "meta": {"id": f"{i}-{j}", "language": "Python",
                                                                           "path": f"m{j}.py"}} for j in range(20)])
    return folder


def test_a_long_phase_logs_plain_lines_with_rate_and_eta(tmp_path, monkeypatch):
    monkeypatch.setattr(quarry.infra.progress, "PLAIN_EVERY_S", 0.0)  # every shard counts as long here
    lines: list[str] = []
    run_local(FILTERS, shards(tmp_path / "src"), tmp_path / "out", {}, echo=lines.append)
    progress = [line for line in lines if line.startswith("filters: ") and "/6" in line]
    assert progress, lines
    assert any("MB/s" in line and "ETA" in line for line in progress)
    assert progress[-1].startswith("filters: filter: 6/6") and " in " in progress[-1]


def test_a_terminal_shows_a_bar(tmp_path):
    src = shards(tmp_path / "src")
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "120", "TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "quarry", "filter", str(src), str(tmp_path / "out")],
                            stdin=follower, stdout=follower, stderr=follower, env=env, cwd=tmp_path)
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:   # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=120) == 0, seen.decode(errors="replace")[-2000:]
    text = seen.decode(errors="replace")
    assert "filters: filter" in text and "/6" in text and "\x1b[" in text   # drawn, with cursor codes


def test_a_prefect_run_has_a_progress_artifact_per_phase(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    from prefect import flow
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    from tasks.executor import PrefectExecutor

    @flow(name="progress-test")
    def filters(src: str, dst: str) -> dict:
        return run_stage(FILTERS, Path(src), Path(dst), {}, PrefectExecutor()).result

    filters(str(shards(tmp_path / "src")), str(tmp_path / "out"))
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["filters-filter-progress"])))
    assert found and found[0].type == "progress" and float(found[0].data) == 100.0

"""A stage's output is swapped in whole: a re-run never keeps shards of an earlier input, a failed
or killed run leaves the previous complete output, and files follow the user's umask."""

from __future__ import annotations

import os
import random
import signal
import string
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from engine_corpus import MODULES, STDLIB, tree

from quarry.engine import run_local
from quarry.errors import QuarryError
from quarry.records import write_records
from quarry.stages.filters import FILTERS


def shards(folder: Path, n: int) -> Path:
    for i in range(n):
        text = (STDLIB / MODULES[i]).read_text(encoding="utf-8")
        write_records(folder / f"part-{i:05d}.jsonl.zst", [{"text": text, "meta": {"id": str(i), "language": "Python"}}])
    return folder


def test_rerun_with_fewer_shards_keeps_none_of_the_earlier_ones(tmp_path):
    run_local(FILTERS, shards(tmp_path / "three", 3), tmp_path / "out", {})
    assert {p.name for p in (tmp_path / "out").glob("part-*")} == {f"part-{i:05d}.jsonl.zst" for i in range(3)}
    ledger = run_local(FILTERS, shards(tmp_path / "two", 2), tmp_path / "out", {})
    assert ledger["input"] == 2
    assert sorted(tree(tmp_path / "out")) == ["ledger.json", "part-00000.jsonl.zst", "part-00001.jsonl.zst",
                                              "provenance.json", "rejects/part-00000.jsonl.zst",
                                              "rejects/part-00001.jsonl.zst"]


def test_failed_run_leaves_the_previous_complete_output(tmp_path):
    src = shards(tmp_path / "src", 3)
    run_local(FILTERS, src, tmp_path / "out", {})
    before = tree(tmp_path / "out")
    shards(tmp_path / "src", 2)
    (src / "part-00002.jsonl.zst").write_bytes(b"not zstd at all")  # the last shard fails to read
    with pytest.raises(QuarryError):
        run_local(FILTERS, src, tmp_path / "out", {})
    assert tree(tmp_path / "out") == before


def test_killed_run_leaves_the_previous_complete_output(tmp_path):
    src = shards(tmp_path / "src", 4)
    out = tmp_path / "out"
    run_local(FILTERS, src, out, {})
    before = tree(out)
    for shard in src.glob("part-*"):  # new input: every output shard must change
        shard.write_bytes(b"")
    shards(tmp_path / "src", 4)
    write_records(src / "part-00000.jsonl.zst", [{"text": "x = 1\n" * 50, "meta": {"id": "new"}}])
    # The process kills itself with SIGKILL after its second shard: no cleanup code runs.
    script = textwrap.dedent(f"""
        import os, signal
        from quarry.stages.filters import FILTERS, filter_shard_phase
        from quarry.engine import LocalExecutor, Map, Written, run_stage
        import dataclasses
        done = []
        def dying(job, config):
            result = filter_shard_phase(job, config)
            done.append(job.name)
            if len(done) == 2:
                os.kill(os.getpid(), signal.SIGKILL)
            return result
        stage = dataclasses.replace(FILTERS, phases=(Map("filter", dying, Written, writes=True),))
        run_stage(stage, {str(src)!r}, {str(out)!r}, {{}}, LocalExecutor(1))
    """)
    run = subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert run.returncode == -signal.SIGKILL
    assert tree(out) == before
    assert (tmp_path / ".out.staging").is_dir()  # finished shards wait there for the next run
    ledger = run_local(FILTERS, src, out, {})
    assert ledger["input"] == 4 and tree(out) != before


def test_files_follow_the_umask(tmp_path):
    src = shards(tmp_path / "src", 1)
    old = os.umask(0o022)
    try:
        script = ("from quarry.engine import run_local; from quarry.stages.filters import FILTERS; "
                  f"run_local(FILTERS, {str(src)!r}, {str(tmp_path / 'out')!r}, {{}})")
        subprocess.run([sys.executable, "-c", script], check=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    finally:
        os.umask(old)
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file():
            assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


def test_a_stage_never_has_more_tasks_than_its_budget():
    from tasks.batching import TASKS_PER_STAGE, batches

    jobs = list(range(125_000))  # 1 TB of 8 MB shards
    grouped = batches(jobs, TASKS_PER_STAGE)
    assert len(grouped) <= TASKS_PER_STAGE and [j for batch in grouped for j in batch] == jobs
    assert batches(jobs[:3], TASKS_PER_STAGE, workers=2) == [[0], [1], [2]]  # few shards: one task each
    # more shards than a few per worker: consecutive shards share a task, 4 tasks per worker, even sizes
    grouped = batches(jobs[:33], TASKS_PER_STAGE, workers=2)
    assert [len(batch) for batch in grouped] == [5] + [4] * 7 and sum(grouped, []) == jobs[:33]
    assert len(batches(jobs, TASKS_PER_STAGE, workers=1000)) == TASKS_PER_STAGE


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs (root may mount one); without it, the test injects ENOSPC instead."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)],
                             capture_output=True).returncode == 0
    yield disk, mounted
    if mounted:
        subprocess.run(["umount", str(disk)], check=True)


def incompressible(folder: Path, n: int, size: int) -> Path:
    """Shards of random words (which zstd cannot shrink much) that the filters keep."""
    rng = random.Random(n * size)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9))) for _ in range(4000)]
    for i in range(n):
        lines, length = [], 0
        while length < size:
            lines.append(" ".join(rng.choice(words) for _ in range(10)))
            length += len(lines[-1]) + 1
        write_records(folder / f"part-{i:05d}.jsonl.zst",
                      [{"text": "\n".join(lines) + "\n", "meta": {"id": f"r{i}", "language": "Text"}}])
    return folder


def test_a_full_disk_names_the_stage_and_the_path_and_leaves_no_scratch(small_disk, tmp_path, monkeypatch):
    disk, mounted = small_disk
    out = disk / "out"
    assert run_local(FILTERS, incompressible(tmp_path / "small", 2, 50_000), out, {})["kept"] == 2
    before, free = tree(out), os.statvfs(disk).f_bavail
    big = incompressible(tmp_path / "big", 4, 1_000_000)  # ~2 MB of output: more than the disk holds
    if not mounted:  # the third shard finds the disk full
        from quarry.records import RecordWriter

        real, calls = RecordWriter.write, []

        def write(self, record):
            calls.append(1)
            if len(calls) > 2:
                raise OSError(28, "No space left on device", str(self.path))
            return real(self, record)

        monkeypatch.setattr(RecordWriter, "write", write)
    with pytest.raises(QuarryError) as failed:
        run_local(FILTERS, big, out, {})
    message = str(failed.value)
    assert message.startswith(f"filters: writing {out} failed at ") and "No space left on device" in message
    assert str(disk) in message.split(" failed at ", 1)[1]
    assert tree(out) == before  # the previous output, whole
    assert not (disk / ".out.staging").exists() and not (disk / ".out.work").exists()
    assert os.statvfs(disk).f_bavail == free  # the attempt's bytes are gone

"""A map on the Prefect executor (over shards, or over a plan's items) is one task run per worker,
sharing its jobs out (tasks.sharing): a worker that falls behind has the rest of its range taken by
the other, every job runs once, and the bytes (the answers) are the local run's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from engine_corpus import tree
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_output import shards

from quarry.engine import ItemJob, run_local
from quarry.stages.filters import FILTERS
from tasks.batching import batches
from tasks.sharing import claim_order, take

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]


def test_each_slot_tries_every_shard_once_its_own_range_first():
    for count in (1, 2, 7, 33):
        for slots in (s for s in (1, 2, 3, 8) if s <= count):
            ranges = batches(list(range(count)), count, slots, per_worker=1)
            for slot in range(slots):
                order = claim_order(count, slot, slots)
                assert sorted(order) == list(range(count))
                assert order[:len(ranges[slot])] == ranges[slot]
                following = ranges[(slot + 1) % slots] if slots > 1 else []
                assert order[len(ranges[slot]):][:len(following)] == following[::-1]  # the next range, from its end


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=300), st.integers(1, 9))
@settings(max_examples=200, deadline=None)
def test_items_of_known_size_are_batched_by_bytes_in_order(sizes, workers):
    """A plan's items in consecutive, non-empty task runs whose bytes differ by at most about one
    item: one large origin does not make its batch the phase's tail."""
    jobs = [ItemJob(item=None, name=str(i), size=size) for i, size in enumerate(sizes)]
    grouped = batches(jobs, 2000, workers)
    assert [job for batch in grouped for job in batch] == jobs and all(grouped)
    assert len(grouped) == min(len(jobs), 4 * workers)
    share, largest = (sum(sizes) + len(sizes)) / len(grouped), max(sizes) + 1
    if len(jobs) >= 2 * len(grouped):  # room to balance
        assert max(sum(job.size + 1 for job in batch) for batch in grouped) <= share + largest


def test_a_claim_belongs_to_one_slot_and_comes_back_to_it(tmp_path):
    assert take(tmp_path, 3, slot=0)
    assert not take(tmp_path, 3, slot=1)
    assert take(tmp_path, 3, slot=0)  # its slot run again (its worker died): the shard is still its own
    (tmp_path / "4").write_text("")  # created by a slot killed before it wrote its number
    assert not take(tmp_path, 4, slot=0) and not take(tmp_path, 4, slot=1)


SHARED_FLOW = """
import dataclasses, sys
from pathlib import Path
from flows.server import ensure_api
ensure_api()  # this process and the cluster's workers report to one server
from prefect import flow
from flows.runners import task_runner
from quarry.engine import Map, Written, run_stage
from quarry.stages.filters import FILTERS
from slow_phases import uneven_filter
from tasks.executor import PrefectExecutor

@flow
def filtered(src, dst):
    stage = dataclasses.replace(FILTERS, phases=(Map("filter", uneven_filter, Written, writes=True),))
    return run_stage(stage, Path(src), Path(dst), {}, PrefectExecutor()).result

filtered.with_options(task_runner=task_runner(workers=2))(sys.argv[1], sys.argv[2])
"""


def test_a_worker_that_falls_behind_has_its_shards_taken_by_the_other(tmp_path):
    src = shards(tmp_path / "src", 8)
    calls = tmp_path / "calls"
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}, "QUARRY_HOME": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests" / "engine")]), "QUARRY_TEST_CALLS": str(calls)}
    try:
        done = subprocess.run([sys.executable, "-c", SHARED_FLOW, str(src), str(tmp_path / "shared")], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=600)
    finally:
        subprocess.run([str(BIN / "quarry"), "server", "stop"], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr[-5000:]
    ran = dict(line.split() for line in calls.read_text().splitlines())
    assert len(ran) == len(calls.read_text().splitlines()) == 8  # every shard once
    slow_range = [f"part-0000{i}.jsonl.zst" for i in range(4)]  # the first slot's, 2 s a shard
    assert len({ran[name] for name in slow_range}) == 2, ran  # the other worker took some of them
    assert {ran[name] for name in ran} == {ran[name] for name in slow_range}  # two workers, two task runs
    finished = re.findall(r"Task run '(filters \d/\d)' - Finished in state Completed", done.stdout + done.stderr)
    assert sorted(finished) == ["filters 1/2", "filters 2/2"]
    run_local(FILTERS, src, tmp_path / "local", {})
    assert tree(tmp_path / "shared") == tree(tmp_path / "local")
    assert not (tmp_path / ".shared.work" / "filter" / ".claims").exists()  # the claims went with the phase


ITEMS_FLOW = """
import sys
from pathlib import Path
from flows.server import ensure_api
ensure_api()
from prefect import flow
from flows.runners import task_runner
from quarry.engine import run_stage
from slow_phases import SQUARE_STAGE, UNCACHED_SQUARE_STAGE
from tasks.executor import PrefectExecutor

@flow
def squares(dst, cached):
    stage = SQUARE_STAGE if cached else UNCACHED_SQUARE_STAGE
    return run_stage(stage, Path(dst).parent / "input", Path(dst), {}, PrefectExecutor()).result["squares"]

root, runner = Path(sys.argv[1]), task_runner(workers=2)
for name, cached in (("uncached", False), ("cached", True), ("cached", True)):
    print(name, squares.with_options(task_runner=runner)(str(root / name), cached))
"""


def test_a_maps_items_are_shared_out_and_a_cached_maps_items_not_run_again(tmp_path):
    """The snapshot's origins, the token shards: an uncached map's items (no resume records) and a
    cached one's (its records answer the next run) both go to the worker that is free."""
    calls = tmp_path / "calls"
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    (tmp_path / "input").mkdir()  # the stage reads no shards
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}, "QUARRY_HOME": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests" / "engine")]), "QUARRY_TEST_CALLS": str(calls)}
    try:
        done = subprocess.run([sys.executable, "-c", ITEMS_FLOW, str(tmp_path)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
    finally:
        subprocess.run([str(BIN / "quarry"), "server", "stop"], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr[-5000:]
    squares = [i * i for i in range(8)]
    assert done.stdout.splitlines()[-3:] == [f"uncached {squares}", f"cached {squares}", f"cached {squares}"]
    lines = calls.read_text().splitlines()
    assert len(lines) == 16  # each item once in the first two runs, none in the third (the records answer)
    for run in (lines[:8], lines[8:]):
        ran = dict(line.split() for line in run)
        assert sorted(ran) == [f"item-{i}" for i in range(8)]
        assert len({ran[f"item-{i}"] for i in range(4)}) == 2, ran  # the slow range: both workers took some
    finished = re.findall(r"Task run '(squares square \d/\d)' - Finished in state Completed", done.stdout + done.stderr)
    assert sorted(finished) == ["squares square 1/2"] * 3 + ["squares square 2/2"] * 3
    assert not list(tmp_path.glob(".*.work/square/.claims"))  # the claims went with the phase
    assert len(list(tmp_path.glob(".cached.work/square/*.done"))) == 8
    assert not list(tmp_path.glob(".uncached.work/square/*.done"))

"""Phases slow enough for a test to kill the worker running one (each call's start and end written to
$QUARRY_TEST_CALLS: shard, process, start|done), or to see a slow worker's shards shared out: the
filters stage's phase, delayed."""

from __future__ import annotations

import os
import time

from quarry.stages.filters import filter_shard_phase


def slow_filter(job, config):
    with open(os.environ["QUARRY_TEST_CALLS"], "a") as calls:
        calls.write(f"{job.name} {os.getpid()} start\n")
    time.sleep(1.5)
    result = filter_shard_phase(job, config)
    with open(os.environ["QUARRY_TEST_CALLS"], "a") as calls:
        calls.write(f"{job.name} {os.getpid()} done\n")
    return result


def uneven_filter(job, config):
    """The filters stage's phase, 2 s slower on the first half of the shards (part-00000 to -00003 of
    eight): the worker whose range they are falls behind. Writes (shard, process) per call."""
    if int(job.name.split("-")[1].split(".")[0]) < 4:
        time.sleep(2.0)
    with open(os.environ["QUARRY_TEST_CALLS"], "a") as calls:
        calls.write(f"{job.name} {os.getpid()}\n")
    return filter_shard_phase(job, config)

"""A phase slow enough for a test to kill the worker running it: the filters stage's phase, with
each call's start and end written to $QUARRY_TEST_CALLS (shard, process, start|done)."""

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

"""Phases slow enough for a test to kill the worker running one (each call's start and end written to
$QUARRY_TEST_CALLS: shard, process, start|done), or to see a slow worker's shards shared out: the
filters stage's phase, delayed; and a stage of a plan's items, the first half slow, as a map over
items (origins, token shards) is shared out."""

from __future__ import annotations

import dataclasses
import os
import time

from quarry.engine import Global, GlobalJob, Map, Plan, Stage, WorkItem
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


def eight_items(job: GlobalJob, config) -> Plan:
    return Plan(items=[WorkItem(f"item-{i}", i) for i in range(8)])


def uneven_square(job, config) -> int:
    """An item's square, 2 s slower for the first four of eight. Writes (item, process) per call."""
    if job.item < 4:
        time.sleep(2.0)
    with open(os.environ["QUARRY_TEST_CALLS"], "a") as calls:
        calls.write(f"{job.name} {os.getpid()}\n")
    return job.item * job.item


def squares(job: GlobalJob, config) -> dict:
    return {"squares": job.each(SQUARES)}  # the uncached stage's map has the same name


PLAN = Global("plan", eight_items, Plan, cached=False, inline=True)
SQUARES = Map("square", uneven_square, int, over="plan")
UNCACHED_SQUARES = Map("square", uneven_square, int, over="plan", cached=False)
SQUARE_STAGE = Stage("squares", folder="", config=lambda params: None, reads_shards=False, finish=squares,
                     phases=(PLAN, SQUARES))
UNCACHED_SQUARE_STAGE = dataclasses.replace(SQUARE_STAGE, phases=(PLAN, UNCACHED_SQUARES))

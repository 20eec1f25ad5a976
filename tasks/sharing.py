"""A map phase's jobs (shards, or a plan's items) shared out among its task runs, one per worker,
instead of fixed batches.

Each task run (a slot) takes the jobs of its own consecutive range first, then the jobs left in
the other ranges, from their far ends: a phase ends within about one job of its slowest worker
rather than one batch (with fixed batches a core stood idle for 20 of 300 core-seconds of curation
at 1 GB, and the snapshot's last batch of origins ran alone for a minute), with a quarter of the
task runs, and neighbouring shards (one origin's licence texts) still mostly go to one worker. A
slot takes a job by creating its claim file (O_EXCL) in the phase's claims folder, on the file
system the workers share; a slot run again after its worker died takes back its own claims, whose
finished jobs their resume records (tasks.resume) answer without running them (a job of an
uncached map keeps no record: it runs again).
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

from quarry.records import atomic_write_bytes
from tasks.batching import batches

DONE = ".done"   # beside a claim once its shard is finished: the flow's progress
JOBS = "jobs.pkl"  # the phase's shard jobs, written once: every slot reads them here


def write_jobs(claims: Path, jobs: list) -> None:
    """A new claims folder holding the phase's jobs (0.3-0.6 KB each), so that they are not sent with
    every slot's task run (at 125,000 shards, about 60 MB each)."""
    claims.mkdir(parents=True)
    atomic_write_bytes(claims / JOBS, pickle.dumps(jobs))


def read_jobs(claims: Path) -> list:
    return pickle.loads((claims / JOBS).read_bytes())


def claim_order(count: int, slot: int, slots: int) -> list[int]:
    """The order in which ``slot`` of ``slots`` tries to take ``count`` shards: its own range, then
    the next slots' ranges, each from its end."""
    ranges = batches(list(range(count)), count, slots, per_worker=1)
    others = [*ranges[slot + 1:], *ranges[:slot]]
    return [*ranges[slot], *(index for taken in others for index in reversed(taken))]


def take(claims: Path, index: int, slot: int) -> bool:
    """Claim shard ``index`` for ``slot``: True if it is this slot's (now, or from its earlier run)."""
    path = claims / str(index)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return path.read_text() == str(slot)  # "" while its taker is writing it: not this slot's
    with os.fdopen(fd, "w") as claim:
        claim.write(str(slot))
    return True


def mark_done(claims: Path, index: int) -> None:
    (claims / f"{index}{DONE}").touch()


def finished(claims: Path) -> set[int]:
    """Shards whose slot has finished them (their done markers)."""
    return {int(name[:-len(DONE)]) for name in os.listdir(claims) if name.endswith(DONE)}

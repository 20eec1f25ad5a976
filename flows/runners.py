"""Which Prefect task runner a flow uses: threads, local processes, or a Dask cluster.

CPU-bound curation needs processes, not threads under the GIL. With ``workers > 1`` the flows
use prefect-dask's DaskTaskRunner on a LocalCluster of process workers (one thread each); with a
scheduler address they run on that cluster unchanged. Every task is a pure function of its
shard, so the output is byte-identical whatever the runner and worker count. Workers are set up
by QuarryWorkerSetup (this process's settings, malloc thresholds).
"""

from __future__ import annotations

import ctypes
import os
import sys

from distributed.diagnostics.plugin import WorkerPlugin
from prefect.task_runners import ThreadPoolTaskRunner
from prefect_dask import DaskTaskRunner

from quarry.parallel import share_machine

FORWARDED = ("PREFECT_", "QUARRY_")
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3   # glibc mallopt parameters
MMAP_THRESHOLD = 32 * 1024 * 1024             # where glibc's adaptive threshold tops out on 64-bit


def release_malloc_thresholds() -> None:
    """Undo the MALLOC_TRIM_THRESHOLD_=65536 Dask's nanny starts workers with: setting it also pins
    glibc's mmap threshold at 128 KiB, so every numpy array above that is a fresh mmap and its pages
    fault in again (MinHash signatures ran 2.5x slower, and ScanCode's workers inherit the variable).
    The thresholds become the ones glibc's adaptive rule settles at (trim = 2 x mmap)."""
    os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)  # processes the worker starts
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc (musl): nothing was pinned
        return
    libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    libc.mallopt(M_TRIM_THRESHOLD, 2 * MMAP_THRESHOLD)


class QuarryWorkerSetup(WorkerPlugin):
    """Runs on every worker of the cluster, those that join later too: this process's PREFECT_* and
    QUARRY_* settings (its API and result storage, so workers report to the same server instead of
    each starting its own), malloc thresholds fit for numpy-heavy tasks, and no statistical
    profiler (it samples the task thread's stack every 10 ms under the GIL: PII's regexes ran 30%
    slower with it)."""

    name = "quarry-worker-setup"

    def __init__(self, environ: dict[str, str]):
        self.environ = environ

    def setup(self, worker) -> None:
        os.environ.update(self.environ)
        release_malloc_thresholds()
        for name in ("profile", "profile-cycle"):
            if (callback := worker.periodic_callbacks.pop(name, None)) is not None:
                callback.stop()


class QuarryDaskTaskRunner(DaskTaskRunner):
    """DaskTaskRunner whose workers are set up by QuarryWorkerSetup."""

    @property
    def client(self):
        fresh = not self._client
        client = super().client
        if fresh:
            client.register_plugin(QuarryWorkerSetup({k: v for k, v in os.environ.items() if k.startswith(FORWARDED)}))
        return client


def task_runner(workers: int = 1, dask_address: str | None = None):
    if dask_address:
        return QuarryDaskTaskRunner(address=dask_address)
    if workers > 1:
        share_machine(workers)  # forwarded to the workers with the other QUARRY_ settings
        return QuarryDaskTaskRunner(cluster_kwargs={"n_workers": workers, "threads_per_worker": 1, "processes": True,
                                                    "dashboard_address": None})
    return ThreadPoolTaskRunner(max_workers=1)

"""Which Prefect task runner a flow uses: threads, local processes, or a Dask cluster.

CPU-bound curation needs processes, not threads under the GIL. With ``workers > 1`` the flows
use prefect-dask's DaskTaskRunner on a LocalCluster of process workers (one thread each); with a
scheduler address they run on that cluster unchanged. Every task is a pure function of its
shard, so the output is byte-identical whatever the runner and worker count. Workers are set up
by QuarryWorkerSetup (this process's settings, malloc thresholds).
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import dask
from distributed import Client
from distributed.diagnostics.plugin import WorkerPlugin
from prefect.context import SettingsContext, SyncClientContext
from prefect.task_runners import ThreadPoolTaskRunner
from prefect_dask import DaskTaskRunner
from prefect_dask.client import PrefectDaskClient

from quarry.cluster.worker import DASK_SETTINGS
from quarry.infra.parallel import share_machine

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


_worker_contexts = threading.local()  # per worker thread: the flow's settings -> (settings, API client)


def _shared_contexts(context: dict) -> tuple[SettingsContext, SyncClientContext] | None:
    """This thread's settings and open API client for the settings the flow sent, made on its first
    task run. Prefect's task engine otherwise validates the settings again and makes a new API
    client for every task run on a remote worker (a new HTTP client with its own TLS context and an
    API version check: about 60 ms of CPU each, and load on the server), since a Dask worker runs
    each task in a fresh copy of its context."""
    settings = (context or {}).get("settings_context")
    if not settings:
        return None
    key = json.dumps(settings, sort_keys=True, default=str)  # cheaper than validating them again
    made = _worker_contexts.__dict__
    if key not in made:
        entered = SettingsContext(**settings)
        made[key] = None
        if entered.settings.api.url:  # else an ephemeral API: leave it to Prefect
            with entered:
                client = SyncClientContext()
                client.client.__enter__()  # open for the worker's life, like a pooled connection
            made[key] = (entered, client)
    return made[key]


def _run_with_shared_client(run, *args, **kwargs):
    shared = _shared_contexts(kwargs.get("context"))
    if shared is None:
        return run(*args, **kwargs)
    settings, client = shared
    # the engine finds both (SettingsContext.get, SyncClientContext.get_or_create) instead of
    # rebuilding them from the serialised settings
    kwargs["context"] = {**kwargs["context"], "settings_context": {}}
    tokens = SettingsContext.__var__.set(settings), SyncClientContext.__var__.set(client)
    try:
        return run(*args, **kwargs)
    finally:
        SyncClientContext.__var__.reset(tokens[1])
        SettingsContext.__var__.reset(tokens[0])


class _SharedClientSubmit(Client):
    def submit(self, func, *args, **kwargs):
        # reached from PrefectDaskClient.submit with its task-running wrapper (keyed explicitly)
        if "task_run_id" in kwargs and "context" in kwargs:
            func = functools.wraps(func)(functools.partial(_run_with_shared_client, func))
            if kwargs.get("key") is None:  # a task run is unique: no need to tokenize its arguments for a key
                kwargs["key"] = f"{kwargs['task'].name}-{kwargs['task_run_id']}"
        return super().submit(func, *args, **kwargs)


class QuarryDaskClient(PrefectDaskClient, _SharedClientSubmit):
    """PrefectDaskClient whose task runs reuse one API client per worker thread."""


class QuarryDaskTaskRunner(DaskTaskRunner):
    """DaskTaskRunner whose workers are set up by QuarryWorkerSetup and whose task runs share one
    API client per worker thread (QuarryDaskClient)."""

    @property
    def client(self):
        fresh = not self._client
        client = super().client
        if fresh:
            # prefect-dask builds a PrefectDaskClient; the subclass only wraps what it submits
            client.__class__ = QuarryDaskClient
            client.register_plugin(QuarryWorkerSetup({k: v for k, v in os.environ.items() if k.startswith(FORWARDED)}))
        return client


LOCAL_CLUSTER = {"threads_per_worker": 1, "processes": True, "dashboard_address": None}


def _local_settings(workers: int) -> None:
    share_machine(workers)  # forwarded to the workers with the other QUARRY_ settings
    dask.config.set(DASK_SETTINGS)  # the LocalCluster's nannies take them, and pass them to their workers


def task_runner(workers: int = 1, dask_address: str | None = None):
    if dask_address:
        return QuarryDaskTaskRunner(address=dask_address)
    if workers > 1:
        _local_settings(workers)
        return QuarryDaskTaskRunner(cluster_kwargs={"n_workers": workers, **LOCAL_CLUSTER})
    return ThreadPoolTaskRunner(max_workers=1)


@contextmanager
def shared_cluster(workers: int, dask_address: str | None) -> Iterator[str | None]:
    """The address every flow of a run submits to: the one given; else, with ``workers`` > 1, a
    LocalCluster kept for the whole run (a flow given only a worker count starts its own, whose
    workers import and load their models again: every node of the pipeline paid that); else None."""
    if dask_address or workers <= 1:
        yield dask_address
        return
    from distributed import LocalCluster

    _local_settings(workers)
    with LocalCluster(n_workers=workers, **LOCAL_CLUSTER) as cluster:
        yield cluster.scheduler_address

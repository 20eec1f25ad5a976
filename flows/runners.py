"""Which Prefect task runner a flow uses: threads, local processes, or a Dask cluster.

CPU-bound curation needs processes, not threads under the GIL. With ``workers > 1`` the flows
use prefect-dask's DaskTaskRunner on a LocalCluster of process workers (one thread each); with a
scheduler address they run on that cluster unchanged. Every task is a pure function of its
shard, so the output is byte-identical whatever the runner and worker count. Workers get this
process's Prefect settings (its API and result storage), so they report to the same server
instead of each starting its own.
"""

from __future__ import annotations

import os

from prefect.task_runners import ThreadPoolTaskRunner
from prefect_dask import DaskTaskRunner

from quarry.parallel import share_machine

FORWARDED = ("PREFECT_", "QUARRY_")


def _set_environment(values: dict[str, str]) -> None:
    os.environ.update(values)


class QuarryDaskTaskRunner(DaskTaskRunner):
    """DaskTaskRunner whose workers take this process's PREFECT_* and QUARRY_* settings."""

    @property
    def client(self):
        fresh = not self._client
        client = super().client
        if fresh:
            client.run(_set_environment, {k: v for k, v in os.environ.items() if k.startswith(FORWARDED)})
        return client


def task_runner(workers: int = 1, dask_address: str | None = None):
    if dask_address:
        return QuarryDaskTaskRunner(address=dask_address)
    if workers > 1:
        share_machine(workers)  # forwarded to the workers with the other QUARRY_ settings
        return QuarryDaskTaskRunner(cluster_kwargs={"n_workers": workers, "threads_per_worker": 1, "processes": True,
                                                    "dashboard_address": None})
    return ThreadPoolTaskRunner(max_workers=1)

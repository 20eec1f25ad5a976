"""Which Prefect task runner a flow uses: threads, local processes, or a Dask cluster.

CPU-bound curation needs processes, not threads under the GIL. With ``workers > 1`` the flows
use prefect-dask's DaskTaskRunner on a LocalCluster of process workers (one thread each); with a
scheduler address they run on that cluster unchanged. Every task is a pure function of its
shard, so the output is byte-identical whatever the runner and worker count.
"""

from __future__ import annotations

from prefect.task_runners import ThreadPoolTaskRunner


def task_runner(workers: int = 1, dask_address: str | None = None):
    if dask_address:
        from prefect_dask import DaskTaskRunner

        return DaskTaskRunner(address=dask_address)
    if workers > 1:
        from prefect_dask import DaskTaskRunner

        return DaskTaskRunner(cluster_kwargs={"n_workers": workers, "threads_per_worker": 1, "processes": True,
                                              "dashboard_address": None})
    return ThreadPoolTaskRunner(max_workers=1)

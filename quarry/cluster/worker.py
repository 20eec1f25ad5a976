"""What every Quarry Dask worker runs, wherever it starts: one command line and its environment
(and the scheduler they look for).

``job`` is the one place the worker is described (dask-jobqueue's Job renders it): the project's
stage code preloaded, one single-threaded worker process per core, the node's memory shared among
them, and a name unique per node and start. The batch scripts (quarry.cluster.jobqueue) and the
Kubernetes manifest (quarry.cluster.kubernetes) both run ``command(options)``.
"""

from __future__ import annotations

import shlex

from quarry.config.cluster import ClusterOptions
from quarry.errors import QuarryError
from quarry.infra.parallel import PROCESSES_PER_MACHINE

# Imported as each worker starts, as a local pool's processes inherit them from their parent.
PRELOADS = ("tasks.executor", "quarry.stages")
# `dask worker` adds -0, -1, ... per process; the host and the starting shell's pid tell nodes and
# jobs sharing one apart (a bash command line: the batch script, or `bash -c` in a container; not
# `$$` or `$(...)`, which Kubernetes rewrites in a container's command)
NAME = "quarry-${HOSTNAME}-${BASHPID}"


# Dask settings for Quarry's scheduler, nannies and workers, whose tasks run for seconds: Dask's
# defaults wake every process 50 times a second to check its event loop (a loop blocked for 3 s is
# still reported at 1 s), profile the task thread every 10 ms under the GIL, read psutil's
# counters twice a second, and have the nanny read its worker's memory ten times a second. Idle,
# a scheduler and one worker took 2.6 CPU-s per 30 s with the defaults and 0.6 with the first
# three (the nanny 0.18 -> 0.03 with the fourth); on a 2-core node that was the cores' time the
# stages lacked. A worker over its memory limit is still stopped within a second.
DASK_SETTINGS = {"distributed.admin.tick.interval": "1s",
                 "distributed.worker.profile.enabled": False,  # typed: dask.config.set keeps a string as it is
                 "distributed.admin.system-monitor.interval": "2s",
                 "distributed.worker.memory.monitor-interval": "1s"}


def dask_environment() -> dict[str, str]:
    """DASK_SETTINGS as the variables Dask reads at start (DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL=1s)."""
    return {"DASK_" + key.replace(".", "__").replace("-", "_").upper(): str(value)
            for key, value in DASK_SETTINGS.items()}


def environment(options: ClusterOptions) -> dict[str, str]:
    """The variables a worker needs besides its command line (it also starts in the project folder)."""
    return {"PYTHONPATH": str(options.project), PROCESSES_PER_MACHINE: str(options.cores), **dask_environment()}


def scheduler_arguments(options: ClusterOptions) -> str:
    """How a worker finds the scheduler: its address, or the scheduler file on the shared FS."""
    if options.scheduler_address:
        return shlex.quote(options.scheduler_address)
    return f"--scheduler-file {shlex.quote(str(options.scheduler_path))}"


def scheduler_command(options: ClusterOptions) -> list[str]:
    """The scheduler the workers look for: writing the scheduler file, or on the address's port (it
    runs in the workers' environment: the task graph it unpickles names the project's functions)."""
    if options.scheduler_address:
        where = ["--port", options.scheduler_address.rsplit(":", 1)[1]]
    else:
        where = ["--scheduler-file", str(options.scheduler_path)]
    return [options.python, "-m", "distributed.cli.dask_scheduler", *where]


def job(options: ClusterOptions, system: str = "local", **directives):
    """dask-jobqueue's Job for ``system`` (slurm, pbs, sge; local: no batch system) running
    Quarry's workers; ``directives``: the batch system's own (queue, walltime, ...)."""
    jobs = job_classes()
    extra = [arg for module in PRELOADS for arg in ("--preload", module)]
    return jobs[system](scheduler=scheduler_arguments(options), name=NAME, python=shlex.quote(options.python),
                        cores=options.cores, processes=options.cores, memory=options.memory,
                        worker_extra_args=extra, **directives)


def command(options: ClusterOptions) -> str:
    """The worker's command line (a bash command line), as every batch script runs it."""
    script = job(options).job_script()  # its last line: the worker command (the job's own template)
    return script.rstrip("\n").rsplit("\n", 1)[-1]


def job_classes() -> dict:
    try:
        from dask_jobqueue.local import LocalJob
        from dask_jobqueue.pbs import PBSJob
        from dask_jobqueue.sge import SGEJob
        from dask_jobqueue.slurm import SLURMJob
    except ImportError:
        raise QuarryError("dask-jobqueue is not installed: pip install 'quarry[cluster]' "
                          "(bash scripts/setup.sh installs it)") from None
    return {"slurm": SLURMJob, "pbs": PBSJob, "sge": SGEJob, "local": LocalJob}

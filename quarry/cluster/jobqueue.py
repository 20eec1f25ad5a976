"""Job scripts for Slurm, PBS and SGE, written by dask-jobqueue's own Job classes: one job per node
(a job array for several), each starting the node's Quarry workers (quarry.cluster.worker)."""

from __future__ import annotations

import shlex

from quarry.cluster import worker
from quarry.config.cluster import ClusterOptions

SYSTEMS = ("slurm", "pbs", "sge")
SUBMIT = {"slurm": "sbatch", "pbs": "qsub", "sge": "qsub"}


def array_directive(system: str, nodes: int) -> list[str]:
    """One array element per node: every element runs the same script on its own machine."""
    if nodes == 1:
        return []
    return [{"slurm": f"--array=0-{nodes - 1}", "pbs": f"-J 0-{nodes - 1}", "sge": f"-t 1-{nodes}"}[system]]


def job_script(options: ClusterOptions, system: str) -> str:
    """The batch script for ``system``: its directives from ``options``, then the worker command."""
    account = {"sge": "project"}.get(system, "account")  # SGE calls the account a project
    extra = [*array_directive(system, options.nodes), *options.directives]
    directives = {"queue": options.queue, account: options.account, "walltime": options.walltime,
                  "job_name": options.job_name, "job_extra_directives": extra,
                  "job_script_prologue": prologue(options, system)}
    return worker.job(options, system, **directives).job_script()


def prologue(options: ClusterOptions, system: str) -> list[str]:
    """The lines before the worker command: how to use the script, the folder and the environment."""
    lines = [f"# Quarry's Dask workers: {options.nodes} node(s) x {options.cores} single-threaded processes.",
             f"# Start the scheduler first ({scheduler_line(options)}), then: {SUBMIT[system]} <this file>",
             f"cd {shlex.quote(str(options.project))}"]
    for name, value in worker.environment(options).items():
        kept = f"${{{name}:+:${name}}}" if name == "PYTHONPATH" else ""  # the submitting shell's entries after
        lines.append(f"export {name}={shlex.quote(value)}{kept}")
    return lines



def scheduler_line(options: ClusterOptions) -> str:
    """The scheduler as a shell line, in the project folder with its code importable: the scheduler
    unpickles the task graph, which names the project's functions (tasks.executor)."""
    project = shlex.quote(str(options.project))
    settings = " ".join(f"{name}={shlex.quote(value)}" for name, value in worker.dask_environment().items())
    return f"cd {project} && PYTHONPATH={project} {settings} {shlex.join(worker.scheduler_command(options))}"

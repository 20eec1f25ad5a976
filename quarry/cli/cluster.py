"""`quarry cluster script slurm|pbs|sge` and `quarry cluster manifest kubernetes`: start Quarry's
Dask workers on a cluster (quarry.cluster); `pipeline.dask_address` then points the flows at it."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from quarry.config.cluster import ClusterOptions, cluster_options

err = Console(stderr=True)
DEFAULT = ClusterOptions.model_fields


def default(field: str) -> str:
    return f" (default {DEFAULT[field].default})"


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Start Quarry's Dask workers under Slurm, PBS, SGE or Kubernetes.", no_args_is_help=True)
    app.add_typer(group, name="cluster")

    nodes = typer.Option(None, "--nodes", "-N", help="Machines (one job or pod each)" + default("nodes") + ".")
    cores = typer.Option(None, "--cores", "-c", help="Cores per node: that many single-threaded workers"
                                                     + default("cores") + ".")
    memory = typer.Option(None, "--memory", "-m", help="Memory per node, e.g. 64GB" + default("memory") + ".")
    project = typer.Option(None, "--project", help="The project folder, at the same path on every node "
                                                   "(default: the current project).")
    python = typer.Option(None, "--python", help="The Python every node runs (default: this one).")
    name = typer.Option(None, "--name", help="Job / resource name" + default("job_name") + ".")
    output = typer.Option(None, "--output", "-o", help="Write here instead of printing.")

    @group.command("script")
    def script(system: str = typer.Argument(..., help="slurm | pbs | sge"),
               nodes: int = nodes, cores: int = cores, memory: str = memory,
               walltime: str = typer.Option(None, "--walltime", "-t", help="Wall time" + default("walltime") + "."),
               queue: str = typer.Option(None, "--queue", "-q", help="Partition / queue."),
               account: str = typer.Option(None, "--account", "-A", help="Account (SGE: project)."),
               directive: list[str] = typer.Option(None, "--directive", "-d", help="Another directive of the "
                                                   "batch system, e.g. --gres=gpu:1 or '-pe smp 16' (repeatable)."),
               scheduler_file: Path = typer.Option(None, "--scheduler-file", help="The scheduler file on the shared "
                                                   "FS (default: <project>/.quarry/dask-scheduler.json)."),
               scheduler_address: str = typer.Option(None, "--scheduler-address",
                                                     help="tcp://host:port instead of a scheduler file."),
               project: Path = project, python: str = python, name: str = name, output: Path = output) -> None:
        """A batch script (dask-jobqueue's) starting the workers on N nodes: a job array of N."""
        from quarry.cluster.jobqueue import SUBMIT, SYSTEMS, job_script, scheduler_line

        if system not in SYSTEMS:
            raise typer.BadParameter(f"{system!r}; one of {', '.join(SYSTEMS)}", param_hint="SYSTEM")
        options = cluster_options(dict(nodes=nodes, cores=cores, memory=memory, walltime=walltime, queue=queue,
                                       account=account, directives=directive or None, scheduler_file=scheduler_file,
                                       scheduler_address=scheduler_address, project=project, python=python,
                                       job_name=name))
        written = emit(job_script(options, system), output)
        err.print(f"start the scheduler: {scheduler_line(options)}", highlight=False, soft_wrap=True)
        err.print(f"then: {SUBMIT[system]} {written or '<the script>'}; flows: --dask-address "
                  f"{options.scheduler_address or 'the address in ' + str(options.scheduler_path)}",
                  highlight=False, soft_wrap=True)

    @group.command("manifest")
    def manifest(platform: str = typer.Argument(..., help="kubernetes"),
                 image: str = typer.Option(None, "--image", help="Container image with the project's dependencies "
                                                                 "(required)."),
                 nodes: int = nodes, cores: int = cores, memory: str = memory,
                 storage: str = typer.Option(None, "--storage", help="Size of the project's volume claim"
                                                                     + default("storage") + "."),
                 storage_class: str = typer.Option(None, "--storage-class", help="Its storage class (ReadWriteMany)."),
                 project: Path = project, python: str = python, name: str = name, output: Path = output) -> None:
        """Scheduler Deployment and Service, worker Deployment (one pod per node), the project's volume claim."""
        from quarry.cluster.kubernetes import manifest as build

        if platform != "kubernetes":
            raise typer.BadParameter(f"{platform!r}; one of kubernetes", param_hint="PLATFORM")
        options = cluster_options(dict(image=image, nodes=nodes, cores=cores, memory=memory, storage=storage,
                                       storage_class=storage_class, project=project, python=python, job_name=name))
        written = emit(build(options), output)
        err.print(f"kubectl apply -f {written or '<the manifest>'}; the project folder goes on the claim "
                  f"{options.job_name}-project at {options.project}", highlight=False, soft_wrap=True)


def emit(text: str, output: Path | None) -> Path | None:
    """``text`` printed, or written to ``output`` (returned)."""
    if output is None:
        typer.echo(text, nl=False)
        return None
    output.write_text(text, encoding="utf-8")
    return output

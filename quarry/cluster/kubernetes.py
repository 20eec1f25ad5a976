"""A Kubernetes manifest for a Quarry Dask cluster: the project's folder on a shared volume claim
(mounted at the same path in every pod), a scheduler Deployment and its Service, and a worker
Deployment of one pod per node running the same worker command as the batch scripts."""

from __future__ import annotations

import yaml

from quarry.cluster import worker
from quarry.config.cluster import ClusterOptions
from quarry.errors import ConfigError

SCHEDULER_PORT, DASHBOARD_PORT = 8786, 8787


def manifest(options: ClusterOptions) -> str:
    """The manifest as YAML documents (``kubectl apply -f``)."""
    if options.image is None:
        raise ConfigError("--image: required for kubernetes (an image whose --python has the project's dependencies)")
    name = options.job_name
    options = options.model_copy(update={"scheduler_address": f"tcp://{name}-scheduler:{SCHEDULER_PORT}"})
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": f"{name}-project"},
             "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": options.storage}},
                      **({"storageClassName": options.storage_class} if options.storage_class else {})}}
    scheduler = [*worker.scheduler_command(options), "--dashboard-address", f":{DASHBOARD_PORT}"]
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"{name}-scheduler"},
               "spec": {"selector": {"app": name, "role": "scheduler"},
                        "ports": [{"name": "comm", "port": SCHEDULER_PORT},
                                  {"name": "dashboard", "port": DASHBOARD_PORT}]}}
    memory = quantity(options.memory)
    workers = container(options, "worker", ["bash", "-c", worker.command(options)],
                        {"requests": {"cpu": str(options.cores), "memory": memory}, "limits": {"memory": memory}})
    documents = [claim, deployment(options, "scheduler", 1, container(options, "scheduler", scheduler)), service,
                 deployment(options, "worker", options.nodes, workers)]
    return yaml.safe_dump_all(documents, sort_keys=False)


def container(options: ClusterOptions, role: str, command: list[str], resources: dict | None = None) -> dict:
    project = str(options.project)
    return {"name": role, "image": options.image, "command": command, "workingDir": project,
            "env": [{"name": k, "value": v} for k, v in worker.environment(options).items()],
            "volumeMounts": [{"name": "project", "mountPath": project}],
            **({"resources": resources} if resources else {})}


def deployment(options: ClusterOptions, role: str, replicas: int, main: dict) -> dict:
    labels = {"app": options.job_name, "role": role}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"{options.job_name}-{role}"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": dict(labels)},  # a copy: no YAML alias
                                  "spec": {"containers": [main], "volumes": [
                                      {"name": "project",
                                       "persistentVolumeClaim": {"claimName": f"{options.job_name}-project"}}]}}}}


def quantity(size: str) -> str:
    """A dask size (64GB, 4GiB) as a Kubernetes quantity of the same bytes."""
    from dask.utils import parse_bytes

    n = parse_bytes(size)
    for suffix, unit in (("Gi", 2**30), ("G", 10**9), ("Mi", 2**20), ("M", 10**6)):
        if n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)

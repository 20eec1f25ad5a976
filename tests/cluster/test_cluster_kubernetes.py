"""`quarry cluster manifest kubernetes`: the documents kubectl applies, and a worker container that
runs the very command the batch scripts run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

from quarry import cli
from quarry.cluster.jobqueue import job_script
from quarry.cluster.kubernetes import manifest
from quarry.cluster.worker import dask_environment
from quarry.config.cluster import cluster_options

REPO = Path(__file__).resolve().parents[2]
GIVEN = {"nodes": 3, "cores": 8, "memory": "32GB", "project": REPO, "image": "registry.example/quarry:0.1",
         "python": "/opt/quarry/bin/python", "storage": "2Ti", "storage_class": "nfs"}


def documents() -> dict[tuple[str, str], dict]:
    text = manifest(cluster_options(GIVEN))
    assert "&id" not in text  # plain documents, no YAML anchors
    found = list(yaml.safe_load_all(text))
    return {(doc["kind"], doc["metadata"]["name"]): doc for doc in found}


def test_the_manifest_holds_the_claim_the_scheduler_and_the_workers():
    docs = documents()
    assert set(docs) == {("PersistentVolumeClaim", "quarry-dask-project"), ("Deployment", "quarry-dask-scheduler"),
                         ("Service", "quarry-dask-scheduler"), ("Deployment", "quarry-dask-worker")}
    claim = docs["PersistentVolumeClaim", "quarry-dask-project"]["spec"]
    assert claim["accessModes"] == ["ReadWriteMany"] and claim["resources"]["requests"]["storage"] == "2Ti"
    assert claim["storageClassName"] == "nfs"
    workers = docs["Deployment", "quarry-dask-worker"]["spec"]
    assert workers["replicas"] == 3
    service = docs["Service", "quarry-dask-scheduler"]["spec"]
    scheduler = docs["Deployment", "quarry-dask-scheduler"]["spec"]["template"]
    assert service["selector"] == scheduler["metadata"]["labels"] != workers["template"]["metadata"]["labels"]
    assert workers["selector"]["matchLabels"] == workers["template"]["metadata"]["labels"]
    assert {port["port"] for port in service["ports"]} == {8786, 8787}
    for template in (scheduler, workers["template"]):
        [container], [volume] = template["spec"]["containers"], template["spec"]["volumes"]
        assert container["image"] == GIVEN["image"] and container["workingDir"] == str(REPO)
        assert container["volumeMounts"] == [{"name": volume["name"], "mountPath": str(REPO)}]
        assert volume["persistentVolumeClaim"]["claimName"] == "quarry-dask-project"
    [worker] = workers["template"]["spec"]["containers"]
    [main] = scheduler["spec"]["containers"]
    # the workers dial the Service, which reaches the port the scheduler listens on
    assert main["command"][:5] == [GIVEN["python"], "-m", "distributed.cli.dask_scheduler", "--port", "8786"]
    assert " tcp://quarry-dask-scheduler:8786 " in worker["command"][2]
    assert worker["resources"] == {"requests": {"cpu": "8", "memory": "32G"}, "limits": {"memory": "32G"}}


def test_the_worker_container_runs_the_batch_scripts_worker_command(tmp_path):
    [worker] = documents()["Deployment", "quarry-dask-worker"]["spec"]["template"]["spec"]["containers"]
    shell, flag, command = worker["command"]
    assert (shell, flag) == ("bash", "-c")
    assert "$$" not in command and "$(" not in command  # Kubernetes would rewrite them
    # the Slurm script for the same options and the manifest's scheduler Service
    script = job_script(cluster_options({**GIVEN, "scheduler_address": "tcp://quarry-dask-scheduler:8786"}), "slurm")
    lines = script.rstrip().splitlines()
    assert lines[-1] == command
    exports = {line.split("=", 1)[0].removeprefix("export "): line.split("=", 1)[1] for line in lines
               if line.startswith("export ")}
    env = {item["name"]: item["value"] for item in worker["env"]}
    quiet = dask_environment()  # Quarry's Dask settings, in both
    assert quiet["DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL"] == "1s"
    assert env == {"PYTHONPATH": str(REPO), "QUARRY_PROCESSES_PER_MACHINE": "8", **quiet}
    assert exports == {"PYTHONPATH": f"{REPO}${{PYTHONPATH:+:$PYTHONPATH}}", "QUARRY_PROCESSES_PER_MACHINE": "8",
                       **quiet}
    assert f"cd {REPO}" in lines  # the batch job starts where the container's workingDir is
    (tmp_path / "command.sh").write_text(command + "\n")
    assert subprocess.run(["bash", "-n", str(tmp_path / "command.sh")]).returncode == 0


def test_the_command_needs_an_image(tmp_path, capsys):
    assert cli.main(["cluster", "manifest", "kubernetes", "--project", str(REPO)]) == 1
    assert "--image: required" in capsys.readouterr().err
    out = tmp_path / "quarry.yaml"
    assert cli.main(["cluster", "manifest", "kubernetes", "--project", str(REPO), "--image", "quarry:1",
                     "--storage", "10Gi", "-o", str(out)]) == 0
    assert len(list(yaml.safe_load_all(out.read_text()))) == 4
    assert cli.main(["cluster", "manifest", "kubernetes", "--image", "quarry:1", "--storage", "ten"]) == 1
    assert "--storage: not a Kubernetes quantity" in capsys.readouterr().err

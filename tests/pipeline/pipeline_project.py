"""A tiny Quarry project in a folder: real source files with real licence texts, planted
duplicates and an e-mail address (not at a documentation domain: PII keeps those), the project's
params.yaml shrunk to run in a minute or two, and the opt-out registry. Tests drive it through the
`quarry` / `dvc` command lines."""

from __future__ import annotations

import copy
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from quarry.dag import NODES
from quarry.records import read_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "licenses"))
from licenses_helpers import license_text  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SCANCODE_PYTHON = Path(os.environ.get("QUARRY_SCANCODE_PYTHON") or REPO / ".venv-scancode" / "bin" / "python")

WORDS = ("alpha beta gamma delta record shard token parse value index merge split count buffer stream "
         "reader writer config source target commit branch origin ledger filter window batch layer").split()

# repository folder -> its LICENSE: the licence's text from ScanCode's data
REPOS = {"repo-mit": "mit", "repo-apache": "apache-2.0", "repo-isc": "isc", "repo-gpl": "gpl-3.0"}


def python_module(rng: random.Random, name: str) -> str:
    """A small Python module whose every line differs from every other module's."""
    def words(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n))

    lines = [f'"""{name}: {words(8)}."""', ""]
    for i in range(rng.randint(4, 7)):
        a, b, c = rng.sample(WORDS, 3)
        lines += [f"def {a}_{b}_{i}({c}, {rng.choice(WORDS)}={rng.randint(2, 99)}):",
                  f'    """{words(6).capitalize()} {c} {words(5)}."""',
                  f"    {b} = [{a} for {a} in {c} if {a}.{rng.choice(WORDS)} > {rng.randint(0, 50)}]",
                  f"    return {b}[:{rng.randint(1, 9)}] + [{rng.randint(0, 999)}, '{words(2)}']", ""]
    return "\n".join(lines) + "\n"


def write_sources(src: Path, files_per_repo: int = 10, seed: int = 0) -> None:
    rng = random.Random(seed)
    for repo, license_key in REPOS.items():
        root = src / repo
        (root / "pkg").mkdir(parents=True, exist_ok=True)
        (root / "LICENSE").write_text(license_text(license_key), encoding="utf-8")  # no YAML front matter
        (root / "README.md").write_text(
            f"# {repo}\n\n" + " ".join(rng.choice(WORDS) for _ in range(120)) + "\n", encoding="utf-8")
        for i in range(files_per_repo):
            (root / "pkg" / f"mod_{i:02d}.py").write_text(python_module(rng, f"{repo} module {i}"), encoding="utf-8")
    # Planted duplicates: an exact copy across repositories and a near copy (one line changed).
    original = (src / "repo-mit" / "pkg" / "mod_00.py").read_text(encoding="utf-8")
    (src / "repo-apache" / "pkg" / "copied.py").write_text(original, encoding="utf-8")
    near = original.replace("helpers for the", "helper functions for the", 1)
    (src / "repo-apache" / "pkg" / "near_copy.py").write_text(near, encoding="utf-8")
    (src / "repo-mit" / "pkg" / "contact.py").write_text(
        '"""Who to ask about the record reader."""\n\nMAINTAINER = "Jane Roe <jane.roe@acme-corp.io>"\n\n'
        + python_module(rng, "contact"), encoding="utf-8")


def small_params(shard_bytes: int = 6000) -> dict:
    params = yaml.safe_load((REPO / "params.yaml").read_text(encoding="utf-8"))
    params = copy.deepcopy(params)
    params["pipeline"]["workers"] = 1
    params["snapshot"].update(
        sources=[{"name": name, "kind": "dir", "path": f"src/{name}"} for name in REPOS],
        max_total_bytes=2_000_000, shard_bytes=shard_bytes)
    params["assemble"].update(splits={"train": 0.7, "validation": 0.1, "test": 0.2}, shard_bytes=20000)
    params["tokenizer"]["vocab_size"] = 512
    # The DAG's recipes: pretraining with the trained tokenizer, LoRA on one subset.
    params["train"]["config"], params["finetune"]["config"] = "dag_pretrain", "dag_lora"
    small = {"batch_size": 2, "dataset.seq_len": 64, "save_every_n_steps": 100}
    params["train"]["overrides"] = {**small, "max_steps": 5, "validation.every_n_steps": 100,
                                    "mlflow.enabled": False}
    params["finetune"]["overrides"] = {**small, "max_steps": 3}
    params["evaluate"].update(max_docs=4, context_len=64, mlflow=False)
    return params


def make_project(root: Path, *, shard_bytes: int = 6000, files_per_repo: int = 10) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    write_sources(root / "src", files_per_repo)
    write_params(root, small_params(shard_bytes))
    (root / "data" / "optout").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REPO / "data" / "optout" / "registry.tsv", root / "data" / "optout" / "registry.tsv")
    return root


def write_params(root: Path, params: dict) -> None:
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")


def project_env(root: Path, **extra: str) -> dict[str, str]:
    """The environment of a command run in the project: its own QUARRY_HOME (so its own Prefect
    home, results and MLflow store), the venv's bin on PATH, ScanCode's interpreter."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLFLOW_"))}
    env.update(QUARRY_HOME=str(root), QUARRY_SCANCODE_PYTHON=str(SCANCODE_PYTHON),
               PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
               PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="600", **extra)  # a busy machine starts slowly
    return env


def quarry(root: Path, *args: str, timeout: float = 900, **env: str) -> subprocess.CompletedProcess:
    done = subprocess.run([str(BIN / "quarry"), *args], cwd=root, env=project_env(root, **env),
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"quarry {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return done


def stop_server(root: Path) -> None:
    """End the project's local Prefect server (`quarry server stop`): the flows started it and it
    outlives them by design, so a test that ran them stops it."""
    subprocess.run([str(BIN / "quarry"), "server", "stop"], cwd=root, env=project_env(root), capture_output=True,
                   timeout=120)


def dataset_version(root: Path) -> str:
    return read_json(root / "data" / "datasets" / "default" / "manifest.json")["version"]


# ---------------------------------------------------------------------------------------------
# The project as a DVC repository

STAGES = list(NODES)


def run(root: Path, *args: str, timeout: float = 1800) -> str:
    env = project_env(root, DVC_NO_ANALYTICS="1", GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
                      GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
    done = subprocess.run(list(args), cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{output[-6000:]}"
    return output


def ran_stages(output: str) -> list[str]:
    return re.findall(r"Running stage '([\w-]+)'", output)


def dvc_repo(root: Path, **project) -> Path:
    """The tiny project plus what dvc.yaml depends on (the code folders), as a git + DVC repo."""
    make_project(root, **project)
    for name in ("dvc.yaml", "requirements.lock", "pyproject.toml"):
        shutil.copyfile(REPO / name, root / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("quarry", "tasks", "flows"):
        shutil.copytree(REPO / folder, root / folder, ignore=ignore)
    (root / ".gitignore").write_text(".quarry/\nmlflow.db\nmlartifacts/\n")
    run(root, "git", "init", "-q", "-b", "main")
    run(root, str(BIN / "dvc"), "init", "-q")
    run(root, "git", "add", "-A")
    run(root, "git", "commit", "-q", "-m", "tiny project")
    return root

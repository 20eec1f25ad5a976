"""The distribution as users install it: a wheel built from the checkout claims no top-level
module but ``quarry``, ships its built-in recipe configs, and its commands work from an empty
folder of a fresh virtual environment."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                    str(root / "dist"), str(REPO)], check=True, capture_output=True)
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # the project's dependencies without its own editable install: a path entry, whose .pth files
    # (the editable finder among them) are not run
    purelib = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "project-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    wheel = next((root / "dist").glob("quarry-*.whl"))
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True)
    return venv


def test_the_wheel_claims_only_quarry_and_ships_its_configs(installed):
    wheel = next(installed.parent.joinpath("dist").glob("quarry-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"quarry"}
    assert "quarry/configs/tiny_pretrain.yaml" in names
    tracked = subprocess.run(["git", "ls-files", "quarry"], cwd=REPO, capture_output=True, text=True,
                             check=True).stdout.split()
    data_files = {name for name in tracked if not name.endswith(".py")}
    assert data_files - set(names) == set()  # every data file the package reads (models, rules, configs) ships


@pytest.mark.parametrize("command", [["--help"], ["run", "ls"], ["validate", "tiny_pretrain"]])
def test_commands_run_from_an_empty_folder(installed, tmp_path, command):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "QUARRY_HOME")}
    done = subprocess.run([str(installed / "bin" / "quarry"), *command], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    where = subprocess.run([str(installed / "bin" / "python"), "-c", "import quarry; print(quarry.__file__)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True).stdout
    assert str(installed) in where  # the installed wheel, not the checkout
    if command == ["run", "ls"]:
        assert "lora_finetune" in done.stdout and "dag_lora" in done.stdout

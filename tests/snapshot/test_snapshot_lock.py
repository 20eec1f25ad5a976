"""The `installed` source is pinned by the project's lock: the project's requirements (and
theirs) at the locked versions, whatever else is installed beside them; a missing pin or a
different version is an error naming the lock, or a recorded deviation when the source allows it."""

from __future__ import annotations

import importlib.metadata

import pytest

from quarry.errors import ConfigError, QuarryError
from quarry.snapshot.pyenv import plan_installed
from quarry.config.snapshot import SnapshotParams

PYYAML = importlib.metadata.version("pyyaml")
TYPER = importlib.metadata.version("typer")


def project(tmp_path, dependencies: list[str], lock: dict[str, str], extras: dict | None = None):
    """A pyproject.toml requiring ``dependencies`` and its requirements.lock."""
    groups = "".join(f"{name} = {values!r}\n" for name, values in (extras or {}).items())
    (tmp_path / "pyproject.toml").write_text(
        f'[project]\nname = "p"\nversion = "1"\ndependencies = {dependencies!r}\n'
        + (f"[project.optional-dependencies]\n{groups}" if groups else ""))
    (tmp_path / "requirements.lock").write_text("".join(f"{n}=={v}\n" for n, v in lock.items()))
    return {"name": "installed", "kind": "installed", "lock": str(tmp_path / "requirements.lock")}


def origins(source: dict) -> dict[str, dict]:
    return {plan.origin: plan.info for plan in plan_installed(source, SnapshotParams())}


def test_only_the_projects_requirements_whatever_else_is_installed(tmp_path):
    # typer, pytest, prefect ... are all installed here; the project requires pyyaml alone.
    source = project(tmp_path, ["PyYAML>=6"], {"pyyaml": PYYAML, "typer": TYPER})
    assert origins(source) == {f"pypi:pyyaml@{PYYAML}": {"version": PYYAML}}


def test_requirements_of_requirements_and_named_extras(tmp_path):
    locked = {d.metadata["Name"].lower(): d.version for d in importlib.metadata.distributions()}
    source = project(tmp_path, ["pyyaml"], locked, extras={"cli": ["typer"]})
    assert set(origins(source)) == {f"pypi:pyyaml@{PYYAML}"}
    names = {origin.split("@")[0] for origin in origins({**source, "extras": ["cli"]})}
    assert {"pypi:pyyaml", "pypi:typer", "pypi:rich", "pypi:shellingham"} <= names  # typer requires rich ...
    assert "pypi:colorama" not in names  # ... and colorama only on Windows
    with pytest.raises(ConfigError, match="extras: 'bench' is not an optional-dependencies group"):
        origins({**source, "extras": ["bench"]})


def test_a_version_other_than_the_lock_is_an_error_or_a_recorded_deviation(tmp_path):
    source = project(tmp_path, ["pyyaml"], {"pyyaml": "0.0.1"})
    with pytest.raises(QuarryError, match=rf"requirements.lock: pyyaml {PYYAML} is installed but the lock pins 0.0.1"):
        origins(source)
    assert origins({**source, "lock_mismatch": "record"}) == {
        f"pypi:pyyaml@{PYYAML}": {"version": PYYAML, "locked_version": "0.0.1"}}


def test_a_requirement_missing_from_the_lock_or_the_environment_is_an_error(tmp_path):
    with pytest.raises(QuarryError, match=r"requirements.lock: pyyaml \(required by the project\) is not pinned"):
        origins(project(tmp_path, ["pyyaml"], {"typer": TYPER}))
    with pytest.raises(QuarryError, match=r"no-such-dist \(required by the project\) 1.0 is not installed"):
        origins(project(tmp_path, ["no-such-dist"], {"no-such-dist": "1.0"}))
    with pytest.raises(ConfigError, match="no such lock file"):
        origins({"name": "installed", "kind": "installed", "lock": str(tmp_path / "absent.lock")})

"""The suite's own state is temporary: MLflow store, Prefect home and releases live outside the checkout."""

from pathlib import Path

from quarry import tracking
from quarry.datasets.versions import registry_root

REPO = Path(__file__).resolve().parents[2]


def test_tracking_store_and_registry_are_temporary():
    home = Path(__import__("os").environ["QUARRY_HOME"])
    assert REPO not in home.parents and home != REPO
    assert tracking.tracking_uri() == f"sqlite:///{home / 'mlflow.db'}"
    assert tracking.artifact_root().startswith(home.as_uri())
    assert home in registry_root().parents

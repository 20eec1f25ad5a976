"""The suite's own state is temporary: MLflow store, Prefect home and releases live outside the checkout."""

from pathlib import Path

from quarry import tracking
from quarry.datasets.versions import registry_root

REPO = Path(__file__).resolve().parents[2]


def test_tracking_store_and_registry_are_temporary(monkeypatch):
    # mlflow.set_tracking_uri exports MLFLOW_TRACKING_URI: an earlier test's store may be set there
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    home = Path(__import__("os").environ["QUARRY_HOME"])
    assert REPO not in home.parents and home != REPO
    assert tracking.tracking_uri() == f"sqlite:///{home / 'mlflow.db'}"
    assert tracking.artifact_root().startswith(home.as_uri())
    assert home in registry_root().parents

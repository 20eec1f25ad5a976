"""Prefect settings for a Quarry project, applied before prefect is first imported.

Prefect's home, its local database and persisted task results live under the project's
.quarry/prefect, not the user's home, so a cache belongs to one checkout. Variables already set
in the environment (PREFECT_API_URL of a real server, for example) win.
"""

from __future__ import annotations

import os

from quarry.paths import state_dir


def configure_prefect_env() -> None:
    home = state_dir() / "prefect"
    defaults = {
        "PREFECT_HOME": str(home),
        "PREFECT_LOCAL_STORAGE_PATH": str(home / "storage"),
        "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "true",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_LOGGING_TO_API_BATCH_INTERVAL": "0.5",
        "DO_NOT_TRACK": "1",
        "DASK_LOGGING__DISTRIBUTED": "warning",  # cluster start/stop chatter drowns the progress
        # A loaded machine can take a while to start the temporary API server flows run against.
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
    }
    for key, value in defaults.items():
        os.environ.setdefault(key, value)
    os.makedirs(os.environ["PREFECT_HOME"], exist_ok=True)  # its SQLite database lives there

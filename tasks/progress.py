"""A stage phase's progress in the Prefect UI: a progress artifact per phase, updated as its task
runs finish (at most once a second, and at the end)."""

from __future__ import annotations

import logging
import re
import time
from uuid import UUID

from prefect.artifacts import create_progress_artifact, update_progress_artifact

log = logging.getLogger(__name__)
UPDATE_EVERY_S = 1.0


class ProgressArtifact:
    def __init__(self, stage: str, phase: str, description: str):
        self.key = re.sub(r"[^a-z0-9-]+", "-", f"{stage}-{phase}-progress".lower()).strip("-")
        self.description = description
        self.artifact: UUID | None = None
        self.last = 0.0
        self.failed = False

    def __call__(self, fraction: float) -> None:
        now = time.monotonic()
        if self.failed or (fraction < 1.0 and now - self.last < UPDATE_EVERY_S):
            return
        self.last = now
        try:
            if self.artifact is None:
                self.artifact = create_progress_artifact(100 * fraction, key=self.key, description=self.description)
            else:
                update_progress_artifact(self.artifact, 100 * fraction)
        except Exception as exc:  # noqa: BLE001 - progress is for watching: a server hiccup must not fail the stage
            self.failed = True
            log.warning("progress artifact %s: %s (no further updates)", self.key, exc)

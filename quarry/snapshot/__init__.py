"""Source snapshots: content-addressed ingestion of repositories and corpora (the DAG's first stage)."""

from quarry.snapshot.driver import apply_caps, plan_all
from quarry.snapshot.manifest import load as load_manifest
from quarry.snapshot.manifest import snapshot_id, verify
from quarry.snapshot.process import process_origin

__all__ = ["apply_caps", "load_manifest", "plan_all", "process_origin", "snapshot_id", "verify"]

"""The snapshot flow: the DAG's first stage, content-addressed shards of the configured sources."""

from __future__ import annotations

from pathlib import Path

from prefect import flow

from quarry.config import Params
from quarry.engine import run_stage
from quarry.config.values import load_params
from quarry.records import JsonDict
from quarry.stages.snapshot import SNAPSHOT, SnapshotArgs
from tasks.executor import PrefectExecutor


@flow(name="snapshot")
def snapshot(out_dir: str, params_file: str | None = None, params: Params | None = None,
             sources: list[dict] | None = None) -> JsonDict:
    """Content-addressed snapshot of ``sources`` (default: params `snapshot.sources`); returns its manifest."""
    args = SnapshotArgs(tuple(sources) if sources is not None else None)
    return run_stage(SNAPSHOT, None, Path(out_dir), load_params(params_file, params), PrefectExecutor(),
                     args=args).result

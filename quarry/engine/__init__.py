"""The stage engine: a stage is described once (quarry.engine.stage) and run by an executor
(local processes here, Prefect or Dask in tasks.executor) through one driver (run_stage)."""

from quarry.engine.local import LocalExecutor
from quarry.engine.run import Executor, StageRun, run_local, run_stage
from quarry.engine.stage import Global, GlobalJob, ItemJob, Keyed, Map, PerShard, Plan, Private, ShardJob, Stage, WorkItem, Written
from quarry.engine.state import per_process

__all__ = ["Executor", "Global", "GlobalJob", "ItemJob", "Keyed", "LocalExecutor", "Map", "PerShard", "Plan", "Private", "ShardJob",
           "Stage", "StageRun", "Written",
           "WorkItem", "per_process", "run_local", "run_stage"]

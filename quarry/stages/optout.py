"""The opt-out stage: one map dropping the origins the registry covers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from quarry.config import Params
from quarry.engine import GlobalJob, Map, ShardJob, Stage, per_process
from quarry.optout import STAGE, load_registry, optout_shard, registry_path_from


@dataclass(frozen=True)
class OptOutConfig:
    registry: Path  # keyed by content in task caches: a changed registry re-runs every shard

    def load(self):
        stat = self.registry.stat()
        return per_process(("optout", str(self.registry), stat.st_mtime_ns, stat.st_size),
                           lambda: load_registry(self.registry))


def optout_config(params: Params) -> OptOutConfig:
    config = OptOutConfig(registry_path_from(params))
    load_registry(config.registry)  # a bad registry fails before anything is written
    return config


def optout_shard_phase(job: ShardJob, config: OptOutConfig) -> dict:
    return {"ledger": optout_shard(job.src, Path(job.dst), config.load(), rejects=Path(job.rejects)).to_dict()}


def optout_finish(job: GlobalJob, config: OptOutConfig) -> dict:
    return {"registry_hash": load_registry(config.registry).hash}


OPTOUT = Stage(STAGE, folder="optout", config=optout_config,
               phases=(Map("filter", optout_shard_phase, writes=True),), finish=optout_finish)

"""The opt-out stage: one map dropping the origins the registry covers."""

from __future__ import annotations

from pathlib import Path

from quarry.config import Params, Section
from quarry.engine import GlobalJob, Map, ShardJob, Stage, per_process
from quarry.optout import STAGE, load_registry, optout_shard, registry_path_from


class OptOutConfig(Section):
    """The ``optout`` section with its registry resolved in the project: a Path, which task caches
    key by content, so a changed registry re-runs every shard."""

    registry: Path

    @classmethod
    def from_params(cls, params: Params) -> OptOutConfig:
        config = cls(registry=registry_path_from(params))
        load_registry(config.registry)  # a bad registry fails before anything is written
        return config

    def load(self):
        stat = self.registry.stat()
        return per_process(("optout", str(self.registry), stat.st_mtime_ns, stat.st_size),
                           lambda: load_registry(self.registry))


def optout_shard_phase(job: ShardJob, config: OptOutConfig) -> dict:
    return {"ledger": optout_shard(job.src, Path(job.dst), config.load(), rejects=Path(job.rejects)).to_dict()}


def optout_finish(job: GlobalJob, config: OptOutConfig) -> dict:
    return {"registry_hash": load_registry(config.registry).hash}


OPTOUT = Stage(STAGE, folder="optout", config=OptOutConfig.from_params,
               phases=(Map("filter", optout_shard_phase, writes=True),), finish=optout_finish)

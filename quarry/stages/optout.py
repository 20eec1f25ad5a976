"""The opt-out stage: one map dropping the origins the registry covers."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from quarry.config import Params, Section
from quarry.engine import GlobalJob, Map, ShardJob, Stage, Written, per_process
from quarry.infra.hashing import file_hash
from quarry.curation.optout import STAGE, load_registry, optout_shard, registry_path_from


class OptOutConfig(Section):
    """The ``optout`` section as params.yaml gives it (what provenance records: the same in every
    copy of a project) and the registry file it names in this project (``path``), which task
    caches key by content, so a changed registry re-runs every shard."""

    registry: str
    path: Path = Field(exclude=True)

    @classmethod
    def from_params(cls, params: Params) -> OptOutConfig:
        config = cls(registry=params.optout.registry, path=registry_path_from(params))
        load_registry(config.path)  # a bad registry fails before anything is written
        return config

    def cache_fingerprint(self) -> dict:
        return {"type": type(self).__qualname__, "registry": self.registry, "content": file_hash(self.path)}

    def load(self):
        stat = self.path.stat()
        return per_process(("optout", str(self.path), stat.st_mtime_ns, stat.st_size),
                           lambda: load_registry(self.path))


def optout_shard_phase(job: ShardJob, config: OptOutConfig) -> Written:
    return Written(ledger=optout_shard(job.src, Path(job.dst), config.load(), rejects=Path(job.rejects)).to_dict())


def optout_finish(job: GlobalJob, config: OptOutConfig) -> dict:
    return {"registry_hash": load_registry(config.path).hash}


OPTOUT = Stage(STAGE, folder="optout", config=OptOutConfig.from_params,
               phases=(Map("filter", optout_shard_phase, Written, writes=True),), finish=optout_finish)

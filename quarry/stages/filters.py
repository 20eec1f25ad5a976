"""The quality-filters stage: one map that writes each shard's survivors."""

from __future__ import annotations

from quarry.config.curation import FiltersParams
from quarry.curation.filters.rules import STAGE, build_filters
from quarry.engine import Map, ShardJob, Stage, Written, per_process
from quarry.infra.hashing import value_hash
from quarry.curation.steps import run_step_on_shard


def filter_shard_phase(job: ShardJob, config: FiltersParams) -> Written:
    chain = per_process(("filters", value_hash(config.as_dict())), lambda: build_filters(config))
    return Written(ledger=run_step_on_shard(chain, job.src, job.dst, rejects=job.rejects).to_dict())


FILTERS = Stage(STAGE, folder="filtered", config=lambda params: params.filters,
                phases=(Map("filter", filter_shard_phase, Written, writes=True),))

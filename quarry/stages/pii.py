"""The PII stage: one map redacting every record (nothing is dropped)."""

from __future__ import annotations

from quarry.engine import Map, ShardJob, Stage, Written
from quarry.curation.pii.engine import PiiConfig
from quarry.curation.pii.shards import STAGE, redact_shard


def redact_shard_phase(job: ShardJob, config: PiiConfig) -> Written:
    return Written(ledger=redact_shard(job.src, job.dst, config, rejects=job.rejects).to_dict())


PII = Stage(STAGE, folder="pii", config=PiiConfig.from_params, phases=(Map("redact", redact_shard_phase, Written, writes=True),))

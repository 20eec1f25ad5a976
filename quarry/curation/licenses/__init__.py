"""License detection (ScanCode, run in its own virtualenv) and the license policy.

    from quarry.engine import run_local
    from quarry.stages.licenses import LICENSES
    ledger = run_local(LICENSES, snapshot_dir, out_dir, params, workers=2)

Modules: engine (the ScanCode worker subprocess), scancode_worker (the script it runs), cache
(answers by content hash), sources (what to show ScanCode), repository (repository level),
findings, policy, stage (the per-shard assignment; quarry.stages.licenses describes the stage),
report (`quarry licenses`).
"""

from quarry.curation.licenses.shards import license_shard

__all__ = ["license_shard"]

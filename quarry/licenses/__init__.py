"""License detection (ScanCode, run in its own virtualenv) and the license policy.

    from quarry.licenses import run_licenses
    ledger = run_licenses(snapshot_dir, out_dir, params, workers=2)

Modules: engine (the ScanCode worker subprocess), scancode_worker (the script it runs), cache
(answers by content hash), sources (what to show ScanCode), repository (repository level),
findings, policy, stage (the stage), report (`quarry licenses`).
"""

from quarry.licenses.stage import license_shard, run_licenses

__all__ = ["license_shard", "run_licenses"]

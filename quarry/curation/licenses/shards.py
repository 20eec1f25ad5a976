"""The licenses stage: give every record its governing license, then apply the policy.

Pass 1 (``survey``) reads every shard once, since one origin may span shards: it collects each
repository's license-bearing files at any depth and every distinct file-level statement (SPDX
lines, license headers), which ScanCode then sees in full batches from one worker; each origin's
governance (its scopes, quarry.curation.licenses.governance) is saved in ``repo_licenses.json``. Pass 2
(``license_shard``) is a pure function of one shard that assigns ``meta.license`` — the file's
own when present, else its nearest governing ancestor's — and drops what the policy refuses, by
reason, in the ledger (quarry.stages.licenses runs both passes as a stage). Run on its own it
batches its own statements, through the same content-hash cache.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from quarry.ledger import Ledger
from quarry.curation.licenses.cache import CachedDetector
from quarry.curation.licenses.findings import LicenseFinding
from quarry.curation.licenses.governance import govern
from quarry.curation.licenses.upstream import agreement
from quarry.curation.licenses.ownership import is_listing
from quarry.curation.licenses.policy import LicensePolicy
from quarry.config.curation import LicensesParams
from quarry.curation.licenses.sources import license_header, spdx_identifier
from quarry.records import JsonDict, Record, input_shards, read_records
from quarry.curation.steps import Drop, run_step_on_shard

STAGE = "licenses"
LISTING_DROP = "license:install-listing"  # RECORD and the like: which distribution owns which file


def stage_shards(folder: Path) -> list[Path]:
    """Data shards of a stage folder: sorted, without the rejects another stage left there."""
    return input_shards(Path(folder))


def file_statement(text: str, header_lines: int) -> str | None:
    """What a file says about its own license, as text for ScanCode (None: nothing)."""
    if expression := spdx_identifier(text, header_lines):
        return f"SPDX-License-Identifier: {expression}"
    return license_header(text, header_lines)


class LicenseAssigner:
    """The per-record step: meta.license by governance (quarry.curation.licenses.governance), then the policy."""

    name = STAGE

    def __init__(self, repo_licenses: dict[str, dict], statements: dict[str, LicenseFinding | None],
                 policy: LicensePolicy, header_lines: int):
        self.repo_licenses = repo_licenses
        self.statements = statements
        self.policy = policy
        self.header_lines = header_lines
        self.sources: Counter = Counter()

    def apply(self, record: Record) -> JsonDict | Drop:
        meta = record.setdefault("meta", {})
        if is_listing((meta.get("path") or "").strip("/")):  # read by the survey; no text to train on
            return Drop(LISTING_DROP, {})
        statement = file_statement(record["text"], self.header_lines)
        own = self.statements.get(statement) if statement else None
        entry = govern(meta.get("path") or "", own, statement, self.repo_licenses.get(meta.get("origin")) or {})
        categories = entry.pop("categories")
        meta["license"] = _sorted(entry)  # same bytes whichever way the entry arrived
        self.sources[f"license-from-{entry['evidence']['level']}" if entry["spdx"] else "license-none"] += 1
        if labels := meta.get("upstream_license"):
            if said := agreement(labels, meta["license"]):
                self.sources[f"upstream-license-{said}"] += 1
        reason = self.policy.verdict(meta["license"], categories)
        if reason:
            return Drop(reason, {"spdx": meta["license"]["spdx"]})
        return record


def _sorted(value):
    return {k: _sorted(v) for k, v in sorted(value.items())} if isinstance(value, dict) else value


def license_shard(src: Path, dst: Path, config: LicensesParams, repo_licenses: dict[str, dict], *,
                  rejects: Path | None = None, detector: CachedDetector | None = None, level: int = 3) -> Ledger:
    """Assign licenses to one shard and apply the policy; returns the shard's ledger."""
    header_lines = config.header_lines
    statements = sorted({s for r in read_records(src) if (s := file_statement(r["text"], header_lines))})
    own_detector = detector is None
    detector = detector or CachedDetector(batch_size=config.batch_size)
    try:
        results = detector.detect(statements) if statements else []
    finally:
        if own_detector:
            detector.close()
    findings = {text: LicenseFinding.from_result(result) for text, result in zip(statements, results)}
    step = LicenseAssigner(repo_licenses, findings, LicensePolicy.from_section(config.policy), header_lines)
    ledger = run_step_on_shard(step, src, dst, rejects=rejects, level=level)
    for reason, count in sorted(step.sources.items()):
        ledger.change(reason, count)
    return ledger

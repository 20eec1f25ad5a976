"""The licenses stage: give every record its governing license, then apply the policy.

Pass 1 (``survey``) reads every shard once, since one origin may span shards: it collects each
repository's license-bearing files at any depth and every distinct file-level statement (SPDX
lines, license headers), which ScanCode then sees in full batches from one worker; each origin's
governance (its scopes, quarry.licenses.governance) is saved in ``repo_licenses.json``. Pass 2
(``license_shard``) is a pure function of one shard that assigns ``meta.license`` — the file's
own when present, else its nearest governing ancestor's — and drops what the policy refuses, by
reason, in the ledger. Run on its own (a Prefect task, a Dask worker) it
batches its own statements, through the same content-hash cache.
"""

from __future__ import annotations

import atexit
from collections import Counter
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from rich.progress import Progress

from quarry.ledger import Ledger, merge_ledgers
from quarry.licenses.cache import CachedDetector, default_cache_dir
from quarry.licenses.findings import Finding
from quarry.licenses.governance import govern
from quarry.licenses.policy import LicensePolicy
from quarry.licenses.repository import Surveys, add_record, detect_repo_licenses
from quarry.licenses.sources import license_header, spdx_identifier
from quarry.errors import QuarryError
from quarry.parallel import input_shards, map_shards, relative_name
from quarry.records import read_json, read_records, shard_paths, write_json
from quarry.stage import Drop, run_step_on_shard

STAGE = "licenses"
DEFAULTS = {"header_lines": 40, "batch_size": 64}


def section(params: dict[str, Any] | None) -> dict[str, Any]:
    """The ``licenses`` section of params.yaml (a full params dict or the section itself)."""
    params = params or {}
    return {**DEFAULTS, **(params.get("licenses", params) if "licenses" in params else params)}


def stage_shards(folder: Path) -> list[Path]:
    """Data shards of a stage folder: sorted, without the rejects another stage left there."""
    return input_shards(Path(folder))


def prepare_output(src_dir: Path, dst_dir: Path) -> None:
    """An output folder apart from the input, without shards of an earlier run (a shard that
    this run does not rewrite would otherwise reach the next stage)."""
    if dst_dir.resolve() == src_dir.resolve() or src_dir.resolve() in dst_dir.resolve().parents:
        raise QuarryError(f"{dst_dir}: the output folder must not be the input folder {src_dir} or inside it")
    for stale in shard_paths(dst_dir) if dst_dir.is_dir() else []:
        stale.unlink()
    dst_dir.mkdir(parents=True, exist_ok=True)


def file_statement(text: str, header_lines: int) -> str | None:
    """What a file says about its own license, as text for ScanCode (None: nothing)."""
    if expression := spdx_identifier(text, header_lines):
        return f"SPDX-License-Identifier: {expression}"
    return license_header(text, header_lines)


class LicenseAssigner:
    """The per-record step: meta.license by governance (quarry.licenses.governance), then the policy."""

    name = STAGE

    def __init__(self, repo_licenses: dict[str, dict], statements: dict[str, Finding | None],
                 policy: LicensePolicy, header_lines: int):
        self.repo_licenses = repo_licenses
        self.statements = statements
        self.policy = policy
        self.header_lines = header_lines
        self.sources: Counter = Counter()

    def apply(self, record: dict[str, Any]) -> dict[str, Any] | Drop:
        meta = record.setdefault("meta", {})
        statement = file_statement(record["text"], self.header_lines)
        own = self.statements.get(statement) if statement else None
        entry = govern(meta.get("path") or "", own, statement, self.repo_licenses.get(meta.get("origin")) or {})
        categories = entry.pop("categories")
        meta["license"] = _sorted(entry)  # same bytes whichever way the entry arrived
        self.sources[f"license-from-{entry['evidence']['level']}" if entry["spdx"] else "license-none"] += 1
        reason = self.policy.verdict(meta["license"], categories)
        if reason:
            return Drop(reason, {"spdx": meta["license"]["spdx"]})
        return record


def _sorted(value):
    return {k: _sorted(v) for k, v in sorted(value.items())} if isinstance(value, dict) else value


def license_shard(src: Path, dst: Path, params: dict[str, Any], repo_licenses: dict[str, dict], *,
                  rejects: Path | None = None, detector: CachedDetector | None = None, level: int = 3) -> Ledger:
    """Assign licenses to one shard and apply the policy; returns the shard's ledger."""
    conf = section(params)
    header_lines = int(conf["header_lines"])
    statements = sorted({s for r in read_records(src) if (s := file_statement(r["text"], header_lines))})
    own_detector = detector is None
    detector = detector or CachedDetector(batch_size=int(conf["batch_size"]))
    try:
        results = detector.detect(statements) if statements else []
    finally:
        if own_detector:
            detector.close()
    findings = {text: Finding.from_result(result) for text, result in zip(statements, results)}
    step = LicenseAssigner(repo_licenses, findings, LicensePolicy.from_params(conf.get("policy")), header_lines)
    ledger = run_step_on_shard(step, src, dst, rejects=rejects, level=level)
    for reason, count in sorted(step.sources.items()):
        ledger.change(reason, count)
    return ledger


def survey(shards: list[Path], header_lines: int, on_shard=lambda: None) -> tuple[Surveys, list[str]]:
    """One read of every shard: each origin's license-bearing files at any depth, and every
    distinct file-level statement, so ScanCode sees all the stage's texts in full batches."""
    surveys: Surveys = {}
    statements: set[str] = set()
    for shard in shards:
        for record in read_records(shard):
            statement = file_statement(record["text"], header_lines)
            add_record(surveys, record, statement)
            if statement:
                statements.add(statement)
        on_shard()
    return surveys, sorted(statements)


# One detector per process (and cache folder), so a ScanCode index loads at most once per process.
_process_detectors: dict[Path, CachedDetector] = {}


def _shard_job(src: Path, dst: Path, rejects: Path, params: dict, repo_licenses_path: Path) -> dict:
    cache_dir = default_cache_dir()
    if cache_dir not in _process_detectors:
        _process_detectors[cache_dir] = CachedDetector(cache_dir, batch_size=int(section(params)["batch_size"]))
        atexit.register(_process_detectors[cache_dir].close)
    return license_shard(src, dst, params, read_json(repo_licenses_path), rejects=rejects,
                         detector=_process_detectors[cache_dir]).to_dict()


def run_licenses(src_dir: Path, dst_dir: Path, params: dict[str, Any] | None = None, *, workers: int = 1,
                 show_progress: bool = True, detector: CachedDetector | None = None) -> dict[str, Any]:
    """Run the stage over every shard of ``src_dir`` into ``dst_dir`` (same shard names); writes
    repo_licenses.json, ledger.json and rejects/ there and returns the ledger dict. The output is
    byte-identical whatever ``workers``: that many processes for the shards, and up to that many
    ScanCode workers for the texts the cache does not know yet. A ``detector`` passed in (and its
    ScanCode workers) is reused and left open; otherwise one is opened and closed here."""
    src_dir, dst_dir = Path(src_dir), Path(dst_dir)
    conf = section(params)
    shards = stage_shards(src_dir)
    prepare_output(src_dir, dst_dir)
    repo_path = dst_dir / "repo_licenses.json"
    batch_size = int(conf["batch_size"])
    owned = nullcontext(detector) if detector else CachedDetector(batch_size=batch_size, workers=workers)
    with Progress(disable=not show_progress, transient=True) as progress, owned as detector:
        bar = progress.add_task("licenses: survey", total=len(shards))
        surveys, statements = survey(shards, int(conf["header_lines"]), lambda: progress.advance(bar))
        progress.update(bar, description="licenses: ScanCode", total=None)
        write_json(repo_path, detect_repo_licenses(surveys, detector))
        detector.detect(statements)  # the shard jobs then find every answer in the cache
    jobs = [(s, dst_dir / relative_name(s, src_dir), dst_dir / "rejects" / relative_name(s, src_dir), conf, repo_path)
            for s in shards]
    ledgers = map_shards(_shard_job, jobs, workers=workers, description="licenses")
    ledger = merge_ledgers(STAGE, ledgers).to_dict()
    write_json(dst_dir / "ledger.json", ledger)
    return ledger

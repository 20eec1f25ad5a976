"""`quarry licenses <folder>`: counts of records by license expression and category.

A folder whose records already carry ``meta.license`` (the stage's output, a dataset version) is
counted as it is; a snapshot is detected on the fly (repository and file level, nothing written,
no policy applied).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from quarry.licenses.cache import CachedDetector
from quarry.licenses.findings import Finding
from quarry.licenses.policy import CATEGORIES, LicensePolicy
from quarry.licenses.repository import collect_repo_files, detect_repo_licenses
from quarry.licenses.stage import LicenseAssigner, file_statement, section, stage_shards
from quarry.records import read_records

KEEP_ALL = LicensePolicy(allow_categories=frozenset(CATEGORIES), no_license="keep")


def _has_licenses(shards: list[Path]) -> bool:
    for shard in shards:
        for record in read_records(shard):
            return isinstance((record.get("meta") or {}).get("license"), dict) and \
                "category" in record["meta"]["license"]
    return False


def license_counts(folder: Path, params: dict[str, Any] | None = None, *,
                   detector: CachedDetector | None = None) -> Counter:
    """(spdx or None, category) -> records. A ``detector`` passed in is reused and left open."""
    shards = stage_shards(Path(folder))
    counts: Counter = Counter()
    if _has_licenses(shards):
        for shard in shards:
            for record in read_records(shard):
                lic = (record.get("meta") or {}).get("license") or {}
                counts[(lic.get("spdx"), lic.get("category", "no-license"))] += 1
        return counts
    conf = section(params)
    lines = int(conf["header_lines"])
    own = detector is None
    detector = detector or CachedDetector(batch_size=int(conf["batch_size"]))
    try:
        repos = detect_repo_licenses(collect_repo_files(shards), detector)
        for shard in shards:
            statements = sorted({s for r in read_records(shard) if (s := file_statement(r["text"], lines))})
            found = {t: Finding.from_result(r) for t, r in zip(statements, detector.detect(statements))} \
                if statements else {}
            assigner = LicenseAssigner(repos, found, KEEP_ALL, lines)
            for record in read_records(shard):
                lic = assigner.apply(record)["meta"]["license"]
                counts[(lic["spdx"], lic["category"])] += 1
    finally:
        if own:
            detector.close()
    return counts

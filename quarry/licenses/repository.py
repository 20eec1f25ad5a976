"""Repository-level licenses: a first pass over every shard, since one origin may span shards.

Collects each origin's root license-bearing files, sends their distinct texts to ScanCode once
(through the cache), and keeps, per origin, the first tier that yields a license: license files,
else manifest declarations, else NOTICE / README. A manifest's ``A OR B`` wins over license files
that name exactly A and B (LICENSE-MIT + LICENSE-APACHE in a dual-licensed crate).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from license_expression import OR

from quarry.licenses.findings import Finding, combine, license_meta
from quarry.licenses.policy import leaf_keys, parse
from quarry.licenses.sources import LICENSE_TIER, MANIFEST_TIER, README_TIER, declared_licenses, repo_file_tier
from quarry.records import read_records

# origin -> path -> (tier, text shown to ScanCode)
RepoFiles = dict[str, dict[str, tuple[int, str]]]


def repo_file(record: dict[str, Any]) -> tuple[str, str, int, str] | None:
    """(origin, path, tier, text for ScanCode) when the record is a license-bearing root file."""
    meta = record.get("meta") or {}
    path, origin = (meta.get("path") or "").strip("/"), meta.get("origin")
    tier = repo_file_tier(path)
    if origin is None or tier is None:
        return None
    text = declared_licenses(path, record["text"]) if tier == MANIFEST_TIER else record["text"]
    return (origin, path, tier, text) if text else None


def add_repo_file(files: RepoFiles, record: dict[str, Any]) -> None:
    if found := repo_file(record):
        origin, path, tier, text = found
        files.setdefault(origin, {})[path] = (tier, text)


def collect_repo_files(shards: Iterable[Path]) -> RepoFiles:
    files: RepoFiles = {}
    for shard in shards:
        for record in read_records(shard):
            add_repo_file(files, record)
    return files


def _prefer_manifest_choice(chosen: list[tuple[str, Finding]], manifests: list[tuple[str, Finding]]):
    """A manifest's disjunction naming exactly the licenses of the license files states their relation."""
    named = {key for _, finding in chosen for key in leaf_keys(finding.spdx)}
    for path, finding in manifests:
        if isinstance(parse(finding.spdx), OR) and set(leaf_keys(finding.spdx)) == named:
            return [(path, finding)]
    return chosen


def governing_license(files: dict[str, tuple[int, str]], findings: dict[str, Finding | None]) -> dict[str, Any]:
    """The repository license entry from its files' findings (keyed by text)."""
    by_tier: dict[int, list[tuple[str, Finding]]] = defaultdict(list)
    for path in sorted(files):
        tier, text = files[path]
        if (finding := findings.get(text)) is not None:
            by_tier[tier].append((path, finding))
    # A tier of mere pointers ("see COPYING") gives way to the next tier; it governs only alone.
    tiers = [t for t in sorted(by_tier) if not all(f.is_reference_only for _, f in by_tier[t])] or sorted(by_tier)
    if not tiers:
        return {**license_meta(None, None, "repository"), "categories": {}}
    tier = tiers[0]
    chosen = [item for item in by_tier[tier] if not item[1].is_reference_only] or by_tier[tier]
    if tier == LICENSE_TIER:
        chosen = _prefer_manifest_choice(chosen, by_tier.get(MANIFEST_TIER, []))
    finding = combine([f for _, f in chosen])
    entry = license_meta(finding, chosen[0][0], "repository")
    entry["categories"] = dict(sorted(finding.categories.items()))
    return entry


def detect_repo_licenses(files: RepoFiles, detector) -> dict[str, dict[str, Any]]:
    """origin -> license entry (meta.license fields plus each license id's category).

    License files and manifests are detected for every origin; READMEs and NOTICEs (long prose,
    the costliest texts) only for the origins that the first two tiers left without a license."""
    findings: dict[str, Finding | None] = {}

    def detect(texts: set[str]) -> None:
        texts = sorted(texts - findings.keys())
        results = detector.detect(texts) if texts else []
        findings.update((text, Finding.from_result(result)) for text, result in zip(texts, results))

    def licensed(origin: str) -> bool:
        return any((f := findings.get(text)) is not None and not f.is_reference_only
                   for tier, text in files[origin].values() if tier < README_TIER)

    detect({text for repo in files.values() for tier, text in repo.values() if tier < README_TIER})
    unlicensed = [origin for origin in files if not licensed(origin)]
    detect({text for origin in unlicensed for tier, text in files[origin].values() if tier == README_TIER})
    return {origin: governing_license(files[origin], findings) for origin in sorted(files)}

"""Repository governance over a whole stage: a first pass over every shard (one origin may span
shards) surveys each origin's license-bearing files at any depth, ScanCode reads their distinct
texts once (through the cache), and each origin gets its scopes (quarry.curation.licenses.governance).

License files, manifests, declarations and sidecars are read for every origin; NOTICE and
README texts (long prose, the costliest) only for the folders the others left without a license.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from quarry.curation.licenses.findings import LicenseFinding
from quarry.curation.licenses.governance import OriginSurvey, fallback_texts, origin_governance, primary_texts
from quarry.records import JsonDict, Record, read_records

Surveys = dict[str, OriginSurvey]


def add_record(surveys: Surveys, record: Record, statement: str | None = None) -> None:
    """Survey one snapshot record (``statement``: its file-level license statement, if any). A
    standalone record (a corpus document) governs nothing but itself: it is not surveyed."""
    meta = record.get("meta") or {}
    origin, path = meta.get("origin"), (meta.get("path") or "").strip("/")
    if origin is None or not path or meta.get("standalone"):
        return
    surveys.setdefault(origin, OriginSurvey()).add(path, record["text"], statement)


def collect_surveys(shards: Iterable[Path], statement=lambda text: None) -> Surveys:
    surveys: Surveys = {}
    for shard in shards:
        for record in read_records(shard):
            add_record(surveys, record, statement(record["text"]))
    return surveys


def _as_surveys(files: Surveys | dict[str, JsonDict]) -> Surveys:
    """Surveys, or the plain form origin -> path -> text (or (tier, text)) of root files."""
    surveys = {}
    for origin, value in files.items():
        if isinstance(value, OriginSurvey):
            surveys[origin] = value
        else:
            surveys[origin] = survey = OriginSurvey()
            for path, text in value.items():
                survey.add(path, text[1] if isinstance(text, tuple) else text)
    return surveys


def detect_repo_licenses(files: Surveys | dict[str, JsonDict], detector) -> dict[str, JsonDict]:
    """origin -> governance (the root's meta.license fields and categories, plus every scope), for
    the origins with any license-bearing file or reserved-rights marking."""
    surveys = _as_surveys(files)
    findings: dict[str, LicenseFinding | None] = {}

    def detect(texts: set[str]) -> None:
        texts = sorted(texts - findings.keys())
        results = detector.detect(texts) if texts else []
        findings.update((text, LicenseFinding.from_result(result)) for text, result in zip(texts, results))

    detect({t for survey in surveys.values() for t in primary_texts(survey)})
    detect({t for survey in surveys.values() for t in fallback_texts(survey, findings)})
    return {origin: origin_governance(survey, findings) for origin, survey in sorted(surveys.items())
            if survey.files or survey.reserved}

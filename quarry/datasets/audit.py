"""`quarry audit`'s checks: an independent check of a released dataset version against its own promises.

For every document it re-derives the governing license from the snapshot's files (never from
``meta``), applies the license policy, the current opt-out registry and the high-confidence secret
shapes of the PII detectors, and checks that the document and its license evidence exist in the
snapshot. Violations, by kind:

    license           the policy refuses the license the snapshot says governs the document
    license-record    meta.license differs from the re-derived one (the record misstates it)
    evidence-missing  meta.license names an evidence file the snapshot does not hold
    not-in-snapshot   no file of the snapshot has the document's origin and path
    opt-out           the registry now covers the document's origin
    secret            a credential the PII detectors are sure of (confidence >= 0.9)
    attribution       ATTRIBUTION/ lacks (or altered) a licence or NOTICE file of the snapshot, or a
                      standard licence text, that an origin's documents need (quarry.datasets.attribution)

Everything a document's checks read of the snapshot belongs to its own origin, so the audit runs
per partition of origins (quarry.stages.audit): a document is reduced to a ``document_entry``, a
snapshot shard to each origin's ``OriginFiles``, and ``check_origins`` judges one partition's
documents against their origins' files merged in shard order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quarry.datasets import attribution
from quarry.curation.licenses.findings import LicenseFinding
from quarry.curation.licenses.governance import OriginSurvey, govern
from quarry.curation.licenses.policy import LicensePolicy
from quarry.curation.licenses.repository import Surveys, add_record, detect_repo_licenses
from quarry.curation.licenses.shards import file_statement
from quarry.curation.optout import Registry
from quarry.curation.pii.engine import PiiConfig, detect
from quarry.records import JsonDict, Record

SECRET_CONFIDENCE = 0.9
_SECRETS = PiiConfig(sensitivity="low", types=("KEY",), detectors=("shapes", "private_keys"))  # shapes, not guesses
KINDS = ("license", "license-record", "evidence-missing", "not-in-snapshot", "opt-out", "secret", "attribution")


def document_key(meta: JsonDict) -> tuple[str, str]:
    """(origin, path) of a record, as the snapshot names its files."""
    return meta.get("origin") or "", (meta.get("path") or "").strip("/")


def secrets(text: str) -> list[str]:
    return sorted({f.kind for f in detect(text, _SECRETS) if f.confidence >= SECRET_CONFIDENCE})


def document_entry(record: Record) -> JsonDict:
    """What the checks read of a released document: where it says it comes from, its recorded
    license and the secret shapes its text holds."""
    meta = record.get("meta") or {}
    origin, path = document_key(meta)
    return {"origin": origin, "path": path, "id": meta.get("id"), "license": meta.get("license") or {},
            "secrets": secrets(record["text"])}


@dataclass
class OriginFiles:
    """An origin's files in (part of) the snapshot: its survey (None: no record of it surveyed),
    every file's statement by path (a path here is a file the snapshot holds) and the texts of
    its licence and NOTICE files."""

    survey: OriginSurvey | None = None
    statements: dict[str, str | None] = field(default_factory=dict)
    attribution: dict[str, str] = field(default_factory=dict)

    def merge(self, later: OriginFiles) -> None:
        """Add a later shard's part (a later file of the same path replaces an earlier one's)."""
        if later.survey is not None:
            if self.survey is None:
                self.survey = later.survey
            else:
                self.survey.merge(later.survey)
        self.statements.update(later.statements)
        self.attribution.update(later.attribution)

    def to_dict(self) -> JsonDict:
        return {"survey": None if self.survey is None else self.survey.to_dict(), "statements": self.statements,
                "attribution": self.attribution}

    @classmethod
    def from_dict(cls, data: JsonDict) -> OriginFiles:
        survey = data.get("survey")
        return cls(None if survey is None else OriginSurvey.from_dict(survey), data["statements"], data["attribution"])


def origin_files(records: Iterable[Record], header_lines: int) -> dict[str, OriginFiles]:
    """origin -> its files among ``records`` (one snapshot shard)."""
    surveys: Surveys = {}
    found: dict[str, OriginFiles] = {}
    for record in records:
        origin, path = document_key(record.get("meta") or {})
        statement = file_statement(record["text"], header_lines)
        add_record(surveys, record, statement)
        files = found.setdefault(origin, OriginFiles())
        files.statements[path] = statement
        if path and attribution.is_attribution_file(path):
            files.attribution[path] = record["text"]
    for origin, survey in surveys.items():
        found[origin].survey = survey
    return found


def check_origins(documents: list[JsonDict], snapshot: dict[str, OriginFiles], policy: LicensePolicy,
                  registry: Registry, detector, bundle: Path | None) -> list[JsonDict]:
    """The violations of ``documents`` (``document_entry``s), given their origins' files in the whole
    snapshot; ``bundle``: the release's ATTRIBUTION folder (None: not a release, nothing to check)."""
    surveys = {origin: files.survey for origin, files in snapshot.items() if files.survey is not None}
    governance = detect_repo_licenses(surveys, detector)
    nothing = OriginFiles()
    texts = sorted({statement for d in documents
                    if (statement := snapshot.get(d["origin"], nothing).statements.get(d["path"]))})
    found = {t: LicenseFinding.from_result(r) for t, r in zip(texts, detector.detect(texts))} if texts else {}
    violations: list[JsonDict] = []
    needs: dict[str, JsonDict] = {}   # origin -> its (re-derived) licences that ask for attribution
    for document in documents:
        origin, path, recorded = document["origin"], document["path"], document["license"]

        def violation(kind: str, detail: Any) -> None:
            violations.append({"kind": kind, "origin": origin, "path": path, "id": document["id"], "detail": detail})

        files = snapshot.get(origin, nothing).statements
        if path not in files:
            violation("not-in-snapshot", None)
        else:
            statement = files[path]
            expected = govern(path, found.get(statement) if statement else None, statement,
                              governance.get(origin) or {})
            categories = expected.pop("categories")
            if reason := policy.verdict(expected, categories):
                violation("license", {"reason": reason, "spdx": expected["spdx"],
                                      "evidence": (expected["evidence"] or {}).get("file")})
            if (recorded.get("spdx"), recorded.get("category")) != (expected["spdx"], expected["category"]):
                violation("license-record", {"recorded": recorded.get("spdx"), "derived": expected["spdx"]})
            if attribution.needs_attribution(expected):
                licenses = needs.setdefault(origin, {"licenses": {}, "copyrights": []})["licenses"]
                licenses[expected["spdx"]] = licenses.get(expected["spdx"], 0) + 1
        evidence = recorded.get("evidence")
        evidence_file = evidence.get("file") if isinstance(evidence, dict) else evidence
        if evidence_file and evidence_file not in files:
            violation("evidence-missing", evidence_file)
        if entry := registry.match(origin):
            violation("opt-out", f"{entry.kind} {entry.value}")
        if document["secrets"]:
            violation("secret", document["secrets"])
    if bundle is not None:  # a released version ships its bundle; a stage's folder has none
        notices = {origin: snapshot[origin].attribution for origin in needs if origin in snapshot}
        for gap in attribution.missing(bundle, needs, notices):
            violations.append({"kind": "attribution", "origin": gap["origin"], "path": gap["path"], "id": None,
                               "detail": gap["what"]})
    return sorted(violations, key=violation_order)


def violation_order(violation: JsonDict) -> tuple:
    """How the report lists violations: by kind, origin, path, then document id."""
    return KINDS.index(violation["kind"]), violation["origin"], violation["path"], str(violation["id"] or "")


def report(dataset: str, snapshot: str, documents: int, registry_hash: str, violations: list[JsonDict]) -> JsonDict:
    """The audit report: documents checked, violations (kind, origin, path, id, detail), counts."""
    by_kind = Counter(v["kind"] for v in violations)
    by_origin = Counter((v["kind"], v["origin"]) for v in violations)
    return {"dataset": dataset, "snapshot": snapshot, "documents": documents,
            "registry_hash": registry_hash, "passed": not violations,
            "violations_by_kind": dict(sorted(by_kind.items())),
            "violations_by_origin": [{"kind": k, "origin": o, "documents": n}
                                     for (k, o), n in sorted(by_origin.items())],
            "violations": violations}


def summary(report: JsonDict) -> str:
    """One line: passed, or the violations by kind."""
    if report["passed"]:
        return f"audit passed: {report['documents']} documents, no violation"
    kinds = ", ".join(f"{k} {n}" for k, n in report["violations_by_kind"].items())
    return f"audit FAILED: {len(report['violations'])} violations in {report['documents']} documents ({kinds})"

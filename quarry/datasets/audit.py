"""`quarry audit`: an independent check of a released dataset version against its own promises.

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
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from quarry.config.curation import LicensesParams
from quarry.config.params import Params
from quarry.datasets import attribution
from quarry.datasets.reader import open_dataset
from quarry.datasets.versions import locate
from quarry.curation.licenses.cache import CachedDetector
from quarry.curation.licenses.findings import LicenseFinding
from quarry.curation.licenses.governance import govern
from quarry.curation.licenses.policy import LicensePolicy
from quarry.curation.licenses.repository import Surveys, add_record, detect_repo_licenses
from quarry.curation.licenses.shards import file_statement, stage_shards
from quarry.curation.optout import Registry, load_registry, registry_path_from
from quarry.curation.pii.engine import PiiConfig, detect
from quarry.records import JsonDict, Record, read_records, write_json

SECRET_CONFIDENCE = 0.9
_SECRETS = PiiConfig(sensitivity="low", types=("KEY",), detectors=("shapes", "private_keys"))  # shapes, not guesses
KINDS = ("license", "license-record", "evidence-missing", "not-in-snapshot", "opt-out", "secret", "attribution")


def _key(meta: JsonDict) -> tuple[str, str]:
    return meta.get("origin") or "", (meta.get("path") or "").strip("/")


def read_snapshot(shards: list[Path], wanted: set[tuple[str, str]], header_lines: int):
    """One pass over the snapshot: every origin's survey, the file statement of each wanted
    (origin, path), the set of every (origin, path) it holds, and the attribution files of the
    wanted origins."""
    surveys: Surveys = {}
    statements: dict[tuple[str, str], str | None] = {}
    present: set[tuple[str, str]] = set()
    origins = {origin for origin, _ in wanted}
    kept: list[Record] = []
    for shard in shards:
        for record in read_records(shard):
            key = _key(record.get("meta") or {})
            statement = file_statement(record["text"], header_lines)
            add_record(surveys, record, statement)
            present.add(key)
            if key in wanted:
                statements[key] = statement
            if key[0] in origins and attribution.is_attribution_file(key[1]):
                kept.append(record)
    return surveys, statements, present, attribution.snapshot_files(kept, origins)


def secrets(text: str) -> list[str]:
    return sorted({f.kind for f in detect(text, _SECRETS) if f.confidence >= SECRET_CONFIDENCE})


def audit(dataset: str | Path, snapshot_dir: Path, config: LicensesParams, registry: Registry, *,
          detector: CachedDetector | None = None) -> JsonDict:
    """The audit report: documents checked, violations (kind, origin, path, id, detail), counts."""
    policy = LicensePolicy.from_section(config.policy)
    documents = [(r["meta"], secrets(r["text"])) for r in open_dataset(dataset)]
    wanted = {_key(meta) for meta, _ in documents}
    shards = stage_shards(Path(snapshot_dir) / "shards") or stage_shards(Path(snapshot_dir))
    surveys, statements, present, notice_files = read_snapshot(shards, wanted, config.header_lines)
    own = detector is None
    detector = detector or CachedDetector(batch_size=config.batch_size)
    try:
        governance = detect_repo_licenses(surveys, detector)
        texts = sorted({s for s in statements.values() if s})
        found = {t: LicenseFinding.from_result(r) for t, r in zip(texts, detector.detect(texts))} if texts else {}
    finally:
        if own:
            detector.close()
    violations = []
    needs: dict[str, JsonDict] = {}   # origin -> its (re-derived) licences that ask for attribution
    for meta, shapes in documents:
        origin, path = _key(meta)

        def violation(kind: str, detail: Any) -> None:
            violations.append({"kind": kind, "origin": origin, "path": path, "id": meta.get("id"), "detail": detail})

        recorded = meta.get("license") or {}
        if (origin, path) not in present:
            violation("not-in-snapshot", None)
        else:
            statement = statements.get((origin, path))
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
        if evidence_file and (origin, evidence_file) not in present:
            violation("evidence-missing", evidence_file)
        if entry := registry.match(origin):
            violation("opt-out", f"{entry.kind} {entry.value}")
        if shapes:
            violation("secret", shapes)
    release, folder, _ = locate(dataset)
    if release is not None:  # a released version ships its bundle; a stage's folder has none
        for gap in attribution.missing(Path(folder) / attribution.FOLDER, needs, notice_files):
            violations.append({"kind": "attribution", "origin": gap["origin"], "path": gap["path"], "id": None,
                               "detail": gap["what"]})
    violations.sort(key=lambda v: (KINDS.index(v["kind"]), v["origin"], v["path"]))
    by_kind = Counter(v["kind"] for v in violations)
    by_origin = Counter((v["kind"], v["origin"]) for v in violations)
    return {"dataset": str(dataset), "snapshot": str(snapshot_dir), "documents": len(documents),
            "registry_hash": registry.hash, "passed": not violations,
            "violations_by_kind": dict(sorted(by_kind.items())),
            "violations_by_origin": [{"kind": k, "origin": o, "documents": n}
                                     for (k, o), n in sorted(by_origin.items())],
            "violations": violations}


def run_audit(dataset: str | Path, snapshot_dir: Path, params: Params, out: Path | None = None, *,
              registry_path: Path | None = None) -> JsonDict:
    """Audit with the project's opt-out registry (params ``optout.registry`` unless given) and
    write the report to ``out`` (audit.json); returns it."""
    report = audit(dataset, snapshot_dir, params.licenses,
                   load_registry(registry_path or registry_path_from(params)))
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        write_json(out, report)
    return report


def summary(report: JsonDict) -> str:
    """One line: passed, or the violations by kind."""
    if report["passed"]:
        return f"audit passed: {report['documents']} documents, no violation"
    kinds = ", ".join(f"{k} {n}" for k, n in report["violations_by_kind"].items())
    return f"audit FAILED: {len(report['violations'])} violations in {report['documents']} documents ({kinds})"

"""`quarry licenses <folder>`: what governs what.

A folder whose records already carry ``meta.license`` (the stage's output, a dataset version) is
counted as it is; a snapshot is detected on the fly (repository and file level, nothing written,
no policy applied); a plain folder or git checkout is read file by file and answered per subtree:
each governing license with its evidence and the number of files it governs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from quarry.config.curation import LicensesParams
from quarry.curation.licenses.cache import CachedDetector
from quarry.curation.licenses.findings import LicenseFinding
from quarry.curation.licenses.policy import CATEGORIES, LicensePolicy
from quarry.curation.licenses.governance import govern
from quarry.curation.licenses.repository import add_record, collect_surveys, detect_repo_licenses
from quarry.curation.licenses.shards import LicenseAssigner, file_statement, stage_shards
from quarry.records import JsonDict, read_records

KEEP_ALL = LicensePolicy(allow_categories=CATEGORIES, no_license="keep")


def _has_licenses(shards: list[Path]) -> bool:
    for shard in shards:
        for record in read_records(shard):
            return isinstance((record.get("meta") or {}).get("license"), dict) and \
                "category" in record["meta"]["license"]
    return False


def license_counts(folder: Path, config: LicensesParams = LicensesParams(), *,
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
    lines = config.header_lines
    own = detector is None
    detector = detector or CachedDetector(batch_size=config.batch_size)
    try:
        repos = detect_repo_licenses(collect_surveys(shards), detector)
        for shard in shards:
            statements = sorted({s for r in read_records(shard) if (s := file_statement(r["text"], lines))})
            found = {t: LicenseFinding.from_result(r) for t, r in zip(statements, detector.detect(statements))} \
                if statements else {}
            assigner = LicenseAssigner(repos, found, KEEP_ALL, lines)
            for record in read_records(shard):
                lic = assigner.apply(record)["meta"]["license"]
                counts[(lic["spdx"], lic["category"])] += 1
    finally:
        if own:
            detector.close()
    return counts


MAX_FILE_BYTES = 1_000_000  # as the snapshot: larger files are data, not source


def folder_files(folder: Path) -> Iterator[tuple[str, str]]:
    """(path, text) of the text files below a plain folder, sorted, without VCS folders."""
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        rel = path.relative_to(folder)
        if rel.parts[0] in (".git", ".hg", ".svn") or path.stat().st_size > MAX_FILE_BYTES:
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue
        yield rel.as_posix(), data.decode("utf-8", errors="replace")


def folder_governance(folder: Path, config: LicensesParams = LicensesParams(), *,
                      detector: CachedDetector | None = None) -> dict[str, JsonDict]:
    """path -> meta.license of every text file of a plain folder (a checkout, an unpacked archive)."""
    lines = config.header_lines
    files = list(folder_files(Path(folder)))
    statements = {path: file_statement(text, lines) for path, text in files}
    surveys: dict = {}
    for path, text in files:
        add_record(surveys, {"text": text, "meta": {"origin": str(folder), "path": path}}, statements[path])
    own = detector is None
    detector = detector or CachedDetector(batch_size=config.batch_size)
    try:
        governance = detect_repo_licenses(surveys, detector).get(str(folder), {})
        texts = sorted({s for s in statements.values() if s})
        found = {t: LicenseFinding.from_result(r) for t, r in zip(texts, detector.detect(texts))} if texts else {}
    finally:
        if own:
            detector.close()
    result = {}
    for path, _ in files:
        statement = statements[path]
        entry = govern(path, found.get(statement) if statement else None, statement, governance)
        entry.pop("categories")
        result[path] = entry
    return result


def subtree_rows(licenses: dict[str, JsonDict]) -> list[JsonDict]:
    """One row per governing statement: the subtree (common folder of its files), expression,
    category, evidence file and level, and how many files it governs."""
    groups: dict[tuple, list[str]] = {}
    for path, entry in licenses.items():
        evidence = entry["evidence"] or {}
        key = (entry["spdx"], entry["category"], evidence.get("file"), evidence.get("level"))
        groups.setdefault(key, []).append(path)
    rows = []
    for (spdx, category, evidence, level), paths in groups.items():
        common = paths[0].rsplit("/", 1)[0] if len(paths) == 1 and "/" in paths[0] else \
            _common_folder(paths)
        rows.append({"subtree": common or ".", "spdx": spdx, "category": category, "evidence": evidence,
                     "level": level, "files": len(paths)})
    return sorted(rows, key=lambda r: (r["subtree"], -r["files"], str(r["spdx"])))


def _common_folder(paths: list[str]) -> str:
    parts = [p.split("/")[:-1] for p in paths]
    common = []
    for column in zip(*parts):
        if len(set(column)) != 1:
            break
        common.append(column[0])
    return "/".join(common)

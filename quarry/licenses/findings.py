"""A ScanCode result reduced to what Quarry keeps: SPDX expression, per-license category, score."""

from __future__ import annotations

from dataclasses import dataclass, field

from license_expression import Licensing, combine_expressions

from quarry.licenses.engine import Detection
from quarry.licenses.policy import drop_references, expression_category, is_reference, leaf_keys, quarry_category

_licensing = Licensing()


@dataclass(frozen=True)
class LicenseFinding:
    spdx: str
    score: float
    categories: dict[str, str] = field(default_factory=dict, compare=False)

    @classmethod
    def from_result(cls, result: Detection) -> LicenseFinding | None:
        """None when ScanCode found no license in the text."""
        spdx = drop_references(result.get("spdx"))
        if not spdx:
            return None
        categories = {info["spdx"]: quarry_category(info["category"]) for info in result["keys"].values()}
        return cls(spdx=spdx, score=float(result.get("score", 0.0)), categories=categories)

    @property
    def category(self) -> str:
        return expression_category(self.spdx, self.categories)

    @property
    def is_reference_only(self) -> bool:
        return all(is_reference(key) for key in leaf_keys(self.spdx))


def combine(findings: list[LicenseFinding]) -> LicenseFinding:
    """Several files' findings as one: AND of their distinct expressions, the weakest score."""
    expressions = list(dict.fromkeys(f.spdx for f in findings))
    spdx = expressions[0] if len(expressions) == 1 else str(
        combine_expressions(expressions, relation="AND", unique=True, licensing=_licensing))
    categories: dict[str, str] = {}
    for finding in findings:
        categories.update(finding.categories)
    return LicenseFinding(spdx=spdx, score=min(f.score for f in findings), categories=categories)


def license_meta(finding: LicenseFinding | None, file: str | None, level: str) -> Detection:
    """The ``meta.license`` value of a record (DESIGN.md): spdx, category, evidence."""
    if finding is None:
        return {"spdx": None, "category": "no-license", "evidence": None}
    return {"spdx": finding.spdx, "category": finding.category,
            "evidence": {"file": file, "score": finding.score, "level": level}}

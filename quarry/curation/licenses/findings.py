"""A ScanCode result reduced to what Quarry keeps: SPDX expression, per-license category, score."""

from __future__ import annotations

from dataclasses import dataclass, field

from license_expression import Licensing, combine_expressions

from quarry.curation.licenses.engine import Detection
from quarry.curation.licenses.expressions import canonical, without
from quarry.curation.licenses.policy import (drop_references, expression_category, is_reference, leaf_keys,
                                             quarry_category)

_licensing = Licensing()


# A match is a stray mention, not a statement of the text's license, when ScanCode matched only part
# of a short rule ("This project is licensed under the ... - see the LICENSE file" read as some
# license's notice): under STRAY_COVERAGE percent of the rule, under STRAY_TOKENS tokens.
STRAY_COVERAGE = 80.0
STRAY_TOKENS = 40


@dataclass(frozen=True)
class LicenseFinding:
    spdx: str
    score: float
    categories: dict[str, str] = field(default_factory=dict, compare=False)
    text_only: frozenset[str] = field(default=frozenset(), compare=False)  # ids matched only as their own text
    stray: bool = field(default=False, compare=False)  # made only of stray mentions
    set_aside: tuple[str, ...] = field(default=(), compare=False)  # stray mentions left out, as evidence
    named_only: bool = field(default=False, compare=False)  # licenses only named ("License: BSD"), not stated

    @classmethod
    def from_result(cls, result: Detection) -> LicenseFinding | None:
        """None when ScanCode found no license in the text."""
        spdx = drop_references(result.get("spdx"))
        if not spdx:
            return None
        categories = {info["spdx"]: quarry_category(info["category"]) for info in result["keys"].values()}
        spdx_of = {key: info["spdx"] for key, info in result["keys"].items()}
        strong: set[str] = set()
        stray: set[str] = set()
        texts: set[str] = set()
        explicit: set[str] = set()
        for match in result.get("matches") or []:
            ids = {spdx_of.get(k, k) for k in leaf_keys(match["expression"])}
            if _is_stray(match):
                stray |= ids
            else:
                strong |= ids
            if match.get("kind") == "text" or str(match.get("rule", "")).endswith(".LICENSE"):
                texts |= ids
            else:
                explicit |= ids
        keys = set(leaf_keys(spdx))
        stray_keys = (stray - strong) & keys
        set_aside: tuple[str, ...] = ()
        if stray_keys and keys - stray_keys:  # a stray mention beside the text's real license
            trimmed = without(spdx, stray_keys)
            set_aside = tuple(sorted(keys - set(leaf_keys(trimmed))))
            spdx = trimmed
        matches = result.get("matches") or []
        named_only = bool(matches) and all(m.get("kind") in ("tag", "reference") and m.get("matcher") != "1-spdx-id"
                                           for m in matches)
        return cls(spdx=canonical(spdx, frozenset(texts - explicit)), score=float(result.get("score", 0.0)),
                   categories=categories, text_only=frozenset(texts - explicit),
                   stray=bool(keys) and stray_keys == keys, set_aside=set_aside, named_only=named_only)

    @property
    def category(self) -> str:
        return expression_category(self.spdx, self.categories)

    @property
    def is_reference_only(self) -> bool:
        return all(is_reference(key) for key in leaf_keys(self.spdx))


def _is_stray(match: dict) -> bool:
    return match.get("kind") != "text" and float(match.get("coverage", 100.0)) < STRAY_COVERAGE \
        and int(match.get("tokens", STRAY_TOKENS)) < STRAY_TOKENS


def _text_only(findings: list[LicenseFinding]) -> frozenset[str]:
    """Ids that every finding naming them knows only as their own text."""
    named = {k for f in findings for k in leaf_keys(f.spdx)}
    return frozenset(k for k in named if all(k in f.text_only for f in findings if k in leaf_keys(f.spdx)))


def combine(findings: list[LicenseFinding], relation: str = "AND") -> LicenseFinding:
    """Several files' findings as one: AND (or OR) of their distinct expressions, canonical, the
    weakest score; the stray mentions each set aside are kept as evidence."""
    expressions = list(dict.fromkeys(f.spdx for f in findings))
    spdx = expressions[0] if len(expressions) == 1 else str(
        combine_expressions(expressions, relation=relation, unique=True, licensing=_licensing))
    categories: dict[str, str] = {}
    for finding in findings:
        categories.update(finding.categories)
    text_only = _text_only(findings)
    return LicenseFinding(spdx=canonical(spdx, text_only), score=min(f.score for f in findings),
                          categories=categories, text_only=text_only, stray=all(f.stray for f in findings),
                          set_aside=tuple(sorted({k for f in findings for k in f.set_aside})))


def license_meta(finding: LicenseFinding | None, file: str | None, level: str) -> Detection:
    """The ``meta.license`` value of a record (DESIGN.md): spdx, category, evidence (and the
    stray mentions of other licenses set aside, when there were any)."""
    if finding is None:
        return {"spdx": None, "category": "no-license", "evidence": None}
    evidence = {"file": file, "score": finding.score, "level": level}
    if finding.set_aside:
        evidence["set_aside"] = list(finding.set_aside)
    return {"spdx": finding.spdx, "category": finding.category, "evidence": evidence}

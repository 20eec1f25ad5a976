"""License categories and the keep/drop policy over SPDX expressions.

ScanCode files each license under a category (its license data's ``category`` field); Quarry
folds those into seven: permissive, public-domain, weak-copyleft, strong-copyleft, proprietary,
unknown and no-license. An expression is judged as a formula, with ``license-expression``:
``A OR B`` is allowed when either side is (the user may pick it), ``A AND B`` only when both are,
``A WITH exception`` as A. An expression's category follows the same rule: the most permissive
choice across OR, the most restrictive part across AND.
"""

from __future__ import annotations

from functools import lru_cache

from license_expression import AND, OR, ExpressionError, LicenseSymbol, LicenseWithExceptionSymbol, Licensing

from quarry.config.curation import PolicyParams
from quarry.records import JsonDict


CATEGORIES = ("public-domain", "permissive", "weak-copyleft", "strong-copyleft", "proprietary", "unknown",
              "no-license")
RANK = {name: rank for rank, name in enumerate(CATEGORIES)}  # lower is more permissive

SCANCODE_CATEGORIES = {
    "Public Domain": "public-domain",
    "Permissive": "permissive",
    "Copyleft Limited": "weak-copyleft",
    "Copyleft": "strong-copyleft",
    "Proprietary Free": "proprietary",
    "Free Restricted": "proprietary",
    "Source-available": "proprietary",
    "Commercial": "proprietary",
    "Patent License": "proprietary",
    "CLA": "proprietary",
    "Unstated License": "unknown",
}

# ScanCode's answer to "see the LICENSE file": a pointer, not a license, when a real one is beside it.
# So are a contributor agreement (it binds contributors, not users) and an exception named on its own
# (it only adds permissions to the license it excepts).
REFERENCE_KEYS = frozenset({"LicenseRef-scancode-unknown-license-reference", "LicenseRef-scancode-generic-cla"})


def is_reference(key: str) -> bool:
    return key in REFERENCE_KEYS or "exception" in key.lower()

NO_LICENSE = "no-license"
_licensing = Licensing()


def quarry_category(scancode_category: str | None) -> str:
    return SCANCODE_CATEGORIES.get(scancode_category or "", "unknown")


@lru_cache(maxsize=4096)
def parse(expression: str):
    """The parsed expression, shared by every caller (read only: a few distinct expressions are
    asked about for every record and finding)."""
    try:
        return _licensing.parse(expression)
    except ExpressionError as exc:
        raise ValueError(f"invalid license expression {expression!r}: {exc}") from None


def _leaf_key(node) -> str:
    return node.license_symbol.key if isinstance(node, LicenseWithExceptionSymbol) else node.key


def leaf_keys(expression: str) -> list[str]:
    """The license ids of an expression (exceptions excluded), in order of first appearance."""
    seen: dict[str, None] = {}

    def walk(node):
        if isinstance(node, (LicenseSymbol, LicenseWithExceptionSymbol)):
            seen.setdefault(_leaf_key(node))
        else:
            for arg in node.args:
                walk(arg)

    walk(parse(expression))
    return list(seen)


def drop_references(expression: str | None) -> str | None:
    """``X AND unknown-license-reference`` → ``X``; a lone reference stays (it is all there is)."""
    if not expression:
        return expression

    def prune(node):
        if isinstance(node, (LicenseSymbol, LicenseWithExceptionSymbol)):
            return node
        args = [prune(arg) for arg in node.args]
        if isinstance(node, AND):
            real = [arg for arg in args if not (isinstance(arg, LicenseSymbol) and is_reference(arg.key))]
            args = real or args
        return args[0] if len(args) == 1 else node.__class__(*args)

    return str(prune(parse(expression)))


def expression_category(expression: str | None, categories: dict[str, str]) -> str:
    """The category of an expression, given each license id's category (unknown when missing)."""
    if not expression:
        return NO_LICENSE

    def walk(node) -> int:
        if isinstance(node, (LicenseSymbol, LicenseWithExceptionSymbol)):
            return RANK[categories.get(_leaf_key(node), "unknown")]
        ranks = [walk(arg) for arg in node.args]
        return min(ranks) if isinstance(node, OR) else max(ranks)

    return CATEGORIES[walk(parse(expression))]


class LicensePolicy(PolicyParams):
    """Which licenses may enter a dataset (params.yaml ``licenses.policy``; fields and defaults in
    quarry.config.curation.PolicyParams)."""

    def _leaf_allowed(self, key: str, categories: dict[str, str]) -> bool:
        if key in self.deny_spdx:
            return False
        return key in self.allow_spdx or categories.get(key, "unknown") in self.allow_categories

    def allows(self, expression: str, categories: dict[str, str]) -> bool:
        def walk(node) -> bool:
            if isinstance(node, (LicenseSymbol, LicenseWithExceptionSymbol)):
                return self._leaf_allowed(_leaf_key(node), categories)
            results = [walk(arg) for arg in node.args]
            return any(results) if isinstance(node, OR) else all(results)

        return walk(parse(expression))

    def verdict(self, license_meta: JsonDict, categories: dict[str, str]) -> str | None:
        """None to keep the record, else the ledger reason for dropping it."""
        expression = license_meta.get("spdx")
        if not expression:
            return None if self.no_license == "keep" else "license:no-license"
        score = (license_meta.get("evidence") or {}).get("score", 100.0)
        if score < self.min_score:
            return "license:low-score"
        if self.allows(expression, categories):
            return None
        return f"license:{license_meta.get('category', 'unknown')}"

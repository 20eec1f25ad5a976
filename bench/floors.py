"""Quality floors: a bench checks the figures that make its speed worth reading before it prints.

A bench states each floor (a figure, and the least or the most it may be), measures, then calls
``Floors.emit(report)``: the JSON report is printed with the floors first, each with its value and
whether it held, and the process exits non-zero naming every figure that fell short. A figure
that was not measured (None) falls short too. A bench with no quality figure says so:
``Floors(none="why")``. tests/bench/test_bench_smoke.py runs every bench and reads these.
"""

from __future__ import annotations

import json
import sys
from typing import Any


class Floors:
    def __init__(self, none: str | None = None):
        self.checks: list[dict[str, Any]] = []
        self.none = none

    def at_least(self, figure: str, value: float | None, floor: float) -> None:
        self._check(figure, value, f">= {floor}", value is not None and value >= floor)

    def at_most(self, figure: str, value: float | None, ceiling: float) -> None:
        self._check(figure, value, f"<= {ceiling}", value is not None and value <= ceiling)

    def equals(self, figure: str, value: Any, expected: Any) -> None:
        self._check(figure, value, f"== {json.dumps(expected)}", value == expected)

    def _check(self, figure: str, value: Any, rule: str, ok: bool) -> None:
        self.checks.append({"figure": figure, "value": value, "rule": rule, "ok": bool(ok)})

    @property
    def failed(self) -> list[dict[str, Any]]:
        return [check for check in self.checks if not check["ok"]]

    def statement(self) -> dict[str, Any]:
        out: dict[str, Any] = {"met": not self.failed, "checks": self.checks}
        if self.none:
            out["none"] = self.none
        return out

    def emit(self, report: dict[str, Any]) -> None:
        """Print ``report`` with the floors first; exit 1 naming the figures below their floor."""
        print(json.dumps({"floors": self.statement(), **report}, indent=2), flush=True)
        if self.failed:
            named = "; ".join(f"{c['figure']} = {c['value']} (floor {c['rule']})" for c in self.failed)
            sys.exit(f"quality floor not met: {named}")

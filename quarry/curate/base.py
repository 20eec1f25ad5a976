"""Base classes for curation steps, after datatrove's filters.

A Filter implements only ``filter(doc) -> bool | (bool, reason)``; a Mapper implements only
``map(doc) -> doc``. ``apply`` adapts both to the Step protocol of quarry.stage, whose runner
iterates the shard, counts input / kept / dropped by reason and writes the rejects.
"""

from __future__ import annotations

from typing import Any

from quarry.stage import Drop


class Filter:
    name = "filter"

    def filter(self, doc: dict[str, Any]) -> bool | tuple[bool, str]:
        raise NotImplementedError

    def apply(self, doc: dict[str, Any]) -> dict[str, Any] | Drop:
        verdict = self.filter(doc)
        keep, reason = verdict if isinstance(verdict, tuple) else (verdict, self.name)
        return doc if keep else Drop(reason)


class Mapper:
    name = "mapper"

    def map(self, doc: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def apply(self, doc: dict[str, Any]) -> dict[str, Any] | Drop:
        return self.map(doc)


class Chain:
    """Several steps applied in order as one step (one pass over the shard)."""

    def __init__(self, name: str, steps: list):
        self.name = name
        self.steps = steps

    def apply(self, doc: dict[str, Any]) -> dict[str, Any] | Drop:
        for step in self.steps:
            doc = step.apply(doc)
            if isinstance(doc, Drop):
                return doc
        return doc

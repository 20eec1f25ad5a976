"""Base classes for curation steps, after datatrove's filters.

A Filter implements only ``filter(doc) -> bool | (bool, reason)``; a Mapper implements only
``map(doc) -> doc``. ``apply`` adapts both to the Step protocol of quarry.curation.steps, whose runner
iterates the shard, counts input / kept / dropped by reason and writes the rejects.
"""

from __future__ import annotations

from quarry.records import JsonDict, Record
from quarry.curation.steps import Drop


class Filter:
    name = "filter"

    def filter(self, doc: Record) -> bool | tuple[bool, str]:
        raise NotImplementedError

    def apply(self, doc: Record) -> JsonDict | Drop:
        verdict = self.filter(doc)
        keep, reason = verdict if isinstance(verdict, tuple) else (verdict, self.name)
        return doc if keep else Drop(reason)


class Mapper:
    name = "mapper"

    def map(self, doc: Record) -> JsonDict:
        raise NotImplementedError

    def apply(self, doc: Record) -> JsonDict | Drop:
        return self.map(doc)


class Chain:
    """Several steps applied in order as one step (one pass over the shard)."""

    def __init__(self, name: str, steps: list):
        self.name = name
        self.steps = steps

    def apply(self, doc: Record) -> JsonDict | Drop:
        for step in self.steps:
            doc = step.apply(doc)
            if isinstance(doc, Drop):
                return doc
        return doc

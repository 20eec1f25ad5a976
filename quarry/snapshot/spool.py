"""Planned origins kept on disk, not in the driver's memory: a planning unit writes its origins'
candidates and refusals to a spool file, one compressed frame each, and hands back only a head per
origin (names, counts, bytes and where its frames are). The caps, the layout and the finish work
from the heads; a map reads back the one origin it processes. A table's origin whose rows lie in
several of its files (planned apart) is one head of several parts, read back as one plan.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, replace
from pathlib import Path

import zstandard

from quarry.snapshot.plan import OriginPlan, Refused


@dataclass(frozen=True)
class Span:
    """One compressed frame of a spool file."""

    path: str
    start: int
    length: int

    def read(self):
        with open(self.path, "rb") as fh:
            fh.seek(self.start)
            return pickle.loads(zstandard.ZstdDecompressor().decompress(fh.read(self.length)))


@dataclass(frozen=True)
class SpooledPlan:
    """Where an origin's plan is spooled: its candidates and links, and its refusals."""

    candidates: Span
    refused: Span


@dataclass
class OriginHead:
    """What the driver keeps of a planned origin: everything but its candidate and refused lists."""

    source: str
    kind: str
    origin: str
    revision: str | None
    info: dict
    subset: str | None
    documents: bool
    files: int                      # candidates
    bytes: int                      # their sizes' sum
    parts: tuple[SpooledPlan, ...]   # one, or one per table file an origin's rows are in

    @property
    def sort_key(self) -> tuple[str, str]:
        return (self.origin, self.revision or "")

    def plan(self) -> OriginPlan:
        """The origin's plan read back: its candidates and links (its refusals: ``refused``)."""
        plan = OriginPlan(self.source, self.kind, self.origin, self.revision, dict(self.info), self.subset,
                          documents=self.documents)
        for part in self.parts:
            candidates, links = part.candidates.read()
            plan.candidates.extend(candidates)
            plan.links.extend(links)
        if len(self.parts) > 1:   # each part's are in path order
            plan.candidates.sort(key=lambda c: c.path)
            plan.links.sort()
        return plan

    def refused(self) -> list[Refused]:
        return [refusal for part in self.parts for refusal in part.refused.read()]


class Spool:
    """A spool file being written: ``add`` a plan, get its head."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self._out = path, open(path, "wb")
        self._compressor = zstandard.ZstdCompressor(level=1)

    def __enter__(self) -> Spool:
        return self

    def __exit__(self, *exc) -> None:
        self._out.close()

    def _frame(self, value) -> Span:
        data = self._compressor.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        span = Span(str(self.path), self._out.tell(), len(data))
        self._out.write(data)
        return span

    def add(self, plan: OriginPlan) -> OriginHead:
        spooled = SpooledPlan(self._frame((plan.candidates, plan.links)), self._frame(plan.refused))
        return OriginHead(plan.source, plan.kind, plan.origin, plan.revision, plan.info, plan.subset, plan.documents,
                          len(plan.candidates), sum(c.size for c in plan.candidates), (spooled,))


def spool_plans(plans: list[OriginPlan], path: Path) -> list[OriginHead]:
    """Write ``plans`` to the spool file ``path``; their heads, in the same order."""
    with Spool(path) as spool:
        return [spool.add(plan) for plan in plans]


def joined(heads: list[OriginHead]) -> list[OriginHead]:
    """One head per origin (and revision) of heads planned apart (a table's files, each a part), its
    parts in the order given, its names and info from the first."""
    by_key: dict[tuple[str, str], OriginHead] = {}
    for head in heads:
        if (first := by_key.get(head.sort_key)) is None:
            by_key[head.sort_key] = replace(head)
        else:
            by_key[head.sort_key] = replace(first, files=first.files + head.files, bytes=first.bytes + head.bytes,
                                            parts=first.parts + head.parts)
    return list(by_key.values())

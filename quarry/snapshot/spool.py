"""Planned origins kept on disk, not in any one process's memory: a planning unit writes its
origins' candidates and refusals to a spool file, one compressed frame each, and a head per origin
(names, counts, bytes and where its frames are) to a file of heads, in origin order. The caps read
the heads as one stream merged from those files, and write the capped heads in batches; a map
reads back the batch of origins it processes. A table's origin whose rows lie in several of its
files (planned apart) is one head of several parts, read back as one plan.
"""

from __future__ import annotations

import heapq
import pickle
import struct
from collections.abc import Iterable, Iterator
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

    def frame(self, value) -> Span:
        """``value`` written as one frame; where it is."""
        data = self._compressor.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        span = Span(str(self.path), self._out.tell(), len(data))
        self._out.write(data)
        return span

    def add(self, plan: OriginPlan) -> OriginHead:
        spooled = SpooledPlan(self.frame((plan.candidates, plan.links)), self.frame(plan.refused))
        return OriginHead(plan.source, plan.kind, plan.origin, plan.revision, plan.info, plan.subset, plan.documents,
                          len(plan.candidates), sum(c.size for c in plan.candidates), (spooled,))


def spool_plans(plans: list[OriginPlan], path: Path) -> list[OriginHead]:
    """Write ``plans`` to the spool file ``path``; their heads, in the same order."""
    with Spool(path) as spool:
        return [spool.add(plan) for plan in plans]


def joined(heads: Iterable[OriginHead]) -> Iterator[OriginHead]:
    """One head per origin (and revision) of heads planned apart (a table's files, each a part),
    from heads in origin order: its parts in the order given, its names and info from the first."""
    first = None
    for head in heads:
        if first is not None and head.sort_key == first.sort_key:
            first = replace(first, files=first.files + head.files, bytes=first.bytes + head.bytes,
                            parts=first.parts + head.parts)
            continue
        if first is not None:
            yield first
        first = head
    if first is not None:
        yield first


# Files of values (heads, processed origins' totals) in frames of a few hundred values: read back as a
# stream, one frame in memory at a time.
VALUES_PER_FRAME = 256
_LENGTH = struct.Struct("<Q")


def write_values(values: Iterable, path: Path) -> int:
    """``values`` written to ``path`` in order (compressed pickle frames); how many."""
    path.parent.mkdir(parents=True, exist_ok=True)
    compressor, count, frame = zstandard.ZstdCompressor(level=1), 0, []
    with open(path, "wb") as out:
        def flush():
            data = compressor.compress(pickle.dumps(frame, protocol=pickle.HIGHEST_PROTOCOL))
            out.write(_LENGTH.pack(len(data)) + data)
        for value in values:
            frame.append(value)
            count += 1
            if len(frame) == VALUES_PER_FRAME:
                flush()
                frame = []
        if frame:
            flush()
    return count


def read_values(path: str | Path) -> Iterator:
    """The values ``write_values`` wrote to ``path``, in order."""
    decompressor = zstandard.ZstdDecompressor()
    with open(path, "rb") as fh:
        while header := fh.read(_LENGTH.size):
            yield from pickle.loads(decompressor.decompress(fh.read(_LENGTH.unpack(header)[0])))


MERGE_FAN_IN = 64   # files read at once by a merge: more are merged in groups first, through files


def merged_heads(paths: list[Path], work: Path) -> Iterator[OriginHead]:
    """The heads of ``paths`` (each in origin order) as one stream in origin order; equal origins
    in the order of their files. At most ``MERGE_FAN_IN`` files are open (and a frame of each in
    memory) at once: more are merged in consecutive groups into files under ``work`` first."""
    paths, level = list(paths), 0
    while len(paths) > MERGE_FAN_IN:
        groups = [paths[at:at + MERGE_FAN_IN] for at in range(0, len(paths), MERGE_FAN_IN)]
        paths = [work / f"merge-{level}-{number:06d}.heads" for number in range(len(groups))]
        for group, path in zip(groups, paths):
            write_values(heapq.merge(*map(read_values, group), key=_sort_key), path)
        level += 1
    return heapq.merge(*map(read_values, paths), key=_sort_key)


def _sort_key(head: OriginHead) -> tuple[str, str]:
    return head.sort_key

"""Connected components as a pointer forest in one integer array, merged batch by batch.

``labels[x] <= x`` points at a member of the same component; a root points at itself. Hooking
a batch of edges sets the larger root of each edge to the smaller one (the least target wins
when several edges hook one root, and the batch repeats until every edge joins one tree), so
after full compression every element's label is the smallest member of its component: the same
answer whatever order or grouping the edges came in. Vectorised, so millions of edges cost
seconds, and batches can come from files one at a time (quarry.curation.dedup.partition).
"""

from __future__ import annotations

import numpy as np

from quarry.curation.dedup.shingles import sorted_unique


CHUNK = 1 << 16   # elements compressed at once: the temporaries stay small


def roots(labels: np.ndarray, elements: np.ndarray) -> np.ndarray:
    """The root of each of ``elements`` (pointer chasing over them alone)."""
    found = labels[elements]
    while True:
        up = labels[found]
        if np.array_equal(up, found):
            return found
        found = up


def compress(labels: np.ndarray) -> np.ndarray:
    """Point every element straight at its root, in place, a chunk at a time: pointers go to
    smaller elements, so the chunks before one are already compressed when it is reached."""
    for start in range(0, len(labels), CHUNK):
        part = labels[start:start + CHUNK]
        part[:] = roots(labels, part)
    return labels


def hook(labels: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Merge the components joined by ``edges`` (an (n, 2) array of element numbers), in place."""
    a, b = edges[:, 0], edges[:, 1]
    while len(a):
        ra, rb = roots(labels, a), roots(labels, b)
        open_ = ra != rb
        a, b, ra, rb = a[open_], b[open_], ra[open_], rb[open_]
        np.minimum.at(labels, np.maximum(ra, rb), np.minimum(ra, rb))
    return compress(labels)


def min_labels(size: int, edges: np.ndarray) -> np.ndarray:
    """The smallest member of each element's component, for elements ``0 .. size - 1``."""
    return hook(np.arange(size, dtype=np.int64), np.asarray(edges, dtype=np.int64).reshape(-1, 2))


def forest(edges: np.ndarray) -> np.ndarray:
    """The same components as ``edges`` (document numbers) as at most one edge per document:
    (document, smallest document of its component) for every document that is not that smallest."""
    docs = sorted_unique(edges.ravel())
    labels = min_labels(len(docs), np.searchsorted(docs, edges))
    moved = labels != np.arange(len(docs))
    return np.stack([docs[moved], docs[labels[moved]]], axis=1)

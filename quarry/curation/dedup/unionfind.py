"""Union-find over integer ids (path halving, union by size): the clustering step's core."""

from __future__ import annotations

import numpy as np


class UnionFind:
    def __init__(self, size: int):
        self.parent = np.arange(size, dtype=np.int64)
        self.size = np.ones(size, dtype=np.int64)

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return int(x)

    def union(self, a: int, b: int) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]
        return True

    def union_pairs(self, pairs: np.ndarray) -> None:
        for a, b in pairs.tolist():
            self.union(a, b)

    def roots(self) -> np.ndarray:
        """The root of every element (fully compressed)."""
        parent = self.parent
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                return parent.copy()
            parent[:] = grand

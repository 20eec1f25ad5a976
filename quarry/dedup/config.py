"""Dedup settings from the ``dedup:`` section of params.yaml, with defaults for absent keys."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, replace
from typing import Any

from quarry.dedup.minhash import MinHasher, choose_bands
from quarry.dedup.repository import RepositoryDedup
from quarry.errors import ConfigError

VERIFY_MODES = ("exact", "estimate", "none")


@dataclass(frozen=True)
class DedupConfig:
    exact: bool = True
    near: bool = True
    ngram: int = 5
    num_perm: int = 128
    threshold: float = 0.7          # target Jaccard similarity of word n-gram sets
    bands: int | None = None        # explicit LSH bands x rows; None: chosen from the threshold
    rows: int | None = None
    fp_weight: float = 0.01         # datasketch optimiser weights: verification removes false
    fn_weight: float = 0.99         # candidates, so a missed pair is what costs
    verify: str = "exact"           # exact: merge a candidate pair only if the exact Jaccard of
                                    # its shingle sets passes; estimate: by signature agreement
                                    # (threshold - verify_margin); none: every band collision
    verify_margin: float = 0.0
    min_tokens: int = 10            # documents with fewer words are only exact-deduplicated
    seed: int = 1
    permissive: tuple[str, ...] = field(default=("permissive", "public-domain"))
    repository: RepositoryDedup = field(default_factory=RepositoryDedup)  # forks and copies first

    @classmethod
    def from_params(cls, params: dict[str, Any] | None) -> DedupConfig:
        section = dict((params or {}).get("dedup") or {})
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(section) - known)
        if unknown:
            raise ConfigError(f"params: unknown key(s) under dedup: {', '.join(unknown)}; "
                              f"valid keys: {', '.join(sorted(known))}")
        section["repository"] = RepositoryDedup.from_params(section.get("repository"))
        if "permissive" in section:
            section["permissive"] = tuple(section["permissive"])
        verify = section.get("verify", "exact")
        section["verify"] = {True: "exact", False: "none", None: "none"}.get(verify, verify)
        if section["verify"] not in VERIFY_MODES:
            raise ConfigError(f"params: dedup.verify must be one of {', '.join(VERIFY_MODES)}, got {verify!r}")
        config = cls(**section)
        if not 1 <= config.ngram <= 64:
            raise ConfigError(f"params: dedup.ngram must be between 1 and 64, got {config.ngram}")
        if not 0 < config.threshold <= 1:
            raise ConfigError(f"params: dedup.threshold must be in (0, 1], got {config.threshold}")
        if (config.bands is None) != (config.rows is None):
            raise ConfigError("params: dedup.bands and dedup.rows must be given together")
        if config.bands is not None and config.bands * config.rows > config.num_perm:
            raise ConfigError(f"params: dedup.bands x dedup.rows = {config.bands * config.rows} "
                              f"exceeds dedup.num_perm = {config.num_perm}")
        return config

    @property
    def verify_threshold(self) -> float:
        return round(max(0.0, self.threshold - self.verify_margin), 6) if self.verify != "none" else 0.0

    def band_shape(self) -> tuple[int, int]:
        if self.bands is not None:
            return self.bands, self.rows
        if self.verify != "none":
            return choose_bands(self.threshold, self.num_perm, self.fp_weight, self.fn_weight)
        return choose_bands(self.threshold, self.num_perm, 0.5, 0.5)

    def resolved(self) -> DedupConfig:
        """The same settings with bands x rows fixed (workers then never run the optimiser)."""
        bands, rows = self.band_shape()
        return replace(self, bands=bands, rows=rows)

    def hasher(self) -> MinHasher:
        return MinHasher(num_perm=self.num_perm, ngram=self.ngram, seed=self.seed,
                         min_shingles=max(1, self.min_tokens - self.ngram + 1))

    def license_rank(self, meta: dict[str, Any]) -> int:
        """0 for a permissive license, 1 otherwise: permissive copies survive deduplication."""
        license_ = meta.get("license") or {}
        category = license_.get("category") if isinstance(license_, dict) else None
        return 0 if category in self.permissive else 1

    def summary(self) -> dict[str, Any]:
        bands, rows = self.band_shape()
        return {"ngram": self.ngram, "num_perm": self.num_perm, "threshold": self.threshold, "bands": bands,
                "rows": rows, "verify": self.verify, "verify_threshold": self.verify_threshold,
                "min_tokens": self.min_tokens, "repository": dataclasses.asdict(self.repository)}

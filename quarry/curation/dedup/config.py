"""Dedup settings from the ``dedup:`` section of params.yaml."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quarry.config import Params, as_params
from quarry.config.curation import DedupParams
from quarry.curation.dedup.minhash import MinHasher, choose_bands
from quarry.errors import ConfigError
from quarry.records import JsonDict


class DedupConfig(DedupParams):
    """The ``dedup`` section (fields and defaults: quarry.config.curation.DedupParams) and the
    MinHash / LSH objects it describes.

    verify: exact merges a candidate pair only if the exact Jaccard of its shingle sets passes;
    estimate: by signature agreement (threshold - verify_margin); none: every band collision.
    fp_weight / fn_weight: datasketch's optimiser weights; verification removes false candidates,
    so a missed pair is what costs."""

    @classmethod
    def from_params(cls, params: Params | Mapping[str, Any] | None = None) -> DedupConfig:
        """From the ``dedup`` section of the typed params (or of a mapping shaped like params.yaml)."""
        section = as_params(params).dedup
        if (section.bands is None) != (section.rows is None):
            raise ConfigError("params: dedup.bands and dedup.rows must be given together")
        if section.bands is not None and section.bands * section.rows > section.num_perm:
            raise ConfigError(f"params: dedup.bands x dedup.rows = {section.bands * section.rows} "
                              f"exceeds dedup.num_perm = {section.num_perm}")
        return cls.from_section(section)

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
        return self.model_copy(update={"bands": bands, "rows": rows})

    def hasher(self) -> MinHasher:
        return MinHasher(num_perm=self.num_perm, ngram=self.ngram, seed=self.seed,
                         min_shingles=max(1, self.min_tokens - self.ngram + 1))

    def license_rank(self, meta: JsonDict) -> int:
        """0 for a permissive license, 1 otherwise: permissive copies survive deduplication."""
        license_ = meta.get("license") or {}
        category = license_.get("category") if isinstance(license_, dict) else None
        return 0 if category in self.permissive else 1

    def summary(self) -> JsonDict:
        bands, rows = self.band_shape()
        return {"ngram": self.ngram, "num_perm": self.num_perm, "threshold": self.threshold, "bands": bands,
                "rows": rows, "verify": self.verify, "verify_threshold": self.verify_threshold,
                "min_tokens": self.min_tokens, "repository": self.repository.model_dump()}

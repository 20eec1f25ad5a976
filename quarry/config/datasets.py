"""params.yaml ``assemble:``: how curated shards become a dataset version."""

from __future__ import annotations

from typing import Any

from pydantic import Field, NonNegativeFloat, NonNegativeInt, PositiveInt, field_serializer, field_validator, model_validator

from quarry.config.base import Section


class SubsetMix(Section):
    """How much of a subset enters: ``epochs`` (copies) or a ``weight`` (share of the mixture)."""

    epochs: NonNegativeFloat | None = None
    weight: NonNegativeFloat | None = None

    @model_validator(mode="before")
    @classmethod
    def _number_is_epochs(cls, value: Any) -> Any:
        return {"epochs": value} if isinstance(value, (int, float)) and not isinstance(value, bool) else value

    @model_validator(mode="after")
    def _one_of(self) -> SubsetMix:
        if self.epochs is not None and self.weight is not None:
            raise ValueError("give weight or epochs, not both")
        return self


class StratifyParams(Section):
    """Held-out documents for every subset of at least ``min_docs`` documents (0: hash alone)."""

    min_docs: NonNegativeInt = 20   # smaller subsets keep the hash's split
    per_split: PositiveInt = 1      # documents each held-out split gets from every such subset


class Citation(Section):
    author: str | None = None
    url: str | None = None


class AssembleParams(Section):
    key = "assemble"

    splits: dict[str, NonNegativeFloat] = {"train": 0.96, "validation": 0.02, "test": 0.02}
    stratify: StratifyParams = StratifyParams()
    name: str = Field(default="quarry-code", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    label: str | None = None            # semantic version; null: 0.1.0, or the parent's next minor
    subsets: dict[str, SubsetMix] = {}  # pile_set_name -> {epochs: 2.0} or {weight: 0.3}
    shard_bytes: PositiveInt = 256 * 1024 * 1024
    zstd_level: int = Field(default=10, ge=1, le=22)
    zstd_threads: PositiveInt = 1       # same bytes for any value (not hashed)
    shuffle: bool = True
    # the attribution bundle is written by partitions of the origin-hash space: as many as keep
    # each one's credits and licence files within partition_mb, or exactly `partitions` (not hashed:
    # the same bundle for any count)
    partition_mb: PositiveInt = 1024
    partitions: PositiveInt | None = None
    citation: Citation = Citation()

    @field_validator("splits")
    @classmethod
    def _positive_total(cls, splits: dict[str, float]) -> dict[str, float]:
        if not splits or sum(splits.values()) <= 0:
            raise ValueError("split fractions need a positive sum")
        return splits

    @field_serializer("subsets")
    def _given(self, subsets: dict[str, SubsetMix]) -> dict[str, dict[str, float]]:
        return {name: mix.model_dump(exclude_none=True) for name, mix in subsets.items()}

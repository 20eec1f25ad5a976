"""Subset names that params and recipe configs give, checked against the dataset version they
will run on, before anything trains: an error names the key, the missing subset and the subsets
the version has. ``largest`` names the version's largest subset (by bytes), a default that fits
any dataset."""

from __future__ import annotations

from pathlib import Path

from quarry.datasets.manifest import MANIFEST
from quarry.errors import ConfigError
from quarry.records import read_json

LARGEST = "largest"


def version_subsets(dataset: str | Path) -> dict[str, int] | None:
    """Subset -> bytes of a dataset version folder (None when the folder holds no version yet)."""
    path = Path(dataset) / MANIFEST
    if not path.is_file():
        return None
    return {name: row["bytes"] for name, row in read_json(path)["composition"]["by_subset"].items()}


def resolve_subset(key: str, subset: str | None, subsets: dict[str, int]) -> str | None:
    """The subset ``key`` names, ``largest`` resolved; a name the version lacks is a ConfigError."""
    if subset is None:
        return None
    if subset == LARGEST:
        if not subsets:
            raise ConfigError(f"{key}: '{LARGEST}' names the largest subset, but the dataset version has none")
        return max(sorted(subsets), key=lambda name: subsets[name])
    if subset not in subsets:
        raise ConfigError(f"{key}: the dataset version has no subset '{subset}'; its subsets: "
                          f"{', '.join(sorted(subsets))} (or '{LARGEST}')")
    return subset

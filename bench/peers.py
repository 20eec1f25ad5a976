"""The versions a benchmark ran with: Quarry's own and each peer's, printed in every bench's JSON
so two machines' numbers can be compared (peers come from `bash scripts/setup.sh --bench`)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def peer_versions(*names: str) -> dict[str, str | None]:
    """{distribution: installed version, or None when it is missing}, quarry and torch first."""
    found = {}
    for name in ("quarry", "torch", *names):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found

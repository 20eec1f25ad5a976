"""Which gate literals a text holds, in one scan of it for every detector that has them.

Most detectors run a pattern only where one of its literals occurs ('ghp_', 'mysql', 'ZXlK'):
most texts hold none. One literal_finder over all of them reads the text once, whatever the
number of literals, where a scan per detector would read it once per detector.

Each detector module registers its literals when it is imported (``register``), so this module
imports none of them; a registration after a scan makes the next scan look for those too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache, lru_cache

from quarry.infra.literals import literal_finder

_sources: list[Callable[[], Iterable[str]]] = []
_registered: list[tuple] = [()]   # the sources as a hashable key: a new one invalidates the scans


def register(literals: Iterable[str] | Callable[[], Iterable[str]]) -> None:
    """A detector's gate literals, or a function giving them on first use (a rule set read lazily)."""
    _sources.append(literals if callable(literals) else (lambda words=tuple(literals): words))
    _registered[0] = tuple(_sources)


@cache
def _finder(sources: tuple) -> Callable[[str], set[str]]:
    return literal_finder({word for source in sources for word in source()})


def present_literals(text: str) -> frozenset[str]:
    return _present(text, _registered[0])


@lru_cache(maxsize=1)  # the detectors ask for the same text in turn
def _present(text: str, sources: tuple) -> frozenset[str]:
    return frozenset(_finder(sources)(text))

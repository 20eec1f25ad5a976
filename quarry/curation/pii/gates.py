"""Which gate literals a text holds, in one scan of it for every detector that has them.

Most detectors run a pattern only where one of its literals occurs ('ghp_', 'mysql', 'ZXlK'):
most texts hold none. One literal_finder over all of them stops at much the same characters as
any one of them would, so a scan per detector would cost nearly as much again each time.
"""

from __future__ import annotations

from functools import cache, lru_cache

from quarry.curation.pii.findings import literal_finder


@cache
def _scan():
    # These modules import this one: their literals are read on first use.
    from quarry.curation.pii.commands import GATES as COMMAND_GATES
    from quarry.curation.pii.context import GATES as DEFAULT_GATES
    from quarry.curation.pii.credentials import CLI_USER_GATES, SHAPES
    from quarry.curation.pii.encoded import GATES as BASE64_GATES
    from quarry.curation.pii.scanner_rules import format_literals

    return literal_finder({g for shape in SHAPES for g in shape.gate} | format_literals()
                          | set(BASE64_GATES) | set(COMMAND_GATES) | set(CLI_USER_GATES)
                          | set(DEFAULT_GATES))


@lru_cache(maxsize=1)  # the detectors ask for the same text in turn
def present_literals(text: str) -> frozenset[str]:
    return frozenset(_scan()(text))

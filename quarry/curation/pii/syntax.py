"""Which syntax a ``name: value`` or ``name = value`` line is written in, read from the lines
around it: a YAML block or an INI / TOML section holds literals (``password: river.falcon42``
is a string there), code holds expressions (``password: config.password,`` in a JavaScript
object, ``password = settings.secret`` in Python). The value's own shape does not decide it.
"""

from __future__ import annotations

import re

# Lines that open a block of code: its children are fields, arguments or statements, not config.
_CODE_OPENER = re.compile(r"[ \t]*(?:(?:export[ \t]+)?(?:async[ \t]+)?(?:class|def|function|func|fn|if|elif|else|for|"
                          r"while|with|try|except|match|case|struct|interface|type|enum|impl|module)\b|@)")
_SECTION = re.compile(r"[ \t]*\[[^\[\]\r\n]{1,80}\]{1,2}[ \t]*(?:[#;].*)?")
_CONFIG_LINE = re.compile(r"[ \t]*(?:[#;].*|[\w.\"'-]{1,80}[ \t]*[=:].*)?")
_LOOKBACK_LINES = 200
# A Java .properties line: a dotted key, '=' or ':', the rest of the line; or a comment.
_PROPERTIES_LINE = re.compile(r"[ \t]*(?:[#!].*|(?!self\.|this\.|cls\.)[\w-]+(?:\.[\w-]+)+[ \t]*[=:].*)?")
_PROPERTIES_WINDOW = 30


def _lines_before(text: str, line_start: int):
    """The lines before the one starting at ``line_start``, nearest first."""
    end = line_start - 1
    for _ in range(_LOOKBACK_LINES):
        if end < 0:
            return
        start = text.rfind("\n", 0, end) + 1
        yield text[start:end].rstrip("\r")
        end = start - 1


def _lines_after(text: str, line_start: int):
    """The lines after the one starting at ``line_start``, nearest first."""
    start = text.find("\n", line_start)
    for _ in range(_LOOKBACK_LINES):
        if start < 0:
            return
        end = text.find("\n", start + 1)
        yield text[start + 1:len(text) if end < 0 else end].rstrip("\r")
        start = end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def in_config_block(text: str, line_start: int) -> bool:
    """Is the ``key: value`` line at ``line_start`` in a YAML mapping rather than in code? Code
    shows in the line before (a JavaScript object's ',' or '{', a call's '(') or in the line that
    opens the block (class, def, function, a '{')."""
    line = text[line_start:text.find("\n", line_start) if "\n" in text[line_start:] else len(text)]
    indent = _indent(line)
    previous = True
    for before in _lines_before(text, line_start):
        stripped = before.strip()
        if not stripped or stripped.startswith(("#", "//")):
            continue
        if previous and stripped[-1] in ",{([;":
            return False
        previous = False
        if _indent(before) < indent:
            return not (_CODE_OPENER.match(before) or stripped[-1] in "{(")
    return True


def in_ini_section(text: str, line_start: int) -> bool:
    """Is the line at ``line_start`` under an INI / TOML ``[section]`` header, with only config
    lines (``key = value``, comments, blanks) between them?"""
    for before in _lines_before(text, line_start):
        if _SECTION.fullmatch(before):
            return True
        if not _CONFIG_LINE.fullmatch(before):
            return False
    return False


def in_properties(text: str, line_start: int) -> bool:
    """Is the line at ``line_start`` in a .properties file: it and every line near it a dotted
    key with its value (or a comment), at least two of them? Code has other lines among its
    attribute assignments."""
    keyed = 0
    for lines in (_lines_before(text, line_start), _lines_after(text, line_start)):
        for _, line in zip(range(_PROPERTIES_WINDOW), lines):
            if not _PROPERTIES_LINE.fullmatch(line):
                return False
            keyed += bool(line.strip()) and not line.lstrip().startswith(("#", "!"))
    return keyed >= 1

r"""The words decontamination compares: normalised text, licence notices, code without docstrings.

Both sides of an overlap test (evaluation items and training documents) go through ``normalize``
first, so a benchmark item pasted into a JSON dump (``\n``, ``\"``, ``\u00e9`` escapes), into
markdown or rst (code fences, directives) or into HTML (``&lt;``) yields the same words as the
item itself. ``notice_words`` finds the words of licence headers and notices (a comment block or
paragraph naming a copyright or licence), whose n-grams say nothing about leakage.
``code_only`` is an item without its docstrings and comments: a copy that drops them still
shares that variant's n-grams.
"""

from __future__ import annotations

import html
import re

from quarry.curation.dedup.shingles import encode, words

_JSON_ESCAPE = re.compile(r"\\+(?:u([0-9a-fA-F]{4})|([ntrbf]))")
_ESCAPED = {"n": "\n", "t": "\t", "r": "\n", "b": " ", "f": " "}
_FENCE = re.compile(r"^[ \t>]*(?:```|~~~)[^\n]*$|^[ \t]*\.\. (?:code-block|code|sourcecode|highlight)::[^\n]*$",
                    re.MULTILINE)
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]{1,31});")

_NOTICE = re.compile(rb"copyright|\(c\) [0-9]{4}|licen[cs]ed? (?:under|to)|spdx-license|all rights reserved|"
                     rb"permission is hereby granted|redistribution and use|without warrant|"
                     rb"gnu (?:lesser |affero )?general public|mozilla public|apache license", re.IGNORECASE)
_COMMENT_LINE = re.compile(rb"^\s*(?:#|//|/\*|\*|--|;|<!--|rem\b|::|\"\"\"|''')", re.IGNORECASE)
NOTICE_REACH = 60  # lines a notice block may extend either way from the line naming the licence

_DOCSTRING = re.compile(r"(?s)(\"\"\"|''').*?\1")
_COMMENT = re.compile(r"(?m)(?:^|(?<=\s))#[^\n]*$")


def _unescape(match: re.Match) -> str:
    code, letter = match.group(1), match.group(2)
    if letter is not None:
        return _ESCAPED[letter]
    char = chr(int(code, 16))
    return " " if 0xD800 <= ord(char) <= 0xDFFF else char


def normalize(text: str) -> str:
    """JSON string escapes decoded, HTML entities decoded, code-fence and directive lines removed."""
    if "\\" in text:
        text = _JSON_ESCAPE.sub(_unescape, text)
    if "&" in text and _ENTITY.search(text):
        text = html.unescape(text)
    if "```" in text or "~~~" in text or ".. " in text:
        text = _FENCE.sub("", text)
    return text


def notice_words(text: str) -> list[tuple[int, int]]:
    """[start, end) word ranges (in ``words(text)`` numbering) of licence headers and notices."""
    data = encode(text)
    if not _NOTICE.search(data):
        return []
    lines = data.split(b"\n")
    marked = bytearray(len(lines))
    for number, line in enumerate(lines):
        if marked[number] or not _NOTICE.search(line):
            continue
        in_comment = bool(_COMMENT_LINE.match(line))

        def belongs(other: bytes) -> bool:
            # a comment block runs over comment lines, a paragraph over non-blank lines up to a
            # docstring's quotes
            if in_comment:
                return bool(_COMMENT_LINE.match(other))
            return other.strip() not in (b"", b'"""', b"'''")

        first = last = number
        while first > 0 and number - first < NOTICE_REACH and belongs(lines[first - 1]):
            first -= 1
        while last + 1 < len(lines) and last - number < NOTICE_REACH and belongs(lines[last + 1]):
            last += 1
        marked[first:last + 1] = b"\x01" * (last - first + 1)
    ranges: list[tuple[int, int]] = []
    position = 0
    for line, mark in zip(lines, marked, strict=True):
        count = len(words(line))
        if mark and count:
            if ranges and ranges[-1][1] == position:
                ranges[-1] = (ranges[-1][0], position + count)
            else:
                ranges.append((position, position + count))
        position += count
    return ranges


def code_only(text: str) -> str:
    """The text without triple-quoted strings and ``#`` comments (Python docstrings and notes)."""
    return _COMMENT.sub("", _DOCSTRING.sub("", text))

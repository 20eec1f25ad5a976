"""Credentials in delimited tables (CSV, TSV, semicolon- or pipe-separated): a header row naming a
credential column (password, api_key, client_secret, ...) and the rows under it, where a value has
no name of its own beside it. A column is judged as an assignment to its name would be: a password
column's non-placeholder values are passwords, a key or token column's values keys when they look
typed or generated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from quarry.curation.pii import suppress
from quarry.curation.pii.findings import KEY, PASSWORD, Finding, line_end, line_starts, lowered
from quarry.curation.pii.values import (describes_something_else, generated_key, plausible_password,
                                        plausible_secret, typed_secret)

DELIMITERS = ",;\t|"
_ROOTS = ("pass", "pwd", "secret", "token", "key")  # the words a credential column ends with (not auth, cred)
_HEADER_FIELD = re.compile(r"[ \t]*[A-Za-z][\w.-]{0,63}[ \t]*")   # a name: `User Name` is prose as often as a column
_PASSWORD_COLUMN = re.compile(r"(?i)(?:^|[_ .-])(?:pass(?:w(?:or)?d|phrase)?|pwd)$|^pass(?:w(?:or)?d|phrase)?(?:[_ .-]|$)")
# the credential word ends the name: api_token, clientSecret, x-auth-key (not token7, token_count)
_KEY_COLUMN = re.compile(r"(?i)(?:secret|token|(?:api|access|private|secret|client|auth|signing|app)[_ .-]?key)$")


def find_delimited(text: str) -> Iterator[Finding]:
    lower = lowered(text)
    headers = line_starts(lower, _ROOTS)
    read_to = 0
    for start in headers:
        if start < read_to:
            continue   # a row of a table already read (one whose words look like a header too)
        found: list[Finding] = []
        read_to = _table(text, start, found)
        yield from found


def _table(text: str, start: int, found: list[Finding]) -> int:
    """The credentials in the table whose header starts at ``start`` into ``found``; returns where
    the table ends (``start``: no table there)."""
    end = line_end(text, start)
    header = text[start:end].rstrip("\r")
    delimiter = max(DELIMITERS, key=header.count)
    if delimiter not in header:
        return start
    names = [field for field, _, _ in _fields(header, delimiter, 0)]
    if len(names) < 2 or not all(_HEADER_FIELD.fullmatch(name) for name in names):
        return start
    columns = {i: _column_type(name.strip()) for i, name in enumerate(names)}
    columns = {i: kind for i, kind in columns.items() if kind}
    if not columns:
        return start
    row = end + 1
    while row < len(text):
        row_end = line_end(text, row)
        fields = _fields(text[row:row_end].rstrip("\r"), delimiter, row)
        if len(fields) != len(names):
            break   # the table ends where a row no longer has the header's shape
        for i, kind in columns.items():
            value, value_start, value_end = fields[i]
            if _secret(value, kind):
                found.append(Finding(value_start, value_end, kind, "delimited_column", 0.7))
        row = row_end + 1
    return row


def _column_type(name: str) -> str | None:
    if describes_something_else(name):
        return None   # password_hash, token_type, key_id: about a credential, not one
    if _PASSWORD_COLUMN.search(name):
        return PASSWORD
    return KEY if _KEY_COLUMN.search(name) else None


def _secret(value: str, kind: str) -> bool:
    if not value or any(c.isspace() for c in value) or suppress.is_placeholder(value):
        return False
    if kind == PASSWORD:
        return plausible_password(value)
    return generated_key(value) or (plausible_secret(value, min_length=8, literal=True)
                                       and typed_secret(value, literal=True))


def _fields(line: str, delimiter: str, offset: int) -> list[tuple[str, int, int]]:
    """Each field of a delimited line with its span in the text (a double-quoted field's inside)."""
    fields, at = [], 0
    while True:
        if line.startswith('"', at):
            close = line.find('"', at + 1)
            while close >= 0 and line.startswith('""', close):
                close = line.find('"', close + 2)
            if close < 0:
                return []   # an unclosed quote: not a row this reader can place
            fields.append((line[at + 1:close].replace('""', '"'), offset + at + 1, offset + close))
            at = close + 1
            if at < len(line) and line[at] != delimiter:
                return []
        else:
            stop = line.find(delimiter, at)
            stop = len(line) if stop < 0 else stop
            fields.append((line[at:stop], offset + at, offset + stop))
            at = stop
        if at >= len(line):
            return fields
        at += 1   # past the delimiter
        if at == len(line):
            fields.append(("", offset + at, offset + at))
            return fields

"""Answers ScanCode would give, read from the license data it ships, without running it.

ScanCode's license database is a folder of ``<key>.LICENSE`` files (YAML front matter, then the
license text) in its own virtualenv. Two kinds of text are resolved from it alone:

- an ``SPDX-License-Identifier: <expression>`` line whose every id is the SPDX key (or one of the
  other SPDX keys) of exactly one current license: ScanCode's SPDX-id matcher maps it the same way;
- a text whose tokens, copyright lines left out (see normalize), are exactly those of a shipped
  license text: ScanCode's whole-text hash matcher answers that license.

Anything else (an unknown id, a ``LicenseRef``, a text with one word more) goes to ScanCode. The
table is built once per ScanCode install and kept as JSON beside the answer cache.
"""

from __future__ import annotations

import fcntl
import re
from pathlib import Path

import orjson
from license_expression import Licensing, combine_expressions

from quarry.curation.licenses.engine import Detection
from quarry.curation.licenses.normalize import normal_tokens, token_key, tokens_key
from quarry.records import atomic_write_bytes

TABLE_VERSION = 2  # the normal form keeps copyright lines that name a licence
MIN_TEXT_TOKENS = 20  # shorter shipped texts are notices that rules of other licenses may share
SPDX_STATEMENT = re.compile(r"^SPDX-License-Identifier:\s*([^\n]+)$", re.I)  # a normal form that is one
_FRONT_MATTER = re.compile(r"^---\n(.*?)\n---[ \t]*\n?(.*)$", re.S)
_EXPRESSION_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_OPERATORS = {"and": "AND", "or": "OR", "with": "WITH"}
_licensing = Licensing()


def licenses_folder(python: Path) -> Path | None:
    """ScanCode's license texts in the virtualenv of ``python`` (the venv path, symlinks kept)."""
    import os

    prefix = Path(os.path.abspath(python)).parent.parent
    for folder in sorted(prefix.glob("lib/python3*/site-packages/licensedcode/data/licenses")):
        return folder
    return None


def _front_matter(text: str) -> tuple[Detection, str]:
    """The few front-matter fields used here, and the license text after it."""
    found = _FRONT_MATTER.match(text)
    head, body = (found.group(1), found.group(2)) if found else ("", text)
    fields: Detection = {}
    current = None
    for line in head.splitlines():
        if line.startswith((" ", "\t")):
            item = line.strip()
            if current == "other_spdx_license_keys" and item.startswith("- "):
                fields[current].append(item[2:].strip().strip("'\""))
            continue
        name, _, value = line.partition(":")
        current = name.strip()
        value = value.strip().strip("'\"")
        fields[current] = [] if current == "other_spdx_license_keys" and not value else value
    return fields, body


def license_body(text: str) -> str:
    """A ``.LICENSE`` file's licence text, its front matter left out."""
    return _front_matter(text)[1]


def build_table(folder: Path) -> Detection:
    """{"licenses": key -> {spdx, category}, "spdx": lower-cased SPDX id -> key (unique ones),
    "texts": token hash -> key} from ScanCode's ``*.LICENSE`` files."""
    licenses: dict[str, dict[str, str]] = {}
    spdx_owners: dict[str, set[str]] = {}
    text_owners: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.LICENSE")):
        fields, body = _front_matter(path.read_text(encoding="utf-8"))
        key = fields.get("key") or path.stem
        spdx = fields.get("spdx_license_key") or f"LicenseRef-scancode-{key}"
        licenses[key] = {"spdx": spdx, "category": fields.get("category", "")}
        if fields.get("is_deprecated") in ("yes", "true", "True"):
            continue
        for spdx_id in [fields.get("spdx_license_key"), *(fields.get("other_spdx_license_keys") or [])]:
            if spdx_id:
                spdx_owners.setdefault(spdx_id.lower(), set()).add(key)
        found = normal_tokens(body)  # the tokens of normalize(body), as resolve reads a text
        if len(found) >= MIN_TEXT_TOKENS:
            text_owners.setdefault(tokens_key(found), set()).add(key)
    unique = lambda owners: {k: next(iter(v)) for k, v in sorted(owners.items()) if len(v) == 1}  # noqa: E731
    return {"version": TABLE_VERSION, "licenses": licenses, "spdx": unique(spdx_owners), "texts": unique(text_owners)}


def _read_table(cache_file: Path) -> Detection | None:
    try:
        table = orjson.loads(cache_file.read_bytes())
    except (FileNotFoundError, orjson.JSONDecodeError):
        return None
    return table if table.get("version") == TABLE_VERSION else None


class KnownLicenses:
    """Resolves texts from ScanCode's shipped license data (see the module docstring)."""

    def __init__(self, table: Detection):
        self.licenses = table["licenses"]
        self.spdx = table["spdx"]
        self.texts = table["texts"]

    @classmethod
    def load(cls, python: Path, cache_file: Path) -> KnownLicenses | None:
        """The table of the ScanCode install of ``python``, built on first use and kept in ``cache_file``;
        None when that install ships no license folder."""
        if (table := _read_table(cache_file)) is not None:
            return cls(table)
        folder = licenses_folder(python)
        if folder is None:
            return None
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        with open(cache_file.with_name(cache_file.name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # worker processes starting together build it once
            if (table := _read_table(cache_file)) is None:
                table = build_table(folder)
                atomic_write_bytes(cache_file, orjson.dumps(table))
        return cls(table)

    def resolve(self, normal: str) -> Detection | None:
        """ScanCode's result for a normalised text, when the shipped data alone decides it."""
        if match := SPDX_STATEMENT.match(normal):
            return self._spdx_line(match.group(1))
        if key := self.texts.get(token_key(normal)):
            return self._result(key, "1-hash", f"{key}.LICENSE", normal.count("\n") + 1)
        return None

    def _spdx_line(self, expression: str) -> Detection | None:
        parts = []
        for token in _EXPRESSION_TOKEN.findall(expression):
            if token in "()":
                parts.append(token)
            elif token.lower() in _OPERATORS:
                parts.append(_OPERATORS[token.lower()])
            elif (key := self.spdx.get(token.lower())) is not None:
                parts.append(key)
            else:
                return None  # an id ScanCode would have to interpret (unknown, ambiguous, LicenseRef, typo)
        try:
            combined = combine_expressions([" ".join(parts)], relation="AND", unique=True, licensing=_licensing)
        except Exception:  # noqa: BLE001 - license-expression raises several types on a malformed expression
            return None
        if combined is None:
            return None
        return self._result(str(combined), "1-spdx-id", "spdx-license-identifier", 1)

    def _result(self, expression: str, matcher: str, rule: str, lines: int) -> Detection:
        """A result shaped as the worker's (scancode_worker.detect_one)."""
        keys = sorted(set(_licensing.license_keys(expression)))
        spdx = _licensing.parse(expression).render("{symbol.key}")
        spdx = re.sub(r"[^\s()]+", lambda m: self.licenses[m.group()]["spdx"] if m.group() in self.licenses
                      else m.group(), spdx)
        return {"expression": expression, "spdx": spdx, "score": 100.0,
                "keys": {key: dict(self.licenses[key]) for key in keys},
                "matches": [{"expression": expression, "score": 100.0, "matcher": matcher, "rule": rule,
                             "lines": [1, lines]}]}

"""Per-path license declarations: Debian machine-readable copyright files (also REUSE's
``.reuse/dep5``) and ``REUSE.toml``. Each yields rules (path patterns -> license statement) that
govern the files they name, relative to the folder the declaration speaks for.

Patterns follow each format: Debian ``*`` and ``?`` also match ``/`` and the last matching
paragraph wins; REUSE.toml ``*`` stays within a folder, ``**`` crosses folders, and the last
matching annotation wins.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from fnmatch import fnmatchcase

from quarry.curation.licenses.sources import as_spdx_statement

CLOSEST, AGGREGATE, OVERRIDE = "closest", "aggregate", "override"


@dataclass(frozen=True)
class Rule:
    patterns: tuple[str, ...]
    statement: str  # text for ScanCode: an SPDX line when the license is a valid expression
    precedence: str = CLOSEST
    reuse_glob: bool = False  # REUSE.toml glob rules instead of Debian's

    def matches(self, path: str) -> bool:
        return any(_reuse_match(p, path) if self.reuse_glob else fnmatchcase(path, p.strip("/"))
                   for p in self.patterns)


def _reuse_match(pattern: str, path: str) -> bool:
    regex = "".join(".*" if part == "**" else "[^/]*" if part == "*" else re.escape(part)
                    for part in re.split(r"(\*\*|\*)", pattern.strip("/")))
    return re.fullmatch(regex, path) is not None


def declaration_base(path: str) -> str | None:
    """The folder a declaration file speaks for, or None when the path is not one."""
    parts = path.strip("/").split("/")
    if len(parts) >= 2 and parts[-2:] in (["debian", "copyright"], [".reuse", "dep5"]):
        return "/".join(parts[:-2])
    if parts[-1] == "REUSE.toml":
        return "/".join(parts[:-1])
    return None


def parse_declaration(path: str, text: str) -> list[Rule] | None:
    """The rules of a declaration file; None when it is not machine-readable (a Debian copyright
    file in free form is then an ordinary license text)."""
    if path.rsplit("/", 1)[-1] == "REUSE.toml":
        return _reuse_toml(text)
    return _dep5(text)


def _reuse_toml(text: str) -> list[Rule] | None:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    rules = []
    for note in data.get("annotations") or []:
        paths = note.get("path")
        paths = [paths] if isinstance(paths, str) else [p for p in paths or [] if isinstance(p, str)]
        expression = note.get("SPDX-License-Identifier")
        expression = " AND ".join(f"({e})" for e in expression) if isinstance(expression, list) else expression
        if paths and isinstance(expression, str) and expression.strip():
            rules.append(Rule(tuple(paths), as_spdx_statement(expression), str(note.get("precedence", CLOSEST)),
                              reuse_glob=True))
    return rules


def _paragraphs(text: str) -> list[dict[str, str]]:
    """RFC 822-style stanzas: field -> value (continuation lines joined with newlines)."""
    stanzas, current, field = [], {}, None
    for line in text.splitlines():
        if not line.strip():
            if current:
                stanzas.append(current)
            current, field = {}, None
        elif line[0] in " \t" and field:
            current[field] += "\n" + (line.strip() if line.strip() != "." else "")
        elif ":" in line:
            field, value = line.split(":", 1)
            field = field.strip().lower()
            current[field] = value.strip()
    if current:
        stanzas.append(current)
    return stanzas


def _dep5(text: str) -> list[Rule] | None:
    stanzas = _paragraphs(text)
    if not stanzas or "format" not in stanzas[0] or "copyright-format" not in stanzas[0]["format"] + \
            stanzas[0].get("format-specification", ""):
        return None
    texts = {s["license"].split("\n", 1)[0].strip().lower(): s["license"].split("\n", 1)[1]
             for s in stanzas if "files" not in s and "\n" in s.get("license", "")}
    rules = []
    for stanza in stanzas:
        if "files" not in stanza or not stanza.get("license"):
            continue
        rules.append(Rule(tuple(stanza["files"].split()), _statement(stanza["license"], texts)))
    return rules


def _statement(license_field: str, texts: dict[str, str]) -> str:
    """A stanza's ``License:`` field as text for ScanCode: an SPDX line for a short name or expression,
    else the field's own text, else the stand-alone text of that name (``texts``), else the name."""
    name, _, body = license_field.partition("\n")
    expression = debian_expression(name)
    return f"SPDX-License-Identifier: {expression}" if expression else \
        (body.strip() or texts.get(name.strip().lower()) or name)


# Debian short names (https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/#license-short-name)
# that are not SPDX ids as they stand.
_DEBIAN = {"expat": "MIT", "mit": "MIT", "bsd-2-clause": "BSD-2-Clause", "bsd-3-clause": "BSD-3-Clause",
           "bsd-4-clause": "BSD-4-Clause", "isc": "ISC", "zlib": "Zlib",
           "public-domain": "LicenseRef-scancode-public-domain",
           "psf-2": "PSF-2.0", "python-2.0": "Python-2.0", "apache-2.0": "Apache-2.0", "apache-1.1": "Apache-1.1",
           "mpl-1.1": "MPL-1.1", "mpl-2.0": "MPL-2.0", "artistic": "Artistic-1.0-Perl", "artistic-2.0": "Artistic-2.0",
           "cc0-1.0": "CC0-1.0", "cc0": "CC0-1.0", "unlicense": "Unlicense", "zope-2.1": "ZPL-2.1",
           "epl-1.0": "EPL-1.0",
           "epl-2.0": "EPL-2.0", "wtfpl": "WTFPL", "x11": "X11", "ofl-1.1": "OFL-1.1", "boost-1.0": "BSL-1.0",
           "mit/x11": "MIT", "pd": "LicenseRef-scancode-public-domain", "bsd-2": "BSD-2-Clause",
           "bsd-3": "BSD-3-Clause"}
_GNU = re.compile(r"^(a?gpl|lgpl|gfdl)(?:-|v|-v)?(\d)(?:\.(\d))?(\+)?$", re.I)  # GPL-2+, GPLv3+, LGPL-2.1
_EXCEPTION = re.compile(r"^(.*?)\s+with\s+(\S+)\s+exception$", re.I)


def _debian_id(name: str) -> str | None:
    name = name.strip()
    if match := _EXCEPTION.match(name):
        base = _debian_id(match.group(1))
        return f"{base} WITH {match.group(2)}-exception" if base else None
    if match := _GNU.match(name):
        family, major, minor, later = match.groups()
        minor = minor or "0"
        return f"{family.upper()}-{major}.{minor}-{'or-later' if later else 'only'}"
    if name.lower() in _DEBIAN:
        return _DEBIAN[name.lower()]
    statement = as_spdx_statement(name)
    return name if statement.startswith("SPDX-License-Identifier:") else None


def debian_expression(field: str) -> str | None:
    """A Debian ``License:`` short name expression ("GPL-2+ or Artistic", "MIT and BSD-3-clause")
    as SPDX; None when a part has no SPDX equivalent."""
    parts = re.split(r"[\s_]+(or|and)[\s_]+|\s*([|,])\s*", field.strip(), flags=re.I)
    out = []
    for part in parts:
        if part is None:
            continue
        if part.lower() in ("or", "|"):
            out.append("OR")
        elif part.lower() in ("and", ","):
            out.append("AND")
        elif part:
            if (spdx := _debian_id(part)) is None:
                return None
            out.append(f"({spdx})" if " " in spdx else spdx)
    expression = " ".join(out)
    return expression if expression and as_spdx_statement(expression) != expression else None


# A licence file that lists the components a package bundles after its own licence, one stanza each
# ("Name: OpenBLAS / Files: numpy.libs/libscipy_openblas*.so / License: BSD-3-Clause"; numpy's, scipy's
# and matplotlib's wheels): each stanza is the licence of the files it names, not of the package.
_BUNDLED_STANZA = re.compile(r"^Name:[ \t]*\S.*\n(?:[ \t]*\S.*\n){0,3}?Files:[ \t]*\S", re.M)
_INTRO = re.compile(r"^\s*-{3,}\s*$|\bbundle", re.I | re.M)   # a rule, "bundles the following software"


def bundled_components(text: str) -> tuple[str, list[Rule]]:
    """(the package's own licence text, a rule per bundled component's stanza) — the text whole and
    no rules when it lists no component or holds nothing before the list."""
    start = _BUNDLED_STANZA.search(text)
    if start is None:
        return text, []
    paragraphs = re.split(r"\n\s*\n", text[:start.start()].strip())
    while paragraphs and _INTRO.search(paragraphs[-1]) and len(paragraphs[-1]) < 400:
        paragraphs.pop()   # the separator and the sentence introducing the list
    main = "\n\n".join(paragraphs).strip()
    rules = []
    for stanza in _paragraphs(text[start.start():]):
        if not stanza.get("files") or not stanza.get("license"):
            continue
        rules.append(Rule(tuple(stanza["files"].split()), _statement(stanza["license"], {})))
    return (main, rules) if main and rules else (text, [])

"""What to show ScanCode: license-bearing repository files, manifest declarations, file headers.

Repository level (as The Stack v2): root files in three tiers, the first tier that yields a
detection governs — license files (LICENSE*, COPYING*, ...), then package manifests (their
declared license, read as data, not as prose), then NOTICE / README. File level: an
``SPDX-License-Identifier`` line, else the leading comment block when it has license words.
"""

from __future__ import annotations

import configparser
import email.parser
import json
import re
import tomllib
from xml.etree import ElementTree

from license_expression import get_spdx_licensing

LICENSE_TIER, MANIFEST_TIER, README_TIER = 0, 1, 2

_LICENSE_NAME = re.compile(r"^(licen[cs]es?|copying|unlicense|copyright|eula)([-._ ].*)?$", re.I)
_README_NAME = re.compile(r"^(readme|notice)([-._ ].*)?$", re.I)
MANIFESTS = {"package.json", "pyproject.toml", "setup.cfg", "cargo.toml", "metadata", "pkg-info", "composer.json",
             "pom.xml"}
# Files named like licenses that are code or data, never license texts (license.py, copyright.json).
_CODE_SUFFIX = re.compile(r"\.(py[iwx]?|pyc|[ch](pp|xx|c)?|hh|java|kt|scala|go|rs|rb|php|pl|pm|sh|bash|js|mjs|cjs|"
                          r"ts|tsx|jsx|json|ya?ml|toml|xml|cfg|ini|css|scss|less|swift|cs|m|mm|lua|r|jl|el|vim|sql|"
                          r"tmpl|j2|jinja2?|in|cmake|mk|bat|ps1|lock|svg|png|jpe?g|gif|ico|pdf|pyd|so|dll|dylib|o|a|"
                          r"class|jar)$", re.I)

SPDX_LINE = re.compile(r"SPDX-License-Identifier:\s*(.+)", re.I)
_SPDX_TAIL = re.compile(r"\s*(\*/|-->|--\}|\*\)|#\}|'''|\"\"\")\s*$")
# What makes a header a licence statement, licences' short names included ("GPLv2", "LGPL-2.1+", "BSD-3",
# "Apache 2.0", "MPL 2.0"): a copyright line naming one is a grant ("(C) 2001 N. P., released under GPL v2")
# and is never dropped from the header
# (permissive grants that never say "license": zlib's "Permission is granted to anyone", ISC's
# "Permission to use, copy, modify ... is hereby granted")
GRANT_WORDS = (r"permission (?:is )?(?:hereby )?granted|permission to use,? copy|is hereby granted|"
               r"redistribution and use")
LICENSEISH = re.compile(rf"licen[cs]|copyleft|{GRANT_WORDS}|"
                        r"gnu (lesser |affero )?general public|public domain|all rights reserved|proprietary|"
                        r"confidential|spdx|(?<![a-z])(?:a|l|lib)?gpl(?:v?\d|(?![a-z]))|"
                        r"\b(?:mpl|epl|cddl|eupl)[-\s]?v?\d|\bbsd[-\s]?\d|\bapache[-\s]+(?:v(?:ersion)?\s*)?2", re.I)
# A copyright line ("Copyright (c) 2010 N. P.", "(C) 2001", "© Acme"), not a licence's sentence that a
# line break starts with the word ("copyright notice and this permission notice appear in supporting
# documentation", "copyright holders and contributors be liable"): dropping one of those left X11's and
# the HPND family's texts with a hole ScanCode could not match across
_COPYRIGHT_ONLY = re.compile(r"^\W*(copyright\b(?!\s+(?:notices?|holders?|owners?|laws?|statements?|and|or|of|to|in|"
                             r"on|is|are|must|shall|may)\b)|\(c\)|©)", re.I)
_COMMENT = re.compile(r"^\s*(#|//|/\*|\*|--|;|%|<!--|\"\"\"|'''|\{-|\(\*|rem\b|@REM|!)", re.I)
# A preprocessor line among a header's comments (an include guard, a `#if` around the whole file): passed over,
# neither part of the header nor its end (read before _COMMENT, whose `#` it is not).
_PREPROCESSOR = re.compile(r"^\s*(?:#\s*(?:include|define|undef|ifn?def|if|elif|else|endif|pragma|import)\b"
                           r"|extern\s+\"C\"\s*\{\s*$)")   # and C++'s linkage block a header opens among them
MAX_HEADER_CHARS = 8000  # a header is prose; a longer block is minified code or data
_spdx = get_spdx_licensing()


def repo_file_tier(path: str) -> int | None:
    """The tier of a license-bearing file at any depth, or None for any other file. A README
    counts at the root of a repository (or of a vendored library) only: deeper ones describe
    code, not its license."""
    path = path.strip("/")
    name = path.rsplit("/", 1)[-1]
    if _CODE_SUFFIX.search(name) and name.lower() not in MANIFESTS:
        return None
    if _LICENSE_NAME.match(name):
        return LICENSE_TIER
    if name.lower() in MANIFESTS or name.lower().endswith(".gemspec"):
        return MANIFEST_TIER
    if _README_NAME.match(name) and ("/" not in path or name.lower().startswith("notice") or is_vendored_root(path)):
        return README_TIER
    return None


_VENDOR_FOLDERS = {"vendor", "_vendor", "vendored", "third_party", "third-party", "thirdparty", "3rdparty",
                   "external", "extern", "deps"}


def is_vendored_root(path: str) -> bool:
    """A file at the top of a vendored library (``third_party/zlib/README``): a repository's root
    of its own, whose README speaks for it."""
    parts = path.split("/")
    return len(parts) >= 3 and parts[-3].lower() in _VENDOR_FOLDERS


def vendored_library(path: str) -> str | None:
    """The innermost vendored library folder holding ``path`` (``pip/_vendor/chardet`` for
    ``pip/_vendor/chardet/cli/x.py``), or None."""
    parts = path.split("/")
    for i in range(len(parts) - 3, -1, -1):
        if parts[i].lower() in _VENDOR_FOLDERS:
            return "/".join(parts[:i + 2])
    return None


def as_spdx_statement(declared: str) -> str:
    """A declared license as ScanCode should read it: an SPDX line when it is a valid expression."""
    declared = declared.strip()
    try:
        valid = bool(declared) and not _spdx.validate(declared).errors
    except (AttributeError, ValueError):  # license-expression can fail inside validate on odd tokens
        valid = False
    return f"SPDX-License-Identifier: {declared}" if valid else declared


def declared_licenses(path: str, text: str) -> str | None:
    """The license a package manifest declares, as text for ScanCode; None when it declares none."""
    name = path.rsplit("/", 1)[-1].lower()
    try:
        if name == "composer.json":  # composer's list of licenses is a choice
            found = [_any_of(_from_json(json.loads(text)))]
        elif name == "package.json":
            found = _from_json(json.loads(text))
        elif name == "cargo.toml":  # cargo's old "MIT/Apache-2.0" is a choice
            found = [re.sub(r"\s*/\s*", " OR ", v) if isinstance(v, str) else v
                     for v in _from_toml(tomllib.loads(text))]
        elif name == "pyproject.toml":
            found = _from_toml(tomllib.loads(text))
        elif name == "pom.xml":
            found = _from_pom(text)
        elif name.endswith(".gemspec"):
            found = _from_gemspec(text)
        elif name == "setup.cfg":
            found = _from_setup_cfg(text)
        elif name in ("metadata", "pkg-info"):
            found = _from_core_metadata(text)
        else:
            return None
    except (ValueError, TypeError, KeyError, tomllib.TOMLDecodeError, configparser.Error, ElementTree.ParseError):
        return None  # a broken manifest declares nothing we can trust
    found = [_npm_words(item.strip()) for item in found if isinstance(item, str) and item.strip()]
    found = [item for item in found if item]
    if not found:
        return None
    return "\n".join(as_spdx_statement(item) if not item.startswith(("License ::", "SPDX-")) else item
                     for item in found)


def _from_json(data) -> list:
    value = data.get("license") or data.get("licenses")
    if isinstance(value, dict):
        value = value.get("type")
    if isinstance(value, list):
        return [v.get("type") if isinstance(v, dict) else v for v in value]
    return [value]


def _npm_words(declared: str) -> str | None:
    """npm's "UNLICENSED" reserves every right (not the Unlicense); "SEE LICENSE IN <file>" points
    at a file that governs by itself."""
    if declared.upper() == "UNLICENSED":
        return "SPDX-License-Identifier: LicenseRef-scancode-proprietary-license"
    return None if declared.upper().startswith("SEE LICEN") else declared


def _any_of(values: list) -> str | None:
    values = [v.strip() for v in values if isinstance(v, str) and v.strip()]
    return values[0] if len(values) == 1 else " OR ".join(f"({v})" if " " in v else v for v in values) or None


def _from_pom(text: str) -> list:
    """Maven: "if multiple licenses are listed, the user can select any of them"."""
    def local(element) -> str:
        return element.tag.rsplit("}", 1)[-1]

    root = ElementTree.fromstring(text)
    return [_any_of([child.text for el in root.iter() if local(el) == "license" for child in el
                     if local(child) == "name"])]


_GEMSPEC_LICENSE = re.compile(r"\.licen[cs]es?\s*=\s*(\[[^\]]*\]|[\"'][^\"']+[\"'])")


def _from_gemspec(text: str) -> list:
    if not (match := _GEMSPEC_LICENSE.search(text)):
        return []
    return [_any_of(re.findall(r"[\"']([^\"']+)[\"']", match.group(1)))]  # a gem's licenses are a choice


def _from_toml(data) -> list:
    for table in (data.get("project", {}), data.get("package", {}), data.get("tool", {}).get("poetry", {})):
        value = table.get("license")
        if isinstance(value, dict):
            value = value.get("text")
        if isinstance(value, str) and value.strip():
            return [value]
        classifiers = [c for c in table.get("classifiers", []) if c.startswith("License ::")]
        if classifiers:
            return classifiers
    return []


def _from_setup_cfg(text: str) -> list:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    if not parser.has_section("metadata"):
        return []
    meta = parser["metadata"]
    if meta.get("license", "").strip():
        return [meta["license"]]
    return [c.strip() for c in meta.get("classifiers", "").splitlines() if c.strip().startswith("License ::")]


def _from_core_metadata(text: str) -> list:
    headers = email.parser.HeaderParser().parsestr(text)
    if expression := headers.get("License-Expression"):
        return [expression]
    classifiers = [c for c in headers.get_all("Classifier", []) if c.startswith("License ::")]
    license_field = (headers.get("License") or "").strip()
    if license_field and license_field.upper() != "UNKNOWN" and len(license_field) < 200:
        # A name that is no SPDX expression reads as the field it is ("License: BSD"): ScanCode
        # matches a bare "BSD" or "GPL" to nothing.
        valid = as_spdx_statement(license_field) != license_field
        return [license_field if valid or "\n" in license_field else f"License: {license_field}"]
    if classifiers:
        return classifiers
    return [license_field] if license_field.upper() != "UNKNOWN" else []


def spdx_identifier(text: str, max_lines: int) -> str | None:
    """The expression of the first ``SPDX-License-Identifier`` line among the first lines."""
    for line in text[:MAX_HEADER_CHARS].splitlines()[:max_lines]:
        if match := SPDX_LINE.search(line):
            expression = _SPDX_TAIL.sub("", match.group(1)).strip().strip("\"',;")
            return expression or None
    return None


# Block comments: (opening, closing) markers; C's, HTML's, Haskell's, OCaml's and Pascal's, Lua's.
_BLOCK_COMMENTS = (("/*", "*/"), ("<!--", "-->"), ("{-", "-}"), ("(*", "*)"), ("--[[", "]]"))


def _opened_block(line: str) -> str | None:
    """The closing marker a comment line starting a block comment leaves open, else None."""
    for opening, closing in _BLOCK_COMMENTS:
        if line.startswith(opening) and closing not in line[len(opening):]:
            return closing
    return None


def license_header(text: str, max_lines: int) -> str | None:
    """The leading comment block (shebang and blank lines allowed; a comment begun within
    ``max_lines`` read to its end), without copyright-only lines, when it mentions a license; None
    otherwise. Dropping the copyright lines lets the same header under different owners and years
    hit the same cache entry. Inside a block comment a line needs no marker of its own (glibc's
    headers indent their lines between `/*` and `*/`)."""
    block: list[str] = []
    in_docstring = False
    closing = None   # the marker that ends the block comment the header is in
    begun = False    # a comment line has been read
    for number, line in enumerate(text[:MAX_HEADER_CHARS * 2].splitlines()):
        stripped = line.strip()
        if number >= max_lines and (in_docstring or not (closing or (begun and stripped and _COMMENT.match(line)))):
            break   # a comment begun within max_lines is read to its end: a licence cut short matches nothing
            #         (a docstring is not: a module's documentation would dilute its licence line)
        if number == 0 and stripped.startswith("#!"):
            continue
        if closing:
            block.append(line)
            closing = None if closing in stripped else closing
            continue
        if not in_docstring and _PREPROCESSOR.match(line):
            continue
        quotes = stripped.count('"""') + stripped.count("'''")
        if in_docstring or _COMMENT.match(line) or not stripped:
            block.append(line)
            begun = begun or bool(stripped)
            in_docstring = in_docstring != (quotes % 2 == 1)
            closing = None if in_docstring else _opened_block(stripped)
            continue
        break
    kept = [line for line in block if not (_COPYRIGHT_ONLY.match(line) and not LICENSEISH.search(line))]
    header = "\n".join(kept).strip()[:MAX_HEADER_CHARS]
    if not header or not LICENSEISH.search(header):
        return None
    return header

"""The normalised form of a text shown to ScanCode: what decides its answer, and nothing else.

ScanCode reads a text as a sequence of lower-cased word tokens: comment markers, indentation and
spacing never reach its matchers. Copyright lines name holders and years, which are no part of a
license. So one MIT text under a thousand holders, or one license header in ``#``, ``//`` and
``*`` comments, normalises to one text. ``normalize`` keeps every token but those of copyright
lines (an "All rights reserved" stays, a copyright line that also grants a license stays whole)
and keeps the lines, so that ScanCode's line-based matchers (SPDX-License-Identifier lines, query
runs split at four empty lines) see the same structure.

``license_part`` then leaves out, from a notice (a text of at most 40 lines, such as a file's
license header), the leading and trailing paragraphs that say nothing about rights (no license,
copyright, warranty or grant word): the module docstring after a license header, the title above
it, and the first paragraph's leading lines that say nothing about rights (a title on the line above
"This file is part of ..."). What ScanCode is shown, and the cache key, is that part; every text
with the same part gets the same answer, whichever text brought it.
"""

from __future__ import annotations

import hashlib
import re

# Leading and trailing comment markers and decoration: no word characters, so no ScanCode token
# (a "+" is kept: "GPL-2.0+" is one token).
_LEAD = re.compile(r"^(?:\s|[#*/;!%|>=~`\"']|--|<!--|\{-|\(\*)+")
_TRAIL = re.compile(r"(?:\s|[#*/;|=~`\"']|-->|-\}|\*\))+$")
_COPYRIGHT = re.compile(r"^(?:portions\s+)?(?:copyright\b|\(c\)|©)", re.I)
_RESERVED = re.compile(r"all\s+rights\s+reserved\.?", re.I)
# Words that name a licence, its abbreviations and ids included ("GPLv2", "LGPL-2.1+", "BSD-3-Clause",
# "Apache 2.0", "MIT", "Artistic", "public domain", "CC-BY-4.0"): a line holding one is never dropped,
# even when it also reads as a copyright line ("Copyright: (C) 2010 N. P.  GPLv2.").
LICENSE_NAMES = (r"licen[cs]|copyleft|public[\s-]*domain|(?<![a-z])(?:a|l|lib)?gpl|\bgnu\b|\bmit\b(?!\.edu)|"
                 r"\bbsd\b|\bx11\b|\bexpat\b|apache|\basl\b|mozilla|"
                 r"\b(?:mpl|epl|cpl|cddl|eupl|lppl|osl|afl|apsl|npl|ofl|bsl|zpl)(?:[-\s]?v?\d|\b)|"
                 r"\b(?:cecill|wtfpl|unlicense|zlib|libpng|isc|psf|0bsd|ncsa|postgresql|openssl|ssleay)\b|artistic|creative\s*commons|\bcc[-\s]?(?:by|0|zero|pdm)\b|spdx|"
                 r"free software|open[\s-]*source")
# A copyright line holding one of these is a grant as well: it stays whole.
_GRANT = re.compile(LICENSE_NAMES + r"|permission|permitted|redistribut|warrant|terms|conditions", re.I)
# A paragraph with none of these words cannot hold a license statement ScanCode would match.
RIGHTS_WORDS = re.compile(
    LICENSE_NAMES + r"|copyright|permission|permitted|grant|distribut|warrant|liab|as[\s-]+is\b|"
    r"\bepl|python software foundation|terms|condition|rights|reserved|proprietary|"
    r"confidential|patent|trademark|disclaim|notice|legal|agreement|contributor", re.I)
MAX_NOTICE_LINES = 40  # longer texts are license files, left whole (a license may end in "The End")
MAX_BLANK_RUN = 4  # ScanCode starts a new query run after this many empty lines; longer runs are the same
_TOKEN = re.compile(r"[^_\W]+\+?[^_\W]*")  # ScanCode's query token pattern (licensedcode.tokenize)


def _line(raw: str) -> str | None:
    """A line without its comment markers and extra spaces; None for a copyright line to drop."""
    line = " ".join(_TRAIL.sub("", _LEAD.sub("", raw)).split())
    if not _COPYRIGHT.match(line):
        return line
    if _GRANT.search(_RESERVED.sub("", line)):
        return line  # "Copyright 2020 X, licensed under the MIT license": the grant is part of it
    return "All rights reserved." if _RESERVED.search(line) else None


def normalize(text: str) -> str:
    """The normal form of ``text`` (see the module docstring)."""
    lines: list[str] = []
    blank = 0
    for raw in text.splitlines():
        line = _line(raw)
        if line is None:
            continue
        if not line:
            blank += 1
            continue
        if lines and blank:
            lines.extend([""] * min(blank, MAX_BLANK_RUN))
        blank = 0
        lines.append(line)
    return "\n".join(lines)


def license_part(normal: str) -> str:
    """A normal form without its leading and trailing paragraphs that say nothing about rights
    (the whole of it when no paragraph does)."""
    if normal.count("\n") >= MAX_NOTICE_LINES:
        return normal  # a license file: its paragraphs all belong to it
    paragraphs = re.split(r"\n\n+", normal)
    rights = [i for i, paragraph in enumerate(paragraphs) if RIGHTS_WORDS.search(paragraph)]
    if not rights:
        return normal
    kept = re.split(r"(\n\n+)", normal)[2 * rights[0]:2 * rights[-1] + 1]  # the separators kept as they were
    kept[0] = _from_first_rights_line(kept[0])
    return "".join(kept)


# A line that leaves its sentence open: the next starts in lower case, or it ends on a word that
# cannot end one ("... is released under" / "the Apache 2.0 License").
_OPEN_ENDING = re.compile(r"\b(?:the|a|an|of|under|by|to|and|or|with|in|for|as|is|are|be)$", re.I)


def _from_first_rights_line(paragraph: str) -> str:
    """A paragraph without its leading lines that say nothing about rights: a file's own title
    above "This file is part of the GNU C Library." (one title per file made every header of a
    library a text of its own for ScanCode). A line whose sentence runs on stays, and all after it."""
    lines = paragraph.split("\n")
    for i, line in enumerate(lines):
        runs_on = i + 1 < len(lines) and (lines[i + 1][:1].islower() or _OPEN_ENDING.search(line) is not None)
        if runs_on or RIGHTS_WORDS.search(line):
            return "\n".join(lines[i:])
    return paragraph


def normal_key(normal: str) -> str:
    """The cache key of a normal form."""
    return hashlib.sha256(normal.encode("utf-8", "surrogatepass")).hexdigest()


def tokens(text: str) -> list[str]:
    """ScanCode's query tokens of a text."""
    return _TOKEN.findall(text.lower())


def token_key(text: str) -> str:
    """A hash of a text's token sequence: equal for texts ScanCode cannot tell apart."""
    return tokens_key(tokens(text))


def tokens_key(found: list[str]) -> str:
    """token_key of the text whose tokens are ``found``."""
    return hashlib.sha256(" ".join(found).encode("utf-8", "surrogatepass")).hexdigest()


# Line breaks other than \n that str.splitlines (and so normalize) also breaks lines at.
_OTHER_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_COPYRIGHT_WORD = re.compile(r"copyright|\(c\)|©", re.I)  # on every line _line may drop or change


def normal_tokens(text: str) -> list[str]:
    """``tokens(normalize(text))`` without building the normal form: its comment markers, spaces and
    blank lines hold no token, so only the lines that may be copyright lines need ``normalize``'s
    reading (a fraction of the time on ScanCode's licence texts)."""
    if _OTHER_BREAKS.search(text):
        return tokens(normalize(text))
    pieces, done = [], 0
    for hit in _COPYRIGHT_WORD.finditer(text):
        start = text.rfind("\n", 0, hit.start()) + 1
        if start < done:
            continue  # a line already read
        end = text.find("\n", hit.end())
        end = len(text) if end < 0 else end
        pieces += [text[done:start], _line(text[start:end]) or ""]
        done = end
    pieces.append(text[done:])
    return tokens("".join(pieces))

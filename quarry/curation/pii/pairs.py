"""A credential-like name paired with its value by position, with no operator between them, in the
syntaxes that write it so: an EDN / Clojure keyword and its string (``{:db-password "..."}``), a
Lisp definition (``(def api-token "...")``, ``(setq smtp-password "...")``), a Dockerfile's legacy
``ENV NAME value``, and a Terraform variable whose label is the name and whose ``default`` is the
value (``variable "db_password" { default = "..." }``).

Each pair is judged as the assignment ``name = value`` would be (quarry.curation.pii.assignments):
one judge for every syntax.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from quarry.curation.pii.findings import finditer_from, line_prefix, occurrences
from quarry.curation.pii.gates import present_literals, register

_ROOT = r"(?:pass|pwd|secret|token|cred|key|auth)"   # the roots the assignment finder anchors on
_STRING = r"\"(?P<value>[^\"\\\r\n]{1,512})\""

# a keyword starts with ':' where a symbol could not go on (not 'a:b', not '::'); then blanks and a string
_KEYWORD_PAIR = re.compile(r":(?<![\w:/.-]:)(?P<name>[\w.*+!?/-]{3,128})[ \t]+" + _STRING)
_LISP_DEFINITION = re.compile(r"\((?:def|defvar|defparameter|defconst|defconstant|defcustom|defonce|setq|setq-default"
                              r"|setf|set!|define)[ \t]+(?:\^\S+[ \t]+)*(?P<name>[^\s()\"']{3,128})[ \t]+" + _STRING)
# Docker's legacy form, the instruction starting its line: the value is the rest of the line (judged as a .env line's)
_DOCKER_LEGACY_ENV = re.compile(r"(?m)ENV[ \t]+(?P<name>[A-Za-z_][\w.-]{0,64})[ \t]+(?P<value>[^\s=][^\r\n]*?)[ \t]*\r?$")
# a C / C++ macro: `#define API_SECRET "..."`
_C_DEFINE = re.compile(r"#define[ \t]+(?P<name>\w{3,128})[ \t]+" + _STRING)
# a Groovy / Gradle method call without parentheses, its line's last: `storePassword "..."`, `password '...'`
# (matched in the line of each occurrence of its literal, which stands after the name's start)
_GROOVY_CALL = re.compile(r"(?<![\w.$])(?P<name>[A-Za-z_]\w{0,64}?[Pp]assword)[ \t]+(?P<q>[\"'])(?P<value>[^\"'\\\r\n]{1,512})"
                          r"(?P=q)[ \t]*(?:[;}]|\r?$)", re.M)
# a Terraform / OpenTofu variable block: its label names the value its `default` holds (nested
# blocks, such as `validation { ... }`, before the default are not crossed)
_TERRAFORM_VARIABLE = re.compile(r"variable[ \t]+\"?(?P<name>[\w-]{3,128})\"?[ \t]*\{"
                                 r"[^{}]{0,4000}?(?<![\w-])default[ \t]*=[ \t]*" + _STRING)
# Every pattern matches a name whole, its root looked for after (a lazy name up to a root, behind a
# leading lookbehind, was tried at every position of the text).
_NAME_HAS_ROOT = re.compile(_ROOT, re.I)

# Each pattern, and the literals a match of it starts with (most texts hold none): matched only where
# one occurs; a keyword's ':' is everywhere in code, so that pattern scans the text instead.
_STARTS = ((_LISP_DEFINITION, ("(def", "(set")), (_DOCKER_LEGACY_ENV, ("ENV ",)), (_TERRAFORM_VARIABLE, ("variable ",)),
           (_C_DEFINE, ("#define ",)))
_IN_LINE = ((_GROOVY_CALL, ('assword "', "assword '")),)
# looked for in one scan with the other detectors' literals (quarry.curation.pii.gates)
register(literal for _, literals in (*_STARTS, *_IN_LINE) for literal in literals)


@dataclass(frozen=True)
class Pair:
    name: str
    start: int     # the value's span in the text
    end: int
    quoted: bool   # a string literal's content; else a bare value (the rest of a line)


def positional_pairs(text: str) -> Iterator[Pair]:
    """Each credential-like name and its value written side by side."""
    found = [(m, True) for m in _KEYWORD_PAIR.finditer(text)]
    present = present_literals(text)
    for pattern, literals in _STARTS:
        if present.isdisjoint(literals):
            continue
        starts = sorted(at for literal in literals for at in occurrences(text, literal))
        found += [(m, pattern is not _DOCKER_LEGACY_ENV) for m in finditer_from(pattern, text, starts)]
    for pattern, literals in _IN_LINE:
        if present.isdisjoint(literals):
            continue
        lines = sorted({text.rfind("\n", 0, at) + 1 for literal in literals for at in occurrences(text, literal)})
        found += [(m, True) for start in lines for m in pattern.finditer(text, start, _line_end(text, start))]
    for m, quoted in found:
        if not quoted and line_prefix(text, m.start()).strip():
            continue  # ENV not starting its line is not the instruction
        if _NAME_HAS_ROOT.search(m.group("name")):
            yield Pair(m.group("name"), m.start("value"), m.end("value"), quoted)


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end

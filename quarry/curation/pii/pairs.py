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

from quarry.curation.pii.findings import line_prefix

_ROOT = r"(?:pass|pwd|secret|token|cred|key|auth)"   # the roots the assignment finder anchors on
_STRING = r"\"(?P<value>[^\"\\\r\n]{1,512})\""

# a keyword starts with ':' where a symbol could not go on (not 'a:b', not '::'); then blanks and a string
_KEYWORD_PAIR = re.compile(r":(?<![\w:/.-]:)(?P<name>[\w.*+!?/-]{3,128})[ \t]+" + _STRING)
_LISP_DEFINITION = re.compile(r"\((?i:def|defvar|defparameter|defconst|defconstant|defcustom|defonce|setq|setq-default"
                              r"|setf|set!|define)[ \t]+(?:\^\S+[ \t]+)*(?P<name>[^\s()\"']{3,128})[ \t]+" + _STRING)
# Docker's legacy form, the instruction starting its line: the value is the rest of the line (judged as a .env line's)
_DOCKER_LEGACY_ENV = re.compile(r"(?m)ENV[ \t]+(?P<name>[A-Za-z_][\w.-]{0,64})[ \t]+(?P<value>[^\s=][^\r\n]*?)[ \t]*\r?$")
# a Terraform / OpenTofu variable block: its label names the value its `default` holds (nested
# blocks, such as `validation { ... }`, before the default are not crossed)
_TERRAFORM_VARIABLE = re.compile(r"variable[ \t]+\"?(?P<name>[\w-]{3,128})\"?[ \t]*\{"
                                 r"[^{}]{0,4000}?(?<![\w-])default[ \t]*=[ \t]*" + _STRING)
# Each pattern starts with a literal the engine skips to, and matches a name whole: its root is looked
# for after (a lazy name up to a root, behind a leading lookbehind, was tried at every position).
_NAME_HAS_ROOT = re.compile(_ROOT, re.I)

# what each pattern needs in the text before it runs (most texts hold none)
_GATED = ((_KEYWORD_PAIR, (":",), True), (_LISP_DEFINITION, ("(",), True), (_DOCKER_LEGACY_ENV, ("ENV ",), False),
          (_TERRAFORM_VARIABLE, ("variable ",), True))   # (pattern, literals it needs, quoted value)


@dataclass(frozen=True)
class Pair:
    name: str
    start: int     # the value's span in the text
    end: int
    quoted: bool   # a string literal's content; else a bare value (the rest of a line)


def positional_pairs(text: str) -> Iterator[Pair]:
    """Each credential-like name and its value written side by side."""
    for pattern, gate, quoted in _GATED:
        if not any(word in text for word in gate):
            continue
        for m in pattern.finditer(text):
            if pattern is _DOCKER_LEGACY_ENV and line_prefix(text, m.start()).strip():
                continue
            if _NAME_HAS_ROOT.search(m.group("name")):
                yield Pair(m.group("name"), m.start("value"), m.end("value"), quoted)

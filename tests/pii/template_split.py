"""The labelled generators' templates in two fixed halves: a development half rules may be
tuned on and a held-back half none is, so a score on the held-back half measures how well
the rules carry to templates they were not written against.

A template is how a line is written, not the value planted in it: for labeled.py a style's way
of writing one kind of line ("YAML|password_assignment"), for labeled_context.py a snippet's
text with its values taken out and its words and numbers folded (the syntax it is written in).
Its half is a bit of the sha256 of that key: deterministic, and blind to what the rules do.
"""

from __future__ import annotations

import hashlib
import re

DEV, HELD_BACK = "dev", "held_back"
HALVES = (DEV, HELD_BACK)
_WORDS = re.compile(r"[A-Za-z0-9]+")


def template_half(key: str) -> str:
    return DEV if hashlib.sha256(key.encode("utf-8")).digest()[0] % 2 == 0 else HELD_BACK


def line_key(style: str, kind: str) -> str:
    return f"line|{style}|{kind}"


def snippet_key(name: str, parts: list) -> str:
    """A snippet's syntax: its literal text with planted positives as one mark and words folded
    (a hard negative's text is its template, so it is folded, not dropped)."""
    skeleton = "".join("\x00" if getattr(p, "type", None) else _WORDS.sub("w", getattr(p, "value", p))
                       for p in parts)
    return f"snippet|{name}|{skeleton}"

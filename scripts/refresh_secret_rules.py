"""Regenerate quarry/curation/pii/rules/gitleaks.json from a copy of gitleaks' rule set.

    git clone https://github.com/gitleaks/gitleaks && \
    python scripts/refresh_secret_rules.py gitleaks/config/gitleaks.toml --commit $(git -C gitleaks rev-parse HEAD) \
        --version $(git -C gitleaks describe --tags)

gitleaks is MIT licensed (Copyright (c) 2019 Zachary Rice); its rules are data here, cited in the
file's header. Each Go (RE2) regex is rewritten for Python's `re` (mid-pattern `(?i)` becomes a
scoped group, `\\z` becomes `\\Z`, POSIX classes are spelled out); a rule that still does not compile
is dropped and counted. Prints a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "quarry/curation/pii/rules/gitleaks.json"
_POSIX = {"[:alnum:]": "A-Za-z0-9", "[:alpha:]": "A-Za-z", "[:digit:]": "0-9", "[:upper:]": "A-Z",
          "[:lower:]": "a-z", "[:space:]": r"\s", "[:xdigit:]": "0-9A-Fa-f", "[:punct:]": r"!-/:-@\[-`{-~"}


def _scope_inline_flags(pattern: str) -> str:
    """Go allows `(?i)` anywhere, meaning "from here to the end of the group"; Python only at the
    start. Rewrite each later `(?i)` as `(?i:` closed where its enclosing group closes."""
    out, i, depth_stack, in_class = [], 0, [], False
    closers: list[int] = []  # depths at which an inserted group must close
    depth = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2]); i += 2; continue
        if in_class:
            if c == "]":
                in_class = False
            out.append(c); i += 1; continue
        if c == "[":
            in_class = True
            out.append(c)
            if pattern[i + 1:i + 2] == "]":  # a leading ']' is literal
                out.append("]"); i += 1
            i += 1; continue
        m = re.match(r"\(\?([a-z]+)\)", pattern[i:])
        if m and i > 0:
            out.append(f"(?{m.group(1)}:"); closers.append(depth); i += m.end(); continue
        if c == "(":
            depth += 1
        elif c == ")":
            while closers and closers[-1] == depth:
                out.append(")"); closers.pop()
            depth -= 1
        elif c == "|" and closers and closers[-1] == depth:
            # the flag's scope ends at an alternation of its own group
            while closers and closers[-1] == depth:
                out.append(")"); closers.pop()
        out.append(c); i += 1
    out.extend(")" for _ in closers)
    return "".join(out)


def to_python(pattern: str) -> str:
    for posix, spelled in _POSIX.items():
        pattern = pattern.replace(posix, spelled)
    pattern = pattern.replace(r"\z", r"\Z")
    return _scope_inline_flags(pattern)


def convert(toml: dict) -> tuple[list[dict], list[dict]]:
    rules, dropped = [], []
    for rule in toml["rules"]:
        if "regex" not in rule:  # path-only rules (e.g. a .pkcs12 file) say nothing about text
            dropped.append({"id": rule["id"], "why": "no regex"}); continue
        if rule.get("path"):  # rules that hold only in some files (PHP, Terraform...): the path is unknown here
            dropped.append({"id": rule["id"], "why": "path-scoped"}); continue
        try:
            regex = to_python(rule["regex"])
            re.compile(regex)
        except re.error as e:
            dropped.append({"id": rule["id"], "why": f"re: {e}"}); continue
        allow, stop = [], []
        for a in rule.get("allowlists", []):
            if a.get("regexTarget", "secret") == "secret":
                allow += [to_python(r) for r in a.get("regexes", [])]
            stop += a.get("stopwords", [])
        rules.append({"id": rule["id"], "regex": regex, "keywords": [k.lower() for k in rule.get("keywords", [])],
                      "entropy": rule.get("entropy", 0.0), "secret_group": rule.get("secretGroup", 0),
                      "allow": [r for r in allow if _compiles(r)], "stopwords": stop})
    return rules, dropped


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern); return True
    except re.error:
        return False


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("toml", type=Path, help="gitleaks' config/gitleaks.toml")
    p.add_argument("--commit", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--out", type=Path, default=OUT)
    a = p.parse_args(argv)
    toml = tomllib.loads(a.toml.read_text())
    rules, dropped = convert(toml)
    glob = toml.get("allowlist", {})
    doc = {"source": "https://github.com/gitleaks/gitleaks/blob/master/config/gitleaks.toml",
           "version": a.version, "commit": a.commit, "license": "MIT, Copyright (c) 2019 Zachary Rice",
           "generated_by": "scripts/refresh_secret_rules.py",
           "allow": [to_python(r) for r in glob.get("regexes", []) if _compiles(to_python(r))],
           "stopwords": glob.get("stopwords", []), "rules": rules, "dropped": dropped}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({"rules_in": len(toml["rules"]), "kept": len(rules), "dropped": len(dropped),
                      "dropped_why": {d["id"]: d["why"] for d in dropped}, "out": str(a.out)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

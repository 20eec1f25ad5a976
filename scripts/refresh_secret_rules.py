"""Regenerate the secret rule sets under quarry/curation/pii/rules/ from copies of their sources.

    git clone https://github.com/gitleaks/gitleaks && \
    python scripts/refresh_secret_rules.py gitleaks/config/gitleaks.toml --commit $(git -C gitleaks rev-parse HEAD) \
        --version $(git -C gitleaks describe --tags)
    git clone https://github.com/mongodb/kingfisher && \
    python scripts/refresh_secret_rules.py kingfisher/data/rules --commit $(git -C kingfisher rev-parse HEAD) \
        --version $(git -C kingfisher describe --tags)

gitleaks is MIT licensed (Copyright (c) 2019 Zachary Rice), Kingfisher Apache-2.0 (MongoDB, Inc.);
their rules are data here, cited in each file's header. Each Go / Rust regex is rewritten for
Python's `re` (mid-pattern `(?i)` becomes a scoped group, `\\z` becomes `\\Z`, POSIX classes are
spelled out); a rule that still does not compile is dropped and counted. From Kingfisher only
token formats are taken: visible rules whose token (its first group) holds a literal of its own,
rare enough to gate a scan (five characters, three letters), that still match their own examples
once rewritten, and whose literal no gitleaks rule or Quarry detector already looks for; its keyed
rules (a provider's name, then any value), private key blocks and URLs with passwords are left to
gitleaks' rules and Quarry's own detectors.
Prints a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from collections import Counter
from pathlib import Path

import quarry.curation.pii.detectors  # noqa: F401  (each detector registers the literals it looks for)
from quarry.curation.pii import gates
from quarry.curation.pii.scanner_rules import _required_literal, load
from quarry.records import atomic_write_bytes

RULES = Path(__file__).resolve().parents[1] / "quarry/curation/pii/rules"
OUT = RULES / "gitleaks.json"
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


# Private key blocks and URLs with a password: the private-key and URL-password detectors judge them
# (a documentation block, a placeholder password), which a format rule would not.
OWN_SYNTAXES = ("-----begin", "://")


def convert_kingfisher(folder: Path) -> tuple[list[dict], list[dict], int]:
    """Kingfisher's token-format rules (see the module's doc), as gitleaks' are written here."""
    import yaml

    # what the detectors and gitleaks' rules look for, not the copy of this set being replaced
    replaced = {word.lower() for rule in load()[0] if rule.id.startswith("kingfisher.") for word in rule.keywords}
    known = {word.lower() for source in gates._sources for word in source()} - replaced
    rules, dropped, seen = [], [], 0
    for path in sorted(folder.glob("*.y*ml")):
        for rule in (yaml.safe_load(path.read_text()) or {}).get("rules") or []:
            seen += 1
            why, entry = _kingfisher_rule(rule, known)
            (dropped.append({"id": rule["id"], "why": why}) if why else rules.append(entry))
    return rules, dropped, seen


def _kingfisher_rule(rule: dict, known: set[str]) -> tuple[str | None, dict | None]:
    if rule.get("visible") is False:  # a host or an id another rule's validation needs, not a secret
        return "not visible", None
    try:
        regex = to_python(rule["pattern"])
        compiled = re.compile(regex)
    except re.error as e:
        return f"re: {e}", None
    if any(word in regex.lower().replace("\\/", "/") for word in OWN_SYNTAXES):
        return "a syntax Quarry's own detectors read", None
    if not compiled.groups:  # the whole match is reported: a key's name with its value
        return "no token group", None
    group = 1
    literals = _required_literal(compiled, group)
    if not literals:
        return "no literal in the token (a keyed rule)", None
    lowered = {lit.lower() for lit in literals}
    if any(lit.startswith(k) or k.startswith(lit) or len(k) >= 5 and (k in lit or lit in k)
           for lit in lowered for k in known if len(k) >= 3):
        return "format already known", None
    if not any(len(lit) >= 5 and sum(c.isalpha() for c in lit) >= 3 for lit in literals):
        # 'ion_', 'na1.', '1000.' occur all over code: every text would run the rule
        return "literal too common to gate a scan", None
    examples = rule.get("examples") or []
    matches = [compiled.search(e) for e in examples]
    if not examples or not all(matches):
        return "does not match its own examples once rewritten", None
    if any(any(c.isspace() for c in (m.group(group) or "")) for m in matches):
        return "its token spans words (a key and its value, a JSON document)", None
    # the token's own literal gates the rule: rarer than a provider's name beside it ('tkn.v1_', not 'teamwork')
    return None, {"id": rule["id"], "regex": regex, "keywords": sorted(lowered), "entropy": rule.get("min_entropy", 0.0),
                  "secret_group": group, "allow": [], "stopwords": []}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("source", type=Path, help="gitleaks' config/gitleaks.toml, or Kingfisher's data/rules folder")
    p.add_argument("--commit", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--out", type=Path)
    a = p.parse_args(argv)
    if a.source.is_dir():
        return _write_kingfisher(a)
    a.out = a.out or OUT
    toml = tomllib.loads(a.source.read_text())
    rules, dropped = convert(toml)
    glob = toml.get("allowlist", {})
    doc = {"source": "https://github.com/gitleaks/gitleaks/blob/master/config/gitleaks.toml",
           "version": a.version, "commit": a.commit, "license": "MIT, Copyright (c) 2019 Zachary Rice",
           "generated_by": "scripts/refresh_secret_rules.py",
           "allow": [to_python(r) for r in glob.get("regexes", []) if _compiles(to_python(r))],
           "stopwords": glob.get("stopwords", []), "rules": rules, "dropped": dropped}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(a.out, (json.dumps(doc, indent=1) + "\n").encode())
    print(json.dumps({"rules_in": len(toml["rules"]), "kept": len(rules), "dropped": len(dropped),
                      "dropped_why": {d["id"]: d["why"] for d in dropped}, "out": str(a.out)}, indent=1))
    return 0


def _write_kingfisher(a) -> int:
    rules, dropped, seen = convert_kingfisher(a.source)
    out = a.out or RULES / "kingfisher.json"
    doc = {"source": "https://github.com/mongodb/kingfisher/tree/main/data/rules", "version": a.version,
           "commit": a.commit, "license": "Apache-2.0, Copyright MongoDB, Inc.",
           "generated_by": "scripts/refresh_secret_rules.py", "rules": rules,
           "dropped": dropped}
    atomic_write_bytes(out, (json.dumps(doc, indent=1) + "\n").encode())
    why = Counter("re" if d["why"].startswith("re:") else d["why"] for d in dropped)
    print(json.dumps({"rules_in": seen, "kept": len(rules), "dropped": len(dropped), "dropped_why": why,
                      "out": str(out)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

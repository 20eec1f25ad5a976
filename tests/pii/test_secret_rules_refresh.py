"""scripts/refresh_secret_rules.py on a rule folder in Kingfisher's format, written here (rules of
made-up providers): what it keeps, what it leaves out and why, and that the kept rules find their
tokens through the loader."""

import importlib.util
import json
import re
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "refresh_secret_rules.py"

RULES = """
rules:
  - name: Zqx API token
    id: test.zqx.1
    pattern: |
      (?xi)
      \\b
      ( zqxpat_ [a-f0-9]{40} )
      \\b
    min_entropy: 3.0
    examples:
      - 'ZQX_TOKEN=zqxpat_3f9a2b7c1d4e5f60718293a4b5c6d7e8f9012345'
  - name: Acme key after its name
    id: test.acme.1
    pattern: |
      (?xi) \\b acme (?:.|[\\n\\r]){0,32}? \\b ( [a-z0-9]{32} ) \\b
    examples:
      - 'acme key 0123456789abcdef0123456789abcdef'
  - name: Acme host
    id: test.acme.2
    visible: false
    pattern: '\\b([a-z0-9-]+\\.acmeapi\\.example)\\b'
    examples:
      - 'tenant.acmeapi.example'
  - name: A GitHub token again
    id: test.github.1
    pattern: '\\b(ghp_[A-Za-z0-9]{36})\\b'
    examples:
      - 'ghp_0123456789abcdefghijABCDEFGHIJ012345'
  - name: Wrong example
    id: test.wrong.1
    pattern: '\\b(wrongtok_[0-9]{10})\\b'
    examples:
      - 'wrongtok_abc'
  - name: A URL with a password
    id: test.uri.1
    pattern: '(https?://[a-z]+:[^@\\s]+@[a-z.]+)'
    examples:
      - 'https://user:pass@host.example'
"""


@pytest.fixture(scope="module")
def refresh():
    spec = importlib.util.spec_from_file_location("refresh_secret_rules", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_only_token_formats_are_taken_each_omission_said(refresh, tmp_path):
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "made_up.yml").write_text(RULES)
    out = tmp_path / "second.json"
    assert refresh.main([str(folder), "--commit", "0" * 40, "--version", "v0", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert [r["id"] for r in doc["rules"]] == ["test.zqx.1"]
    assert doc["rules"][0]["keywords"] == ["zqxpat_"] and doc["rules"][0]["secret_group"] == 1
    why = {d["id"]: d["why"] for d in doc["dropped"]}
    assert why == {"test.acme.1": "no literal in the token (a keyed rule)", "test.acme.2": "not visible",
                   "test.github.1": "format already known",
                   "test.wrong.1": "does not match its own examples once rewritten",
                   "test.uri.1": "a syntax Quarry's own detectors read"}
    # the kept rule, as the loader builds it, finds its token (upper case too: the rule ignores case)
    from quarry.curation.pii.scanner_rules import _rule

    rule = _rule(doc["rules"][0])
    token = "zqxpat_" + "0a1b2c3d4e5f60718293" * 2
    assert {"zqxpat_", "ZQXPAT_"} <= set(rule.keywords)
    assert [m.group(1) for m in rule.pattern.finditer(f"export ZQX={token}\n")] == [token]
    assert re.search(rule.pattern, "zqxpat_short") is None

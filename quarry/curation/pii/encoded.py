"""Secrets stored base64-encoded: the ``data:`` entries of a Kubernetes Secret, and values of
secret-named keys (``password_b64: ...``). A value is redacted when it decodes to printable text
that is itself a secret: a provider token or JWT (a detector finds it in the decoded text), or,
under a Secret's ``data:``, a password-like string or a config file holding a credential.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from quarry.curation.pii import suppress
from quarry.curation.pii.assignments import find_assignments
from quarry.curation.pii.credentials import find_private_keys, find_shapes
from quarry.curation.pii.gates import present_literals, register
from quarry.curation.pii.findings import KEY, Finding, finditer_from, lowered, occurrences

# A base64 JWT starts 'ZXlK' ('eyJ'), a base64 PEM block 'LS0tLS1CRUdJTi' ('-----BEGIN': a kubeconfig's
# client-key-data); other wrapped tokens sit under a key that says base64.
_PEM_B64 = "LS0tLS1CRUdJTi"
GATES = ("ZXlK", "b64", "B64", "ase64", "ASE64", _PEM_B64)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]+={0,2}")
register(GATES)
_KIND_SECRET = re.compile(r"(?m)^kind:[ \t]*Secret[ \t]*$")
_DATA_BLOCK = re.compile(r"(?m)^([ \t]*)(?:data|stringData):[ \t]*\r?\n")
_DATA_ENTRY = re.compile(r"[ \t]+[\w.-]+:[ \t]*[\"']?([A-Za-z0-9+/]{4,}={0,2})[\"']?[ \t]*\r?(?:\n|$)")
_SECRET_NAMED_B64 = re.compile(
    r"(?i)(?:pass(?:w(?:or)?d)?|secret|token|api[_-]?key|credentials?)[\w.-]*[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"([A-Za-z0-9+/]{16,}={0,2})(?![A-Za-z0-9+/=])")
# What those names start with, found with str.find in the lowered text (shared with the other
# detectors): the case-insensitive alternation, scanned itself, stops at every letter.
_NAME_ROOTS = ("pass", "secret", "token", "api", "cred")


def _secret_like(decoded: str) -> bool:
    decoded = decoded.strip()
    return (len(decoded) >= 6 and not suppress.is_placeholder(decoded) and " " not in decoded
            and (suppress.char_classes(decoded) >= 2 or len(decoded) >= 16))


def _holds_a_secret(decoded: str) -> bool:
    """A token, or a config holding a credential (a .env file, a JSON document): what a Secret's
    data entry often is once decoded."""
    return any(True for _ in find_shapes(decoded)) or any(True for _ in find_assignments(decoded))


def find_encoded(text: str) -> Iterator[Finding]:
    if "kind:" in text and _KIND_SECRET.search(text):  # every data entry of a Secret is secret
        for block in _DATA_BLOCK.finditer(text):
            pos = block.end()
            while (m := _DATA_ENTRY.match(text, pos)) and len(m.group(0)) - len(m.group(0).lstrip()) > len(block.group(1)):
                decoded = suppress.base64_text(m.group(1))
                if decoded is not None and (_secret_like(decoded) or _holds_a_secret(decoded)):
                    yield Finding(m.start(1), m.end(1), KEY, "kubernetes_secret_data", 0.85)
                pos = m.end()
    present = present_literals(text)
    if present.isdisjoint(GATES):
        return
    if _PEM_B64 in present:
        yield from _encoded_private_keys(text)
    for m in _secret_named_values(text):
        decoded = suppress.base64_text(m.group(1))
        if decoded and any(True for _ in find_shapes(decoded)):  # a base64-wrapped token or JWT
            yield Finding(m.start(1), m.end(1), KEY, "base64_secret", 0.85)


def _encoded_private_keys(text: str) -> Iterator[Finding]:
    """A PEM private key block base64-encoded whole (a kubeconfig's client-key-data, a Secret's
    tls.key): the key, wherever it stands."""
    for at in occurrences(text, _PEM_B64):
        run = _BASE64_RUN.match(text, at)
        decoded = suppress.base64_text(run.group())
        if decoded and any(True for _ in find_private_keys(decoded)):
            yield Finding(run.start(), run.end(), KEY, "base64_private_key", 0.9)


def _secret_named_values(text: str) -> Iterator[re.Match]:
    """What ``_SECRET_NAMED_B64.finditer(text)`` yields, read from where its names' roots occur."""
    lower = lowered(text)
    return finditer_from(_SECRET_NAMED_B64, text, sorted(at for root in _NAME_ROOTS for at in occurrences(lower, root)))

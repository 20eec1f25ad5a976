"""Redaction: replace each finding by its typed placeholder (or a fake IP), right to left."""

from __future__ import annotations

from collections import Counter

from quarry.curation.pii.findings import IP_ADDRESS, Finding
from quarry.curation.pii.engine import DEFAULT, PiiConfig, detect
from quarry.curation.pii.fake_ips import fake_ip

PLACEHOLDERS = {"EMAIL": "<EMAIL>", "KEY": "<KEY>", "PASSWORD": "<PASSWORD>", "IP_ADDRESS": "<IP_ADDRESS>",
                "PHONE": "<PHONE>", "CARD": "<CARD>"}


def replacement(text: str, finding: Finding, config: PiiConfig = DEFAULT) -> str:
    if finding.type == IP_ADDRESS and config.ip_replacement == "fake":
        return fake_ip(text[finding.start:finding.end])
    return PLACEHOLDERS[finding.type]


def apply_redactions(text: str, findings: list[Finding], config: PiiConfig = DEFAULT) -> str:
    """Splice replacements into text; findings must not overlap (``detect`` guarantees it)."""
    if not findings:
        return text
    parts = []
    cursor = 0
    for f in sorted(findings, key=lambda f: f.start):
        parts.append(text[cursor:f.start])
        parts.append(replacement(text, f, config))
        cursor = f.end
    parts.append(text[cursor:])
    return "".join(parts)


MAX_PASSES = 4


def redact(text: str, config: PiiConfig = DEFAULT) -> tuple[str, Counter]:
    """(redacted text, counts of findings per type).

    Replacing a value changes its neighbours' context ('a@b.io+1 (415) 555-2671': the phone
    number only stands apart once the address is gone), so passes repeat until one finds
    nothing; that makes redaction idempotent."""
    counts: Counter = Counter()
    for _ in range(MAX_PASSES):
        findings = detect(text, config)
        if not findings:
            break
        text = apply_redactions(text, findings, config)
        counts.update(f.type for f in findings)
    return text, counts

"""All detectors by name. Speed comes from gating: each detector first checks a cheap literal
('@' in text, '://' in text, a credential prefix) or runs a regex whose first character is rare,
and validates candidates afterwards (Luhn, ipaddress, entropy) rather than in slow regexes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from quarry.curation.pii.assignments import find_assignments
from quarry.curation.pii.commands import find_command_passwords
from quarry.curation.pii.context import find_env_defaults, find_nested, find_prose
from quarry.curation.pii.delimited import find_delimited
from quarry.curation.pii.credentials import SHAPES, find_private_keys, find_shapes, find_url_passwords
from quarry.curation.pii.findings import CARD, EMAIL, IP_ADDRESS, KEY, PASSWORD, PHONE, TYPES, Finding
from quarry.curation.pii.scanner_rules import find_rules
from quarry.curation.pii.encoded import find_encoded
from quarry.curation.pii.personal import find_cards, find_emails, find_ips, find_phones, luhn_ok
from quarry.curation.pii.unkeyed import find_unkeyed

DETECTORS: dict[str, Callable[[str], Iterator[Finding]]] = {
    "shapes": find_shapes,
    "rules": find_rules,  # gitleaks' rule set as data; the engine passes its sensitivity floor
    "private_keys": find_private_keys,
    "encoded": find_encoded,
    "url_passwords": find_url_passwords,
    "assignments": find_assignments,
    "env_defaults": find_env_defaults,
    "nested_config": find_nested,
    "commands": find_command_passwords,
    "delimited": find_delimited,
    "prose": find_prose,
    "unkeyed": find_unkeyed,
    "emails": find_emails,
    "ips": find_ips,
    "cards": find_cards,
    "phones": find_phones,
}

__all__ = ["CARD", "DETECTORS", "EMAIL", "IP_ADDRESS", "KEY", "PASSWORD", "PHONE", "SHAPES", "TYPES", "Finding",
           "luhn_ok"]

"""Personal data: e-mail addresses, public IP addresses, payment cards, phone numbers.

Candidates come from regexes that start with one literal or character class (so the engine skips
ahead) and are validated afterwards: the ipaddress module, the Luhn check, card-network lengths.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from functools import lru_cache

from quarry.curation.pii import suppress
from quarry.curation.pii.findings import CARD, EMAIL, IP_ADDRESS, PHONE, Finding, finditer_from, word_after, word_before
from quarry.curation.pii.versions import after_version_word, looks_like_version

# ---------------------------------------------------------------------------------------------
# E-mail addresses: anchored on each '@', the local part is read backwards.

_LOCAL_REVERSED = re.compile(r"[A-Za-z0-9._%+-]{1,64}")
_DOMAIN = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-])")


_REMOTE_LOGIN = re.compile(r"\b(?:ssh|scp|sftp|rsync|mosh|ssh-copy-id)(?:[ \t]+-\S+(?:[ \t]+\d+)?)*[ \t]+$")


def _url_userinfo_end(text: str, at: int) -> bool:
    """Is this '@' the end of 'scheme://user:password@' on its line?"""
    scheme = text.rfind("://", max(0, at - 400), at)
    if scheme < 0:
        return False
    userinfo = text[scheme + 3:at]
    return not any(c in userinfo for c in " \t\n\"'`/")  # user@host or user:password@host


def find_emails(text: str) -> Iterator[Finding]:
    at = text.find("@")
    while at >= 0:
        finding = _email_at(text, at)
        if finding:
            yield finding
        at = text.find("@", at + 1)


def _email_at(text: str, at: int) -> Finding | None:
    local = _LOCAL_REVERSED.match(text[max(0, at - 64):at][::-1])
    if not local:
        return None
    start = at - len(local.group().rstrip("."))  # reversed: trailing dots are leading ones
    domain = _DOMAIN.match(text, at + 1)
    if not domain or start >= at:
        return None
    address, host = text[start:domain.end()], domain.group()
    local_part = text[start:at]
    if (suppress.is_documentation_email(host) or suppress.is_file_name_domain(host)
            or local_part.lower() in suppress.NON_PERSONAL_LOCALS or suppress.is_placeholder(address)):
        return None
    if _url_userinfo_end(text, at) or _REMOTE_LOGIN.search(text, max(0, start - 24), start):
        return None  # user:password@host of a URL (a connection string), ssh user@host: not a mailbox
    return Finding(start, domain.end(), EMAIL, "email", 0.95)


# ---------------------------------------------------------------------------------------------
# IP addresses: candidates by regex, public-ness by the ipaddress module.

_IPV4 = re.compile(r"\d\d{0,2}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?!\w|\.\d)")
# The same address without its first number: it starts with '.', a literal the engine skips to,
# where a leading digit would stop it at every digit of the text.
_IPV4_TAIL = re.compile(r"\.\d{1,3}\.\d{1,3}\.\d{1,3}(?!\w|\.\d)")
# IPv6 candidates grow out of ':<0-4 hex>:' (a literal ':' the engine skips to) in both directions.
_IPV6_CORE = re.compile(r":[0-9A-Fa-f]{0,4}:")
_IPV6_LEFT_REVERSED = re.compile(r"[0-9A-Fa-f:]{0,39}")
_IPV6_RIGHT = re.compile(r"[0-9A-Fa-f:]{0,39}(?:(?<=:)\d{1,3}(?:\.\d{1,3}){3})?")


def _ipv6_candidates(text: str) -> Iterator[tuple[int, int]]:
    covered = -1
    for m in _IPV6_CORE.finditer(text):
        if m.start() < covered:
            continue
        left = _IPV6_LEFT_REVERSED.match(text[max(0, m.start() - 39):m.start()][::-1]).end()
        start, end = m.start() - left, _IPV6_RIGHT.match(text, m.start()).end()
        covered = end
        before, after = text[start - 1:start] if start else "", text[end:end + 1]
        if word_before(text, start) or before == "." or word_after(text, end) or (
                after == "." and not _sentence_end(text, end)):
            continue
        yield start, end


def _sentence_end(text: str, dot: int) -> bool:
    """Is the '.' at ``dot`` a full stop ('... on 2001:4860::8888.') rather than more of a token?"""
    return dot + 1 >= len(text) or text[dot + 1] in " \t\r\n)\"'`"


def _network_suffix(text: str, end: int) -> bool:
    return text[end:end + 1] == "/" and text[end + 1:end + 2].isdigit()


def _ipv4_matches(text: str) -> Iterator[re.Match]:
    """What ``_IPV4.finditer(text)`` yields, found from each address's tail: its first number is
    the longest run of at most three digits before the tail."""
    for tail in _IPV4_TAIL.finditer(text):
        dot = tail.start()
        for start in range(max(0, dot - 3), dot):
            if m := _IPV4.match(text, start):
                yield m
                break


def find_ips(text: str, fake_pool: frozenset[str] = frozenset()) -> Iterator[Finding]:
    for m in _ipv4_matches(text):
        start, ip = m.start(), m.group()
        if (start and (text[start - 1] in ".-" or word_before(text, start))) or ip in fake_pool:
            continue
        try:
            address = ipaddress.IPv4Address(ip)  # rejects octets > 255 and zero-padded ones
        except ValueError:
            continue
        if _network_suffix(text, m.end()):
            continue  # 203.0.114.0/24 names a network, not a host
        if suppress.is_public_ip(address) and not looks_like_version(text, start, m.end()):
            yield Finding(start, m.end(), IP_ADDRESS, "ipv4", 0.85)
    if "::" not in text and text.count(":") < 7:
        return
    for start, end in _ipv6_candidates(text):
        ip = text[start:end]
        if ip.count(":") < 2 or ip in fake_pool or _network_suffix(text, end):
            continue
        try:
            address = ipaddress.IPv6Address(ip)
        except ValueError:
            continue
        # Outside 2000::/3 only a fully written address counts: 'a::b' is C++ far more often.
        if suppress.is_public_ip(address) or (ip.count(":") == 7 and "::" not in ip and suppress.is_public_ip(
                address, global_unicast_only=False)):
            yield Finding(start, end, IP_ADDRESS, "ipv6", 0.85)


# ---------------------------------------------------------------------------------------------
# Payment cards: digit runs with consistent grouping, a card-network prefix and the Luhn check.

# Card and phone numbers are written in ASCII digits: '[0-9]' is a range test where '\d' asks the
# Unicode tables at every character the engine skips over (about 30% of these scans' time).
# A card number after its first digit (the scan shared with phone numbers below reads it from there).
_CARD_TAIL = (r"[0-9]{3}(?:(?P<card_sep>[ -]?)[0-9]{4,6})(?:(?P=card_sep)[0-9]{4,5}){1,2}(?:(?P=card_sep)[0-9]{1,4})?"
              r"(?![0-9]|[.,-][0-9])")
_CARD = re.compile("[0-9]" + _CARD_TAIL)
# Card networks: leading digits -> the lengths their numbers have.
_CARD_NETWORKS = ((re.compile(r"4"), (13, 16, 19)), (re.compile(r"5[1-5]|2[2-7]"), (16,)),
                  (re.compile(r"3[47]"), (15,)), (re.compile(r"3[068]"), (14, 16, 19)),
                  (re.compile(r"6(?:011|5|4[4-9]|22)"), (16, 19)), (re.compile(r"35"), (16, 19)))


def _card_network_ok(digits: str) -> bool:
    return any(prefix.match(digits) and len(digits) in lengths for prefix, lengths in _CARD_NETWORKS)


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


_CARD_WORDS = re.compile(r"(?i)card|credit|debit|visa|master|amex|diners|jcb|\bcc\b|\bpan\b|payment")


def find_cards(text: str) -> Iterator[Finding]:
    for m in finditer_from(_CARD, text, _digit_shapes(text)[0]):
        before = text[max(0, m.start() - 2):m.start()]
        if before[-1:].isalnum() or (before[-1:] in (".", ",", "-") and before[:1].isdigit()):
            continue  # the tail of a longer number or word: 1,234..., 3.14159..., 0x85468a46...
        if text[m.end():m.end() + 1].isalpha():
            continue
        digits = m.group().replace(" ", "").replace("-", "")
        if len(digits) == len(m.group()) and len(digits) not in (15, 16) and not _CARD_WORDS.search(
                text, max(0, m.start() - 48), m.start()):
            continue  # without a word about cards, a 13/14/19 digit run is an integer more often than a card
        if (_card_network_ok(digits) and len(set(digits)) > 2
                and luhn_ok(digits)):
            yield Finding(m.start(), m.end(), CARD, "payment_card", 0.9)


# ---------------------------------------------------------------------------------------------
# Phone numbers: international (+CC ...) or North-American shapes with separators.

_EXTENSION = r"(?: ?(?:x|ext\.? ?)[0-9]{1,6})?"
_PHONE_INTL = re.compile(r"\+[1-9][0-9]{0,2}(?:[ .-]?\([0-9]{1,4}\))?(?:[ .-]?[0-9]{1,4}){2,5}" + _EXTENSION + r"(?!\w|[.-][0-9])")
_PHONE_PAREN = re.compile(r"\([0-9]{3}\) ?[0-9]{3}[-. ][0-9]{4}" + _EXTENSION + r"(?!\w|[.-][0-9])")
_PHONE_NANP_TAIL = r"[0-9][0-9](?P<nanp_sep>[-. ])[0-9][0-9][0-9](?P=nanp_sep)[0-9]{4}" + _EXTENSION + r"(?!\w|[.-][0-9])"
_PHONE_NANP = re.compile("[0-9]" + _PHONE_NANP_TAIL)  # ASCII digits: see _CARD
_PHONE_WORDS = re.compile(r"(?i)phone|\btel\b|mobile|cell|fax|call|contact|sms|whatsapp")


def find_phones(text: str) -> Iterator[Finding]:
    if "+" in text:
        for m in _PHONE_INTL.finditer(text):
            if m.start() and (word_before(text, m.start()) or text[m.start() - 1] in "+."):
                continue
            number = m.group()
            separated = any(c in number for c in " -()") or number.count(".") >= 2
            if not separated and "." in number:
                continue  # +0.5e3, +1.25: a signed decimal
            if (8 if separated else 11) <= sum(c.isdigit() for c in number) <= 15:
                yield Finding(m.start(), m.end(), PHONE, "phone", _phone_confidence(text, m.start(), 0.7))
    if "(" in text:
        for m in _PHONE_PAREN.finditer(text):
            yield Finding(m.start(), m.end(), PHONE, "phone", _phone_confidence(text, m.start(), 0.6))
    for m in finditer_from(_PHONE_NANP, text, _digit_shapes(text)[1]):
        start = m.start()
        if text[max(0, start - 2):start] == "1" + m.group("nanp_sep") and not word_before(text, start - 2):
            start -= 2  # 1-800-555-0199: the country code written without '+'
        elif start and (text[start - 1] in ".+-(" or word_before(text, start)):
            continue
        confidence = _phone_confidence(text, start, 0.6)
        if m.group("nanp_sep") == " " and confidence < 0.9:
            continue  # '555 123 4567' is only a phone number where the text says so
        if not after_version_word(text, start):
            yield Finding(start, m.end(), PHONE, "phone", confidence)


def _phone_confidence(text: str, start: int, base: float) -> float:
    return 0.9 if _PHONE_WORDS.search(text, max(0, start - 40), start) else base


# ---------------------------------------------------------------------------------------------
# Card and phone numbers both start at a digit. A Python regex that starts at a character class
# costs about 10 ns a character however rarely it matches (one that starts at a literal, a tenth
# of that), so one scan stops at each digit and reads both shapes there, instead of a scan each.

_CARD_OR_PHONE = re.compile(rf"[0-9](?=(?P<card>{_CARD_TAIL})|(?P<phone>{_PHONE_NANP_TAIL}))")


@lru_cache(maxsize=1)  # the card and the phone detector ask for the same text in turn
def _digit_shapes(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Every position where _CARD matches, and every position where _PHONE_NANP does."""
    cards, phones = [], []
    for m in _CARD_OR_PHONE.finditer(text):  # never both at one digit: 4 digits, or 3 and a separator
        (cards if m.group("card") is not None else phones).append(m.start())
    return tuple(cards), tuple(phones)

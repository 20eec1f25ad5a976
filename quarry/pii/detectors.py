"""Detectors of personal data and credentials: each yields Findings (a span, a type, a confidence).

Speed comes from gating: every detector first checks a cheap literal (``'@' in text``,
``'://' in text``, a credential prefix) or runs a regex whose first character is rare, and
only then runs the full pattern; candidates are validated afterwards (Luhn, ``ipaddress``,
entropy) rather than encoded in slow regexes. A Finding holds offsets, never the value, so it
can be logged, counted and hashed without leaking what it points at.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from quarry.pii import suppress

EMAIL, KEY, PASSWORD, IP_ADDRESS, PHONE, CARD = "EMAIL", "KEY", "PASSWORD", "IP_ADDRESS", "PHONE", "CARD"
TYPES = (EMAIL, KEY, PASSWORD, IP_ADDRESS, PHONE, CARD)


@dataclass(frozen=True, slots=True)
class Finding:
    start: int  # offsets in characters (code points) of the str, end exclusive
    end: int
    type: str  # one of TYPES: what the span is replaced by
    kind: str  # the detector that found it, e.g. "github_token"
    confidence: float


# ---------------------------------------------------------------------------------------------
# Credentials with a known shape. Each pattern starts with a literal, so the regex engine skips
# straight to candidates; the left word boundary is checked in Python, because a leading
# lookbehind would stop that skipping.

@dataclass(frozen=True)
class Shape:
    kind: str
    pattern: re.Pattern
    gate: tuple[str, ...] = ()  # literals one of which must occur, where the pattern's own is short
    min_entropy: float = 3.0  # of the whole token: rejects xxxx and 0000 placeholders
    confidence: float = 0.95


def _shape(kind: str, pattern: str, gate: tuple[str, ...] = (), **kw) -> Shape:
    return Shape(kind, re.compile(pattern), gate, **kw)


_E = r"(?![A-Za-z0-9_])"  # token ends at a word boundary

SHAPES: tuple[Shape, ...] = (
    _shape("aws_access_key_id", r"A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}" + _E),
    _shape("github_token", r"g(?:h[pousr]_[A-Za-z0-9]{36,251}|ithub_pat_[A-Za-z0-9_]{60,255})" + _E),
    _shape("gitlab_token", r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}" + _E),
    _shape("gitlab_token", r"GR1348941[A-Za-z0-9_-]{20,}" + _E),
    _shape("slack_token", r"x(?:ox[abposrce]-(?:\d+-)*[A-Za-z0-9]{16,}|app-\d-[A-Z0-9]+-\d+-[a-z0-9]+)" + _E),
    _shape("slack_webhook", r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+"),
    _shape("stripe_key", r"[srp]k_(?:live|test)_[0-9A-Za-z]{16,}" + _E, gate=("_live_", "_test_")),
    _shape("stripe_key", r"whsec_[A-Za-z0-9]{32,}" + _E),
    _shape("google_api_key", r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
    _shape("google_oauth", r"GOCSPX-[0-9A-Za-z_-]{28}(?![A-Za-z0-9_-])"),
    _shape("google_oauth", r"ya29\.[0-9A-Za-z_-]{30,}"),
    _shape("openai_key", r"sk-(?:ant-(?:api|admin)\d\d-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}", min_entropy=3.5),
    _shape("huggingface_token", r"hf_[A-Za-z0-9]{34,}" + _E, min_entropy=3.5),
    _shape("npm_token", r"npm_[A-Za-z0-9]{36}" + _E),
    _shape("pypi_token", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    _shape("sendgrid_key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
    _shape("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}" + _E),
    _shape("shopify_token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E),
    _shape("square_token", r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}"),
    _shape("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", confidence=0.9),
    _shape("azure_storage_key", r"AccountKey=[A-Za-z0-9+/]{86}==", min_entropy=4.0),
    _shape("mailgun_key", r"key-[0-9a-z]{32}" + _E),
    _shape("databricks_token", r"dapi[0-9a-f]{32}(?:-\d)?" + _E),
    _shape("postman_key", r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}" + _E),
    _shape("docker_token", r"dckr_pat_[A-Za-z0-9_-]{27,}" + _E),
    _shape("linear_key", r"lin_api_[A-Za-z0-9]{40}" + _E),
    _shape("vault_token", r"hv[sbr]\.[A-Za-z0-9_-]{24,}" + _E),
    _shape("grafana_token", r"gl(?:c_[A-Za-z0-9+/]{32,}={0,2}|sa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})" + _E),
    _shape("newrelic_key", r"NR(?:AK|JS|II)-[A-Za-z0-9]{19,32}" + _E),
    _shape("age_secret_key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" + _E),
)
# An AWS secret key near its key id, whatever it is assigned to (CSV exports, `aws configure`).
_AWS_SECRET_NEAR = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


def _word_before(text: str, start: int) -> bool:
    return start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")


def find_shapes(text: str) -> Iterator[Finding]:
    for shape in SHAPES:
        if shape.gate and not any(g in text for g in shape.gate):
            continue
        for m in shape.pattern.finditer(text):
            start = m.start()
            if _word_before(text, start):
                continue
            token = m.group()
            if token.startswith("AccountKey="):
                start += len("AccountKey=")
            if suppress.shannon_entropy(token) < shape.min_entropy or suppress.is_placeholder(token):
                continue
            yield Finding(start, m.end(), KEY, shape.kind, shape.confidence)
            if shape.kind == "aws_access_key_id":
                yield from _aws_secret_near(text, m.end())


def _aws_secret_near(text: str, after: int) -> Iterator[Finding]:
    for m in _AWS_SECRET_NEAR.finditer(text, after, after + 240):
        value = m.group()
        if suppress.shannon_entropy(value) >= 4.0 and suppress.char_classes(value) >= 3 and not suppress.is_placeholder(value):
            yield Finding(m.start(), m.end(), KEY, "aws_secret_key", 0.9)

# ---------------------------------------------------------------------------------------------
# Private key blocks (PEM, OpenSSH, PGP), also inside JSON strings with escaped newlines.

_PEM_BEGIN = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----")
_PEM_BODY = re.compile(r"(?:[A-Za-z0-9+/=:,\- \t\r\n]|\\n|\\r)*")
_PEM_MIN_BODY = 64  # "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END" is documentation


def find_private_keys(text: str) -> Iterator[Finding]:
    if "-----BEGIN" not in text:
        return
    for m in _PEM_BEGIN.finditer(text):
        end_marker = f"-----END {m.group(1)}PRIVATE KEY{m.group(2) or ''}-----"
        end = text.find(end_marker, m.end(), m.end() + 64_000)
        if end >= 0:
            body_len, end = end - m.end(), end + len(end_marker)
        else:  # truncated block: the key runs as far as base64 does
            end = _PEM_BODY.match(text, m.end()).end()
            body_len = end - m.end()
        body = text[m.end():m.end() + body_len]
        if body_len >= _PEM_MIN_BODY and not suppress.is_placeholder(body.strip()[:80]):
            yield Finding(m.start(), end, KEY, "private_key", 0.99)


# ---------------------------------------------------------------------------------------------
# Passwords in connection strings: scheme://user:password@host

_URL_CREDENTIALS = re.compile(r"([^\s:/@'\"`<>]{0,128}):([^\s@/?'\"`<>]{1,256})@[A-Za-z0-9\[]")


def _plausible_password(value: str) -> bool:
    """Not a template ('{token}', 'APIPASS') and not a plain word: has a digit or a symbol."""
    if suppress.is_placeholder(value) or value.isupper():
        return False
    return len(value) >= 12 or any(not c.isalpha() for c in value)


def find_url_passwords(text: str) -> Iterator[Finding]:
    pos = text.find("://")
    while pos >= 0:
        m = _URL_CREDENTIALS.match(text, pos + 3)
        if m and _plausible_password(m.group(2)):
            yield Finding(m.start(2), m.end(2), PASSWORD, "connection_string", 0.96)
        pos = text.find("://", pos + 3)


# ---------------------------------------------------------------------------------------------
# Assignments to credential-like names: password = "...", API_KEY: ..., "client_secret": "..."

# Anchored at each occurrence of a root word (found with str.find on the lowered text, which is
# much faster than letting a case-insensitive alternation try every position).
_ROOTS = ("pass", "pwd", "secret", "token", "credential", "key")
_CREDENTIAL_NAME = re.compile(
    r"(?i)(?:passw(?:or)?d|passphrase|pwd|secret|token|credentials?|key)"
    r"(?P<tail>[A-Za-z0-9_.-]*)(?P<close>[\"'\]]*)[ \t]*(?P<op>:=|=>|=|:)[ \t]*(?P<q>[\"'`]?)"
    r"(?P<value>[^\s\"'`,;&(){}\[\]<>]{4,512})(?P<q2>[\"'`]?)"
)
_PASSWORD_WORD = re.compile(r"(?i)passw|passphrase|pwd")
_KEY_QUALIFIER = re.compile(
    r"(?:api|access|private|auth|signing|encryption|master|consumer|app|client|account|storage|secret)"
    r"[_.-]?$")
_REFERENCE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")  # a variable or attribute path
# Name parts that make a credential-like name describe something else (token_hash, secret_name).
_NOT_SECRET_PARTS = frozenset(
    "hash hashed digest sha sha1 sha256 sha512 md5 checksum sum commit etag fingerprint integrity id ids uuid "
    "type types name names field file path url uri len length size count expiry expires expiration timeout "
    "ttl prefix suffix header param params env var pattern regex format policy endpoint label class limit "
    "index max min kind mode version ref prompt message msg hint help text title error placeholder "
    "validator validation policy reset page cursor next continuation".split())
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_IDENTIFIER_LITERAL = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+")
_END_OF_LINE = re.compile(r"[ \t]*(?:[#;].*)?(?:\r?\n|$)")
_LANGUAGE_WORDS = frozenset("lambda function def fn func new await async return " "none null nil undefined true false self this str string int bool bytes "
                            "dict list object any optional required os env process getenv".split())
_XML_CREDENTIAL = re.compile(
    r"<((?:[\w-]+:)?[\w.-]*(?:[Pp]assw(?:or)?d|PASSWORD|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[_-]?[Kk]ey|API_KEY)[\w.-]*)>"
    r"([^<\s]{4,256})</\1>")
_BEARER = re.compile(r"\b[Bb]earer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)")
_BASIC = re.compile(r"\b[Bb]asic[ \t]+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])")


def _line_prefix(text: str, start: int) -> str:
    return text[text.rfind("\n", 0, start) + 1:start]


def _config_line(text: str, start: int) -> bool:
    """The name starts its line (KEY=value, key: value, export KEY=...): a config, not code."""
    return re.fullmatch(r"\s*(?:export\s+|set\s+)?[\"']?[\w.-]*", _line_prefix(text, start)) is not None


def _lower_same_length(text: str) -> str:
    """text.lower() with the same offsets (a few non-ASCII letters lower to two characters)."""
    lower = text.lower()
    if len(lower) == len(text):
        return lower
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _root_positions(lower: str) -> list[int]:
    positions = []
    for root in _ROOTS:
        at = lower.find(root)
        while at >= 0:
            positions.append(at)
            at = lower.find(root, at + len(root))
    positions.sort()
    return positions


def find_assignments(text: str) -> Iterator[Finding]:
    lower = _lower_same_length(text)
    seen_values: set[int] = set()
    for at in _root_positions(lower):
        m = _CREDENTIAL_NAME.match(text, at)
        if not m or m.start("value") in seen_values:
            continue
        keyword = lower[at:m.start("tail")]
        if keyword == "key" and not _KEY_QUALIFIER.search(lower, max(0, at - 16), at):
            continue  # a bare 'key' is a dict key or a sort key, not a credential
        if keyword == "pwd" and at and lower[at - 1].isalpha():
            continue
        if m.group("op") == ":" and m.group("q") == "" and m.group("close") == "" and not _config_line(text, at):
            continue  # 'token: str' / 'case TOKEN:' in code is a type or a label
        value = m.group("value")
        quoted = bool(m.group("q")) and m.group("q") == m.group("q2")
        if not quoted and m.group("q"):
            continue  # an opening quote that does not close on the value: not a plain literal
        prefix = re.search(r"[\w.-]*$", _line_prefix(text, at)[-48:]).group()
        # url query (?password=...&), key=v;key=v connection strings, --password=... command lines
        in_list = at - len(prefix) > 0 and (text[at - len(prefix) - 1] in "?&;" or prefix.startswith("--"))
        finding = _judge_assignment(text, m, prefix + keyword + m.group("tail"), value, quoted, in_list)
        if finding:
            seen_values.add(m.start("value"))
            yield finding
    if "earer" in text:
        for m in _BEARER.finditer(text):
            token = m.group(1)
            if _looks_generated(token) and not suppress.is_lookalike_secret(token):
                yield Finding(m.start(1), m.end(1), KEY, "bearer_token", 0.8)
    if "</" in text:
        for m in _XML_CREDENTIAL.finditer(text):
            value = m.group(2)
            if suppress.is_placeholder(value) or any(p.lower() in _NOT_SECRET_PARTS for p in _NAME_PARTS.findall(m.group(1))):
                continue
            if _PASSWORD_WORD.search(m.group(1)) and len(value) >= 6:
                yield Finding(m.start(2), m.end(2), PASSWORD, "password_assignment", 0.8)
            elif len(value) >= 16 and _looks_generated(value) and not suppress.is_lookalike_secret(value):
                yield Finding(m.start(2), m.end(2), KEY, "high_entropy_assignment", 0.7)
    if "asic " in text:
        for m in _BASIC.finditer(text):
            if _basic_credentials(m.group(1)):
                yield Finding(m.start(1), m.end(1), PASSWORD, "basic_auth", 0.85)


def _basic_credentials(token: str) -> bool:
    """'Basic <base64 of user:password>' with a password that is not a template."""
    try:
        decoded = base64.b64decode(token, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, sep, password = decoded.partition(":")
    return bool(sep and password) and not suppress.is_placeholder(password)


def _judge_assignment(text: str, m: re.Match, name: str, value: str, quoted: bool,
                      in_list: bool = False) -> Finding | None:
    if suppress.is_placeholder(value) or any(p.lower() in _NOT_SECRET_PARTS for p in _NAME_PARTS.findall(name)):
        return None
    start, end = m.start("value"), m.end("value")
    if _IDENTIFIER_LITERAL.fullmatch(value):
        return None  # "OAUTH_OWNER_PASSWORD", "some_password": a constant's or a field's name
    if not quoted:
        if not (in_list or _END_OF_LINE.match(text, end)) or value.rstrip(":").lower() in _LANGUAGE_WORDS:
            return None  # 'password=lambda: ...', 'token=get_token(),' is code, not a config value
        if value.startswith("_") or value[:4].lower() in ("pass", "secr", "toke", "cred", "pwd", "key"):
            return None
        keyword = text[m.start():m.start("tail")].lower()
        if not in_list and _REFERENCE.fullmatch(value) and ("." in value or keyword in value.lower()
                                            or value.isupper() or not _config_line(text, m.start())):
            return None  # a variable, an attribute or an env var name, not a literal
    if _PASSWORD_WORD.search(m.group(0)[:m.start("value") - m.start()]):
        if len(value) < 6 or value.lower() in _LANGUAGE_WORDS:
            return None
        return Finding(start, end, PASSWORD, "password_assignment", 0.8 if quoted else 0.6)
    if "aws" in name.lower() and re.fullmatch(r"[A-Za-z0-9/+]{40}", value):
        if suppress.shannon_entropy(value) >= 3.5:
            return Finding(start, end, KEY, "aws_secret_key", 0.95)
        return None
    # A hex string assigned to a credential name is a key (Flask SECRET_KEY, API keys), not a digest.
    if len(value) >= 16 and _looks_generated(value) and (
            suppress.is_hex_digest(value) and not suppress.is_integrity_hash(value)
            or not suppress.is_lookalike_secret(value)):
        return Finding(start, end, KEY, "high_entropy_assignment", 0.7)
    return None


def _looks_generated(value: str) -> bool:
    """Entropy plus a mix of character classes: what random tokens have and words do not."""
    alnum_classes = (any(c.islower() for c in value) + any(c.isupper() for c in value)
                     + any(c.isdigit() for c in value))
    if alnum_classes < 2:
        return False
    if set(value) <= _HEX_CHARS:
        return suppress.shannon_entropy(value) >= 3.0
    return suppress.shannon_entropy(value) >= 3.5 and _class_changes(value) >= 0.34


_HEX_CHARS = frozenset("0123456789abcdefABCDEF")


def _char_class(c: str) -> int:
    return 0 if c.islower() else 1 if c.isupper() else 2 if c.isdigit() else 3


def _class_changes(value: str) -> float:
    """Share of neighbouring characters of different classes (lower/upper/digit/other): about 0.6
    in random base62, about 0.3 in identifiers such as TokenizerEncoderConfig or input_tokens_1hr."""
    classes = [_char_class(c) for c in value if c.isalnum()]  # separators: 'cc-by-1.0' is words
    return sum(a != b for a, b in zip(classes, classes[1:])) / max(1, len(classes) - 1)


# ---------------------------------------------------------------------------------------------
# E-mail addresses: anchored on each '@', the local part is read backwards.

_LOCAL_REVERSED = re.compile(r"[A-Za-z0-9._%+-]{1,64}")
_DOMAIN = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-])")


def _url_userinfo_end(text: str, at: int) -> bool:
    """Is this '@' the end of 'scheme://user:password@' on its line?"""
    scheme = text.rfind("://", max(0, at - 400), at)
    if scheme < 0:
        return False
    userinfo = text[scheme + 3:at]
    return ":" in userinfo and not any(c in userinfo for c in " \t\n\"'`/")


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
    if _url_userinfo_end(text, at):
        return None  # user:password@host of a URL, handled as a connection string
    return Finding(start, domain.end(), EMAIL, "email", 0.95)


# ---------------------------------------------------------------------------------------------
# IP addresses: candidates by regex, public-ness by the ipaddress module.

_IPV4 = re.compile(r"\d\d{0,2}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?!\w|\.\d)")
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
        if before.isalnum() or before in ("_", ".") or after.isalnum() or after in ("_", "."):
            continue
        yield start, end


def _network_suffix(text: str, end: int) -> bool:
    return text[end:end + 1] == "/" and text[end + 1:end + 2].isdigit()


def find_ips(text: str, fake_pool: frozenset[str] = frozenset()) -> Iterator[Finding]:
    for m in _IPV4.finditer(text):
        start, ip = m.start(), m.group()
        if (start and (text[start - 1] in ".-" or _word_before(text, start))) or ip in fake_pool:
            continue
        try:
            address = ipaddress.IPv4Address(ip)  # rejects octets > 255 and zero-padded ones
        except ValueError:
            continue
        if _network_suffix(text, m.end()):
            continue  # 203.0.114.0/24 names a network, not a host
        if suppress.is_public_ip(address) and not suppress.looks_like_version(text, start, m.end()):
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

_CARD = re.compile(r"\d\d{3}(?:([ -]?)\d{4,6})(?:\1\d{4,5}){1,2}(?:\1\d{1,4})?(?!\d|[.,-]\d)")
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
    for m in _CARD.finditer(text):
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

_EXTENSION = r"(?: ?(?:x|ext\.? ?)\d{1,6})?"
_PHONE_INTL = re.compile(r"\+[1-9]\d{0,2}(?:[ .-]?\(\d{1,4}\))?(?:[ .-]?\d{1,4}){2,5}" + _EXTENSION + r"(?!\w|[.-]\d)")
_PHONE_PAREN = re.compile(r"\(\d\d\d\) ?\d\d\d[-. ]\d{4}" + _EXTENSION + r"(?!\w|[.-]\d)")
_PHONE_NANP = re.compile(r"\d\d\d([-. ])\d\d\d\1\d{4}" + _EXTENSION + r"(?!\w|[.-]\d)")
_PHONE_WORDS = re.compile(r"(?i)phone|\btel\b|mobile|cell|fax|call|contact|sms|whatsapp")


def find_phones(text: str) -> Iterator[Finding]:
    if "+" in text:
        for m in _PHONE_INTL.finditer(text):
            if m.start() and (_word_before(text, m.start()) or text[m.start() - 1] in "+."):
                continue
            number = m.group()
            separated = any(c in number for c in " -()")
            if not separated and "." in number:
                continue  # +0.5e3, +1.25: a signed decimal
            if (8 if separated else 11) <= sum(c.isdigit() for c in number) <= 15:
                yield Finding(m.start(), m.end(), PHONE, "phone", _phone_confidence(text, m.start(), 0.7))
    if "(" in text:
        for m in _PHONE_PAREN.finditer(text):
            yield Finding(m.start(), m.end(), PHONE, "phone", _phone_confidence(text, m.start(), 0.6))
    for m in _PHONE_NANP.finditer(text):
        start = m.start()
        if start and (text[start - 1] in ".+-(" or _word_before(text, start)):
            continue
        confidence = _phone_confidence(text, start, 0.6)
        if m.group(1) == " " and confidence < 0.9:
            continue  # '555 123 4567' is only a phone number where the text says so
        if not suppress.after_version_word(text, start):
            yield Finding(start, m.end(), PHONE, "phone", confidence)


def _phone_confidence(text: str, start: int, base: float) -> float:
    return 0.9 if _PHONE_WORDS.search(text, max(0, start - 40), start) else base


# ---------------------------------------------------------------------------------------------

DETECTORS: dict[str, Callable[[str], Iterator[Finding]]] = {
    "shapes": find_shapes,
    "private_keys": find_private_keys,
    "url_passwords": find_url_passwords,
    "assignments": find_assignments,
    "emails": find_emails,
    "ips": find_ips,
    "cards": find_cards,
    "phones": find_phones,
}

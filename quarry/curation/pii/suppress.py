"""False-positive suppression: the look-alikes real code is full of.

Each predicate answers "is this candidate something that is not personal data or a live
credential?" for one family of look-alikes: placeholders, hex digests, UUIDs, data blobs,
documentation addresses, private / reserved networks (version numbers: quarry.curation.pii.versions).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import math
import re
from collections import Counter

# Words that mark a value as a template or an example, in lower, upper or capitalized case only:
# random tokens spell 'FAkE' or 'sAmPle' by chance, people write 'fake', 'EXAMPLE', 'Your_'.
_PLACEHOLDER_WORDS = ("your_", "your-", "example", "sample", "placeholder", "dummy", "changeme", "change_me",
                      "change-me", "redacted", "replaceme", "replace_me", "replace-me", "insert_", "insert-", "fake",
                      "foobar", "abcdefghij", "qwertyui")
_PLACEHOLDER = re.compile(
    r"(?i)x{5,}|\*{3,}|\.{3}|<[^<>\s]{1,40}>|\[[^\[\]\s]{1,40}\]|\$\{|\{[^{}\s]{1,40}\}|%\(|"
    r"(?-i:%s)(?![A-Za-z0-9])|(?-i:\$[A-Z_]{3,}(?![A-Za-z0-9]))|^my[-_]?(?:pass|secret|token|key|api)|"
    r"(?-i:" + "|".join(re.escape(w) for word in _PLACEHOLDER_WORDS for w in (word, word.upper(), word.capitalize())) + "|ChangeMe|ReplaceMe)|"
    r"^(?:test|secret|password|passwd|pass|pwd|pw|user|username|token|none|null|nil|undefined|string|str|"
    r"required|true|false|optional|bytes|int)$|"
    # a shell or template variable standing for the value: $1, ${2}, $password, ${API_TOKEN}
    r"^\$\{?(?:\d+|[A-Za-z_]\w*)\}?$|"
    # a release tool's substitution marker or a reference to the environment: @@API_TOKEN@@, __API_TOKEN__,
    # #{ApiToken}, env:API_TOKEN (a test's own password, 'test123', is a password: tests ship real ones too)
    r"^@@[\w.-]+@@$|^__[A-Z][A-Z0-9_]*__$|^#\{[\w.-]+\}#?$|^env:[A-Za-z_]\w*$|"
    # a provider-like prefix on an identifier of camelCase words (an Objective-C selector
    # 'hf_requiredCharacteristic', 'sk_sessionKeyForUser'): generated tokens are not spelled in words
    r"^[A-Za-z]{1,12}[_-](?-i:[a-z]{2,}|[A-Z][a-z]{2,})(?-i:[A-Z][a-z]{2,}){2,}$"
)
_HEX = re.compile(r"[0-9a-fA-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_DIGEST_PREFIX = re.compile(r"(?i)^(?:sha(?:1|224|256|384|512)|md5|blake2b?|xxh\d*)[-:=]")
_DIGEST_LENGTHS = {32, 40, 56, 64, 96, 128}

# RFC 2606 / 6761 names, and the domains people type when they mean "some domain".
DOC_EMAIL_DOMAINS = ("example.com", "example.org", "example.net", "example.edu", "domain.com", "yourdomain.com",
                     "mydomain.com", "yourcompany.com", "company.com", "email.com", "somewhere.com")
DOC_TLDS = ("example", "test", "invalid", "localhost", "local", "internal", "localdomain", "lan")
# Things after '@' that look like a domain but are file names (icon@2x.png) or code.
FILE_TLDS = frozenset(
    "png jpg jpeg gif svg webp ico bmp tif tiff pdf js mjs cjs ts tsx jsx css scss less html htm "
    "py pyc rb go rs java kt c h cc cpp hpp cs php pl sh json yaml yml toml xml txt md rst lock "
    "zip gz tar bz2 xz whl jar so dll dylib exe bin dat csv log ini cfg conf map wasm mp3 mp4 wav "
    "ttf otf woff woff2 eot min bundle chunk d vue svelte swift m mm sql proto".split()
)
NON_PERSONAL_LOCALS = frozenset({"git", "user", "username", "email", "name", "someone", "somebody", "your.name",
                                 "yourname", "your.email", "youremail", "your_email", "firstname.lastname",
                                 "first.last", "name.surname"})

# RFC 5737 (IPv4) and RFC 3849 (IPv6) documentation ranges, plus benchmarking and shared space.
_DOC_NETS = tuple(ipaddress.ip_network(n) for n in (
    "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "198.18.0.0/15", "100.64.0.0/10",
    "2001:db8::/32", "3fff::/20",
))
_GLOBAL_UNICAST_V6 = ipaddress.ip_network("2000::/3")
# Public resolvers whose parts are all small, so they are not taken for version numbers.
WELL_KNOWN_IPS = frozenset({"1.1.1.1", "1.0.0.1", "8.8.8.8", "8.8.4.4", "9.9.9.9", "4.2.2.1", "4.2.2.2"})


def shannon_entropy(value: str) -> float:
    """Bits per character of the value's own character distribution."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def char_classes(value: str) -> int:
    """How many of lower / upper / digit / symbol the value mixes."""
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))


def is_placeholder(value: str) -> bool:
    """YOUR_API_KEY, xxxx, <token>, ${VAR}, ****, changeme, a value already redacted..."""
    if _PLACEHOLDER.search(value):
        return True
    # a run of one repeated character or a very low-entropy value is typed, not generated
    return len(value) >= 8 and len(set(value)) <= 3 or _typed_filler(value) or _encoded_placeholder(value)


_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4}){2,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def _encoded_placeholder(value: str) -> bool:
    """A placeholder base64-encoded, as a Kubernetes Secret's data holds it ('cGFzc3dvcmQ=': 'password')."""
    if len(value) > 64 or not _BASE64.fullmatch(value):
        return False
    decoded = base64_text(value)
    return decoded is not None and decoded.isprintable() and decoded != value and is_placeholder(decoded)


def base64_text(value: str) -> str | None:
    """``value`` decoded from base64 when it is text (every line printable), else None."""
    try:
        text = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return text if all(line.isprintable() for line in text.expandtabs(1).splitlines()) else None


FILLER_PREFIX = 8        # a provider's prefix (ghp_, shpat_, sk_live_) is not part of the filler
SEQUENCE_RUN = 4         # 'abcd', '1234': a random token holds such a run about once in 200,000 places


def _typed_filler(value: str) -> bool:
    """A token's shape filled by hand: after its prefix, two characters at most
    ('ghp_000000...', 'xoxb-0000-xxxx'), or mostly counting runs ('xoxp-1234567890-1234567890-...',
    '1234567890abcdef1234567890abcdef'). Short values are left to the password judgement:
    'abcd1234' is a weak password, not a filler."""
    body = [c for c in value[FILLER_PREFIX:] if c.isalnum()]
    if len(body) >= 12 and len(set(body)) <= 2:
        return True
    chars = [c for c in value if c.isalnum()]
    if len(chars) < 16:
        return False
    in_runs, run = 0, 1
    for before, after in zip(chars, chars[1:]):
        run = run + 1 if ord(after) == ord(before) + 1 else 1
        if run == SEQUENCE_RUN:
            in_runs += SEQUENCE_RUN
        elif run > SEQUENCE_RUN:
            in_runs += 1
    return in_runs >= len(chars) / 2


def is_hex_digest(value: str) -> bool:
    """A git SHA, md5, sha1/sha256/sha512 in hex (optionally 'sha256:'-prefixed)."""
    bare = _DIGEST_PREFIX.sub("", value)
    if len(bare) < len(value):
        return len(bare) >= 32
    return len(bare) in _DIGEST_LENGTHS and _HEX.fullmatch(bare) is not None


def is_uuid(value: str) -> bool:
    return _UUID.fullmatch(value) is not None


def is_integrity_hash(value: str) -> bool:
    """Subresource-integrity / lockfile hashes: 'sha512-<base64>' and friends."""
    return _DIGEST_PREFIX.match(value) is not None


def is_data_blob(value: str) -> bool:
    """An inline data URI or a long base64 payload: content, not a credential."""
    return value.startswith("data:") or len(value) > 200


def is_lookalike_secret(value: str) -> bool:
    """Any of the value families above that a high-entropy detector must not report."""
    return (is_placeholder(value) or is_uuid(value) or is_integrity_hash(value)
            or is_data_blob(value) or is_hex_digest(value))


def is_documentation_email(domain: str) -> bool:
    domain = domain.lower()
    return (domain in DOC_EMAIL_DOMAINS or domain.endswith(tuple("." + d for d in DOC_EMAIL_DOMAINS))
            or domain.rsplit(".", 1)[-1] in DOC_TLDS)


def is_file_name_domain(domain: str) -> bool:
    return domain.rsplit(".", 1)[-1].lower() in FILE_TLDS


def is_public_ip(address: ipaddress.IPv4Address | ipaddress.IPv6Address, global_unicast_only: bool = True) -> bool:
    """Global addresses only: private, loopback, link-local, multicast and documentation ranges
    are not anybody's address. IPv6 must also lie in 2000::/3 (global unicast) unless
    ``global_unicast_only`` is off."""
    if any(address in net for net in _DOC_NETS if net.version == address.version):
        return False
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return is_public_ip(address.ipv4_mapped)
        in_range = address in _GLOBAL_UNICAST_V6 or not global_unicast_only
        return in_range and address.is_global and not address.is_multicast
    return address.is_global and not address.is_multicast

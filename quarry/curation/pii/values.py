"""Is a literal that stands where a secret would stand a secret value?

Two judges: ``looks_generated`` (random tokens: entropy plus a mix of character classes) for
values whose only context is a weak name, and ``plausible_secret`` for values a strong context
already vouches for (``JWT_SECRET=...``, ``-p<password>``, "the api secret is ..."): there any
literal counts unless it is a placeholder, a reference, a plain word, a number, a path or a URL.
"""

from __future__ import annotations

import re

from quarry.curation.pii import suppress

# Words a default or an example uses where a secret would go, beyond suppress.is_placeholder's.
DICTIONARY_PLACEHOLDERS = frozenset(
    "changeme changeit secret secrets password passwd passw0rd admin root guest default defaults test tests testing "
    "todo tbd fixme none null nil empty blank unset undefined required optional hidden redacted masked "
    "development production staging local localhost dev prod example sample demo foo bar baz qux "
    "mysecret supersecret topsecret mypassword yourpassword secretkey secret_key apikey api_key token "
    "postgres mysql redis root123 admin123 password123 letmein qwerty abc123 123456 12345678 "
    "bearer basic oauth oauth2 jwt hs256 rs256 enabled disabled true false yes no on off".split())
# Name parts that make a credential-like name describe something else (token_hash, secret_name).
_NOT_SECRET_PARTS = frozenset(
    "hash hashed digest sha sha1 sha256 sha512 md5 checksum check sum commit etag fingerprint integrity id ids uuid "
    "type types name names field file path url uri len length size count expiry expires expiration timeout "
    "ttl prefix suffix header param params env var pattern regex format policy endpoint label class limit "
    "index max min kind mode version ref prompt message msg hint help text title error placeholder "
    "validator validation reset page cursor next continuation author authors authority authored "
    "authorize authorized public publishable issuer audience algorithm alg scope scopes domain host hostname "
    "port user username login arn region from image provider method enabled usage range cidr tokenizer".split())
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


# The parts that name a secret; the last part of a name is what it is (EMAIL_HOST_PASSWORD is a
# password, PASSWORD_FILE a file, token_hash a hash).
_SECRET_PARTS = frozenset("pass password passwd passphrase pwd pw secret secrets token tokens key keys apikey "
                          "credential credentials auth".split())
# Parts that make a name describe something else wherever they stand (public_key, max_tokens,
# next_page_token).
_NEGATING_PARTS = frozenset("public publishable max min num page next cursor continuation pagination request "
                            "idempotency unit".split())


def describes_something_else(name: str) -> bool:
    """token_hash, secretName, PASSWORD_FIELD: the name is about a credential, not one. A part
    naming something else counts after the last secret part only: EMAIL_HOST_PASSWORD is one."""
    parts = [part.lower() for part in _NAME_PARTS.findall(name)]
    last_secret = max((i for i, part in enumerate(parts) if part in _SECRET_PARTS), default=-1)
    return any(part in _NEGATING_PARTS or part in _NOT_SECRET_PARTS and (i > last_secret or last_secret < 0)
               for i, part in enumerate(parts))


# Values that are code in the syntax they stand in: a YAML tag (!vault, !Ref) or alias (*default),
# an ERB or Jinja expression, a shell substitution.
_EXPRESSION = re.compile(r"^![A-Za-z]|^\*[A-Za-z_]|<%|\{\{|\$\(|^`.*`$")


def is_expression(value: str) -> bool:
    return _EXPRESSION.search(value) is not None


_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_NUMBER = re.compile(r"[-+]?\d+(?:[.,_]\d+)*(?:[eE][-+]?\d+)?[kKmMgG]?[bB]?")
_DURATION = re.compile(r"\d+(?:\.\d+)?(?:ms|s|m|h|d|w|y|mo|min|sec|secs|mins|hours|days)")
_VERSION = re.compile(r"v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?")
_REFERENCE = re.compile(r"(?:[A-Za-z_$][\w$]*)(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+(?:\(\))?")  # a.b.c, obj.attr
_IDENTIFIER = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+|(?:[A-Z][a-z]+){2,}")
_TEMPLATE = re.compile(r"\{\}|^\$[A-Za-z_{(]|^%[A-Za-z_]+%$|\{\{|\}\}|^@[A-Za-z_]|^&[A-Za-z_]|^!(?:Ref|Sub|GetAtt)")
_HOSTNAME = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,12}")
_RESOURCE_PATH = re.compile(r"[a-z0-9._-]+(?:/[a-z0-9._-]+){2,}/?")  # projects/p/secrets/db-password
_PATH = re.compile(r"(?:~|\.{1,2})?/[\w.~-]+/|(?:~|\.{1,2})/|[A-Za-z]:\\")  # /home/user, ~/.pgpass, C:\Users (not /Xk9m...)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}")
_HEX_CHARS = frozenset("0123456789abcdefABCDEF")


def plausible_secret(value: str, min_length: int = 6, literal: bool = False) -> bool:
    """A literal a secret-naming context vouches for: anything typed as a secret, not a
    placeholder, a plain word, a number, a version, a duration, a reference, a path or a URL.
    ``literal``: the syntax makes the value a string (quoted, a YAML scalar, an INI value), so a
    dotted name in it (river.falcon42) is not a reference."""
    if len(value) < min_length or any(c.isspace() for c in value):
        return False
    if value[0] in ",;)]}" and value[-1] in ",:([{":
        return False  # '",DuplicateBinding:"': the text between two string literals, not one
    lower = value.lower()
    if (lower in DICTIONARY_PLACEHOLDERS or suppress.is_placeholder(value) or _TEMPLATE.search(value)
            or "://" in value or value.startswith(("/", "./", "../", "~/")) or _EMAIL.fullmatch(value)
            or _HOSTNAME.fullmatch(value) or _RESOURCE_PATH.fullmatch(value)):
        return False
    if _NUMBER.fullmatch(value) or _DURATION.fullmatch(lower) or _VERSION.fullmatch(value) or _COLOUR.fullmatch(value):
        return False
    if _IDENTIFIER.fullmatch(value) or is_expression(value):
        return False  # SOME_CONSTANT, some_field: a name, not a value
    if _REFERENCE.fullmatch(value) and (not literal or not any(c.isdigit() for c in value)):
        return False  # config.secret, DistributionList.NextMarker: a path of names (river.falcon42 in a literal is not)
    if "." in value and value.rsplit(".", 1)[1].lower() in suppress.FILE_TLDS:
        return False  # WordPressApp.zip: a file name
    if suppress.is_uuid(value) or suppress.is_integrity_hash(value) or suppress.is_data_blob(value):
        return False
    if value.isalpha() and (value.islower() or value.isupper() or value.istitle()):
        return False  # a plain word
    return True


def typed_secret(value: str, literal: bool = False) -> bool:
    """Mixes letters with digits or symbols (river.falcon.42, dev-secret-2931, Summer2024!): not a
    word or a name (SSHKey, EventLoopToken). In a literal, one symbol that no name holds is
    enough (maple&cedar)."""
    if not any(c.isalpha() for c in value):
        return False
    if literal and any(not c.isalnum() and c not in "-_./:" for c in value):
        return True
    symbols = sum(not c.isalnum() for c in value)
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return any(c.isdigit() for c in value) or symbols >= 2 or symbols == 1 and mixed_case


def words_run_together(value: str) -> bool:
    """CreateOAuth2Token, CloudFrontOriginAccessIdentityList.NextMarker: most of it is words of
    three or more letters, as names are and random tokens are not. A word has its vowels: the
    letters between a lower-case token's digits ('snxgp98jer2q08oajhzskfdwn') are not words."""
    alnum = sum(c.isalnum() for c in value)
    return sum(len(p) for p in _NAME_PARTS.findall(value) if len(p) >= 3 and p.isalpha() and _has_vowels(p)) >= 0.7 * max(1, alnum)


def _has_vowels(part: str) -> bool:
    """At least one letter in five a vowel (y counted), as words have (about 40%), in a lower-case
    part longer than an abbreviation (cfg, html); capitals mark words and acronyms (SECPKCS12Target)."""
    return len(part) <= 4 or not part.islower() or sum(c in "aeiouy" for c in part) >= len(part) / 5


# Words of code that stand where a literal would ('password = lambda: ...', 'password: str').
CODE_WORDS = frozenset("lambda function def fn func new await async return none null nil undefined true "
                       "false self this str string int bool bytes dict list object any optional required "
                       "os env process getenv".split())


def plausible_password(value: str) -> bool:
    """A value under a password's name that may be one: six characters or more, not a dictionary
    placeholder ('changeme') and not a word of code. One judgement for every syntax that names a
    password (an assignment, a YAML block, an XML element, a table's column)."""
    lower = value.lower()
    return (len(value) >= 6 and lower not in DICTIONARY_PLACEHOLDERS and lower not in CODE_WORDS
            and not _PATH.match(value))   # PWD=/home/user, password_file = ~/.secret: a path


def generated_key(value: str) -> bool:
    """A long value with a generated token's entropy and classes: what a credential's name makes a
    key whatever its shape. A hex string there is a key (Flask SECRET_KEY, API keys), not a digest;
    other look-alikes (a UUID, an integrity hash) are not."""
    return len(value) >= 16 and looks_generated(value) and (
        suppress.is_hex_digest(value) and not suppress.is_integrity_hash(value) or not suppress.is_lookalike_secret(value))


def looks_generated(value: str) -> bool:
    """Entropy plus a mix of character classes: what random tokens have and words do not."""
    alnum_classes = (any(c.islower() for c in value) + any(c.isupper() for c in value)
                     + any(c.isdigit() for c in value))
    if alnum_classes < 2:
        return False
    if set(value) <= _HEX_CHARS:
        return suppress.shannon_entropy(value) >= 3.0
    if _digits_among_one_case(value):
        return True
    if words_run_together(value):
        return False
    return suppress.shannon_entropy(value) >= 3.5 and (_class_changes(value) >= 0.34 or _few_vowels(value))


# Digits standing between letters, three times or more: 'rzoxhqs7iocfz5bltz0', not 'utf8' or 'sha256'.
_INNER_DIGITS = re.compile(r"(?<=[A-Za-z])[0-9]+(?=[A-Za-z])")


def _digits_among_one_case(value: str) -> bool:
    """Letters of one case with digits scattered among them, as a base-36 token is
    ('rzoxhqs7iocfz5bltz0recuo', '6J99W4LMVQ6ZL9V2YYVY'). Neighbouring classes change less often
    in these than in base62, so the class-change test misses a quarter of them; names of one case
    with digits keep them at a word's end ('x509fingerprint256') or read as words once lowered
    (capitals do not mark words when every letter is one)."""
    if len(value) < 16 or not (value.islower() or value.isupper()) or not value.isalnum():
        return False
    digits = sum(c.isdigit() for c in value) / len(value)
    return (0.12 <= digits <= 0.6 and len(_INNER_DIGITS.findall(value)) >= 3
            and not words_run_together(value.lower()) and suppress.shannon_entropy(value) >= 3.3)


def _few_vowels(value: str) -> bool:
    """Words are about 40% vowels, random letters about 20%: 'CWQY0KZLydbWpnfszxqhesRD'."""
    letters = [c for c in value if c.isalpha()]
    return len(letters) >= 8 and sum(c in "aeiouAEIOU" for c in letters) / len(letters) < 0.2


def _char_class(c: str) -> int:
    return 0 if c.islower() else 1 if c.isupper() else 2 if c.isdigit() else 3


def _class_changes(value: str) -> float:
    """Share of neighbouring characters of different classes (lower/upper/digit/other): about 0.6
    in random base62, about 0.3 in identifiers such as TokenizerEncoderConfig or input_tokens_1hr."""
    classes = [_char_class(c) for c in value if c.isalnum()]  # separators: 'cc-by-1.0' is words
    return sum(a != b for a, b in zip(classes, classes[1:])) / max(1, len(classes) - 1)

"""Credentials found by context: a literal assigned to a credential-like name (password = "...",
API_KEY: ..., <password>...</password>, --password=...), bearer and basic auth headers, and
generic high-entropy values, judged by entropy, character classes and the shape of the name.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache

from quarry.curation.pii import suppress, syntax
from quarry.curation.pii.findings import (CREDENTIAL_ROOTS, KEY, PASSWORD, PASSWORD_WORD, SHORT_PASSWORD_NAME, Finding, line_end,
                                          line_prefix, lowered, occurrences)
from quarry.curation.pii.pairs import Pair, positional_pairs
from quarry.curation.pii.values import (CODE_WORDS, describes_something_else, generated_key,
                                        is_expression, looks_generated, plausible_password, plausible_secret,
                                        typed_secret)

# Anchored at each occurrence of a root word (found with str.find on the lowered text, shared with
# the other detectors looking for the same roots: quarry.curation.pii.findings.occurrences).
_CREDENTIAL_NAME = re.compile(
    r"(?i)(?:pass(?:w(?:or)?d|phrase)?(?![a-z])|pw(?:d|(?![a-z]))|psk(?![a-z])|secret|token|credentials?|key|auth)"
    # a name's closing quote may be escaped: a JSON document held in a string, '{\\n  \\"api_token\\": \\"...\\"'
    # a C array (API_TOKEN[]); a name closing a Perl hash key ($ENV{API_TOKEN})
    r"(?P<tail>[A-Za-z0-9_.-]{0,64})(?:\[\d*\])?(?P<close>(?:\\?[\"'\]}])*)"
    # a declared type between name and operator: Go `var key string =`, Kotlin / TS `val key: String =`,
    # Rust `const KEY: &'static str =`, Visual Basic `Dim key As String =`, Python `key: Optional[str] =`;
    # a blank or a colon before it, so that a long name is never split between name and type (on a
    # name of thousands of characters with no operator, every split was tried: cubic time)
    r"(?:(?:[ \t]+(?:As[ \t]+)?|[ \t]*:[ \t]*)(?:&(?:'[A-Za-z_]\w*[ \t]+)?)?[A-Za-z_][\w.]*"
    r"(?:\[[\w., |]{0,64}(?:\[[\w., |]{0,64}\])?\])?(?=[ \t]*=[^=>]))?"
    # a C# auto-property's accessors: `ApiKey { get; set; } =`
    r"(?:[ \t]*\{[ \t]*get;[^{}\r\n]{0,32}\}(?=[ \t]*=[^=>]))?"
    # every common assignment, append and default operator: Make's ::= / :::= / ?=, PHP's .=, ||=, ??=, R's <-
    r"[ \t]*(?P<op>:{1,3}=|\.=|\+=|\?\?=|\?=|\|\|=|=>|<-|=|:)[ \t]*"
    r"(?:&[\w-]+[ \t]+)?"  # a YAML anchor before the value: `password: &db_pw value`
    r"(?:!!(?:str|binary)[ \t]+)?"  # a YAML core tag: `token: !!str value` (`!vault` and other tags are not the value's)
    # a bare value, or the indicator of a folded block scalar (`key: >-`, its value on the lines below)
    # a string's prefix: Python's b'' r'' f'' u'', C#'s @"" $"", C++'s u8"" L"", Swift's #""#
    r"(?:(?:[rRbBuUfF]{1,2}|u8|L|@\$?|\$@?|#{1,3})?"
    r"(?P<q>'''|\"\"\"|\\?[\"'`])(?P<quoted>[^\"'`\r\n]{4,512}?)(?P=q)"   # a Python triple-quoted string too
    r"|(?P<bare>>[+-]?[1-9]?(?=[ \t]*(?:#.*)?\r?(?:\n|$))|[^\s\"'`,;&(){}\[\]<>]{1,512}))"
)
_KEY_QUALIFIER = re.compile(
    r"(?:api|access|private|auth|signing|encryption|master|consumer|app|client|account|storage|secret)"
    r"[_.-]?$")
_REFERENCE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")  # a variable or attribute path
# Name parts that make a credential-like name describe something else (token_hash, secret_name).
_IDENTIFIER_LITERAL = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+")
_END_OF_LINE = re.compile(r"[ \t]*(?:[#;].*)?(?:\r?\n|$)")

# '[Bb](?<!\w[Bb])' is '\b[Bb]' written so that the engine skips to each 'B' or 'b' (a leading
# '\b' makes it stop at every position).
_BEARER = re.compile(r"[Bb](?<!\w[Bb])earer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)")
# a token under another scheme in an Authorization header: GitHub's 'token ...', Django REST's 'Token ...'
_TOKEN_SCHEME = re.compile(r"(?:Authorization|authorization|AUTHORIZATION)[\"']?[ \t]*[:=,][ \t]*[\"'`]?(?:[Tt]oken|Bot|Key)[ \t]+"
                           r"([A-Za-z0-9._~+/-]{16,}=*)")
_BASIC = re.compile(r"[Bb](?<!\w[Bb])asic[ \t]+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])")


# a line's own declaration: a shell's export / set, a Dockerfile's ENV / ARG, an .npmrc registry's scope,
# a systemd unit's Environment=, a PHP-FPM pool's env[...]
_DECLARES = r"(?:export\s+|set\s+|(?:ENV|ARG)[ \t]+|//[^\s:]+/:|Environment=|env\[)"
# (a YAML key may be a Ruby symbol: `:rubygems_api_key: ...`)
_CONFIG_LINE_START = re.compile(r"\s*(?:-\s+)?" + _DECLARES + r"?[\"':]?[\w.-]*")
# In a list only its separator ends a value: a query string's '&' ('password=ab;cd&ssl=true'), a
# connection string's ';' ('Password=a,=v*gv;Encrypt=true').
_LIST_VALUE = {"?": re.compile(r"[^&#\s\"'`<>]*"), "&": re.compile(r"[^&#\s\"'`<>]*"), ";": re.compile(r"[^;\s\"'`<>]*")}
# A JDBC URL's driver splits its query on '&' alone: '#' is the password's, not a fragment's.
_JDBC_QUERY_VALUE = re.compile(r"[^&\s\"'`<>]*")
_DOTENV_LINE_START = re.compile(r"(?:" + _DECLARES + r"|[ \t]*-[ \t]+)?[\"']?[\w.-]*")
_NAME_BEFORE = re.compile(r"[\w.-]*$")
_AFTER_FLAG = re.compile(r"(?:^|[ \t])--?[A-Za-z][\w-]*(?:=|[ \t]+)$")


# a YAML line holding a flow mapping: `db: {user: app, password: ...}`, an Ansible item `- {name: ...}`
_YAML_FLOW_LINE = re.compile(r"[ \t]*(?:-[ \t]+)?(?:[\w.-]+:[ \t]*)?\{[^{}\r\n]*\}[ \t]*(?:#.*)?\r?")


# an environment variable's name as a shell word writes it, then `=` and the value with no blank
_ENVIRONMENT_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


def _environment_word(text: str, m: re.Match, name_start: int) -> bool:
    """`heroku config:set DB_PASSWORD=...`, `fly secrets set API_TOKEN=... X=y`, `env API_TOKEN=... cmd`:
    a word of a command line after other words, an environment variable's name, `=` and the value,
    one shell word (code passes such a name as an argument, `f(API_TOKEN=token)`, not as a word)."""
    if m.group("op") != "=" or m.group("q") is not None or name_start == 0 or text[name_start - 1] not in " \t":
        return False
    if text[m.end("tail") + len(m.group("close")):m.start("bare")] != "=":
        return False   # a blank around `=`: code's assignment, not a shell word
    return (_ENVIRONMENT_NAME.fullmatch(text, name_start, m.end("tail")) is not None
            and text[m.end("bare"):m.end("bare") + 1] in ("", " ", "\t", "\r", "\n"))


def _in_yaml_flow_mapping(text: str, at: int) -> bool:
    """The name at ``at`` is a key of a flow mapping on a YAML line (not a JavaScript object: the
    lines around it read as YAML, syntax.in_config_block)."""
    line_start = text.rfind("\n", 0, at) + 1
    return (_YAML_FLOW_LINE.fullmatch(text, line_start, line_end(text, at)) is not None
            and syntax.in_config_block(text, line_start))


def _config_line(text: str, start: int) -> bool:
    """The name starts its line (KEY=value, key: value, export KEY=...): a config, not code."""
    return _CONFIG_LINE_START.fullmatch(line_prefix(text, start)) is not None


def _root_positions(lower: str) -> list[int]:
    return sorted(at for root in CREDENTIAL_ROOTS for at in occurrences(lower, root))


# the same text's names serve the provider-keyed rules (scanner_rules) too; two: a text and its view with
# escaped line breaks read as lines (find_assignments)
@lru_cache(maxsize=2)
def credential_names(text: str) -> tuple[tuple[int, re.Match], ...]:
    """Each credential-like name followed by an operator and a value: (where its root word starts,
    the match)."""
    found = ((at, _CREDENTIAL_NAME.match(text, at)) for at in _root_positions(lowered(text)))
    return tuple((at, m) for at, m in found if m)


# A config held in a string literal ("DB_HOST=db\\nDB_PASSWORD=...", a JSON value): its escaped line
# breaks are read as line breaks, in a view of the text where each escape keeps its width (every offset
# stays), when a credential-like name follows one.
_ESCAPED_BREAK = re.compile(r"\\r\\n|\\n")
_NAME_AFTER_ESCAPED_BREAK = re.compile(r"(?i)\\n[ \t]*(?:\\?[\"'])?[\w.-]*(?:" + "|".join(CREDENTIAL_ROOTS) + ")")


_AS_LINE_BREAK = {"\\n": " \n", "\\r\\n": "  \r\n"}


def _escaped_breaks_as_lines(text: str) -> str:
    return _ESCAPED_BREAK.sub(lambda m: _AS_LINE_BREAK[m.group()], text)


def find_assignments(text: str) -> Iterator[Finding]:
    yield from _assignments(text)
    if "\\n" in text and _NAME_AFTER_ESCAPED_BREAK.search(text):
        yield from _assignments(_escaped_breaks_as_lines(text))
    for pair in positional_pairs(text):
        yield from _pair_as_assignment(text, pair)


_NOT_IN_A_NAME = re.compile(r"[^\w.-]")


def _pair_as_assignment(text: str, pair: Pair) -> Iterator[Finding]:
    """A name and value written side by side, judged as the config line ``name = "value"`` (one
    literal) or ``NAME=value`` (the rest of a line) would be; the findings placed back in ``text``."""
    name, value = _NOT_IN_A_NAME.sub("_", pair.name), text[pair.start:pair.end]   # *db-password* -> _db-password_
    line = f"{name}={value}\n" if pair.whole_line else f'{name} = "{value}"\n'
    at = len(name) + (1 if pair.whole_line else 4)   # where the value starts in the line
    for finding in _assignments(line):
        if at <= finding.start and finding.end <= at + len(value):
            yield replace(finding, start=pair.start + finding.start - at, end=pair.start + finding.end - at)


def _assignments(text: str) -> Iterator[Finding]:
    lower = lowered(text)
    seen_values: set[int] = set()
    for at, m in credential_names(text):
        if m.start(_value_group(m)) in seen_values:
            continue
        keyword = lower[at:m.start("tail")]
        if keyword == "key" and not _KEY_QUALIFIER.search(lower, max(0, at - 16), at):
            continue  # a bare 'key' is a dict key or a sort key, not a credential
        if keyword in ("pwd", "pass") and at and lower[at - 1].isalpha() and not text[at].isupper():
            continue  # cwd/pwd of a shell, bypass, compass; but dbPass, DB_PASS
        if keyword in ("pw", "psk") and not SHORT_PASSWORD_NAME.match(text, at):
            continue
        quoted = m.group("q") is not None
        in_flow = False
        if m.group("op") == ":" and not quoted and m.group("close") == "" and not _config_line(text, at):
            if not _in_yaml_flow_mapping(text, at):
                continue  # 'token: str' / 'case TOKEN:' in code is a type or a label
            in_flow = True   # `db: {user: app, password: ...}`: a YAML flow mapping's values are literals
        if not quoted and _BLOCK_INDICATOR.fullmatch(m.group("bare")) and _END_OF_LINE.match(text, m.end()):
            finding = _block_scalar(text, at, m, keyword + m.group("tail"))
            if finding:
                seen_values.add(m.start(_value_group(m)))
                yield finding
            continue
        value = m.group(_value_group(m))
        if quoted and any(c.isspace() for c in value):
            continue  # "Enter your password": a message, not a password
        prefix = _NAME_BEFORE.search(line_prefix(text, at)[-48:]).group()
        before = at - len(prefix)
        # url query (?password=...&), key=v;key=v connection strings, --password=... command lines
        in_list = before > 0 and (text[before - 1] in "?&;" or prefix.startswith("--"))
        separator = text[before - 1:before] if in_list else ""
        # a command's argument after a flag (--set db.password=..., -e API_TOKEN=...): a shell word, a literal
        argument = not in_list and (_AFTER_FLAG.search(line_prefix(text, before, 64)) is not None
                                    or _environment_word(text, m, before))
        list_value = _LIST_VALUE.get(separator)
        if separator in ("?", "&") and "jdbc:" in line_prefix(text, before, 512):
            list_value = _JDBC_QUERY_VALUE
        finding = _judge_assignment(text, m, prefix + keyword + m.group("tail"), value, quoted,
                                    in_list or argument or in_flow, list_value)
        if finding:
            seen_values.add(m.start(_value_group(m)))
            yield finding
    for pattern, literals in ((_BEARER, ("earer",)), (_TOKEN_SCHEME, ("uthorization", "UTHORIZATION"))):
        if not any(literal in text for literal in literals):
            continue
        for m in pattern.finditer(text):
            token = m.group(1)
            if looks_generated(token) and not suppress.is_lookalike_secret(token):
                yield Finding(m.start(1), m.end(1), KEY, "bearer_token", 0.8)
    if "asic " in text:
        for m in _BASIC.finditer(text):
            if _basic_credentials(m.group(1)):
                yield Finding(m.start(1), m.end(1), PASSWORD, "basic_auth", 0.85)


_BLOCK_INDICATOR = re.compile(r"[|>][+-]?[1-9]?|[|>][1-9][+-]")   # YAML's literal and folded block scalars
_BLOCK_LINE = re.compile(r"([ \t]*)(\S[^\r\n]*?)[ \t]*\r?(?:\n|$)")


def _block_scalar(text: str, at: int, m: re.Match, name: str) -> Finding | None:
    """`password: |` or `api_token: >-` and the value on the more indented lines under it: a
    one-line block is the value; a block of several lines with no space in them is one value
    wrapped (a long token, base64), redacted whole."""
    if m.group("op") != ":" or not _config_line(text, at) or describes_something_else(name):
        return None
    prefix = line_prefix(text, at)
    key_indent = len(prefix) - len(prefix.lstrip(" \t-"))
    lines, position = [], text.find("\n", m.end()) + 1
    while 0 < position < len(text):
        line = _BLOCK_LINE.match(text, position)
        if line is None:   # a blank line inside the block
            blank_end = text.find("\n", position)
            position = blank_end + 1 if blank_end >= 0 and not text[position:blank_end].strip() else -1
            continue
        if len(line.group(1)) <= key_indent:
            break
        lines.append(line)
        position = line.end()
    if not lines or any(" " in line.group(2) or "\t" in line.group(2) for line in lines):
        return None   # none, or prose: a description, a message
    start, end = lines[0].start(2), lines[-1].end(2)
    value = "".join(line.group(2) for line in lines)
    if suppress.is_placeholder(value) or is_expression(value) or value.startswith("-----"):
        return None   # a PEM block is the private key detector's
    if PASSWORD_WORD.search(name):
        return Finding(start, end, PASSWORD, "password_assignment", 0.7) if plausible_password(value) else None
    if generated_key(value):
        return Finding(start, end, KEY, "high_entropy_assignment", 0.7)
    if _STRONG_NAME.search(name) and plausible_secret(value, min_length=6, literal=True) and typed_secret(value, True):
        return Finding(start, end, KEY, "secret_assignment", 0.7)
    return None


def _basic_credentials(token: str) -> bool:
    """'Basic <base64 of user:password>' with a password that is not a template."""
    try:
        decoded = base64.b64decode(token, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, sep, password = decoded.partition(":")
    return bool(sep and password) and not suppress.is_placeholder(password)


def _value_group(m: re.Match) -> str:
    return "quoted" if m.group("q") is not None else "bare"


def _judge_assignment(text: str, m: re.Match, name: str, value: str, quoted: bool,
                      in_list: bool = False, list_value: re.Pattern | None = None) -> Finding | None:
    start, end = m.span(_value_group(m))
    if list_value and not quoted:
        end = list_value.match(text, start).end()
        value = text[start:end]
    if suppress.is_placeholder(value) or describes_something_else(name):
        return None
    if _IDENTIFIER_LITERAL.fullmatch(value) and not _constant_holds_a_value(
            text[m.end("tail") - len(name):m.end("tail")], value):  # the name as written (``name`` is lowered in part)
        return None  # "OAUTH_OWNER_PASSWORD", "some_password": a constant's or a field's name
    dotenv = literal = False
    if not quoted:
        line_start = text.rfind("\n", 0, m.start()) + 1
        content_end = end   # where the line's value ends (before a closing quote it does not open)
        make = not in_list and _make_variable(text, m)
        whole_line = not in_list and (_whole_line_value(text, m) or make)
        ini = not (in_list or whole_line) and _spaced_config_line(text, m) and (
            syntax.in_ini_section(text, line_start) or syntax.in_properties(text, line_start))
        if whole_line or ini:
            end = _line_value_end(text, end)
            content_end, end = end, _unopened_quote(text, start, end)
            value = text[start:end]
            dotenv = m.group("op") == "=" and not ini
            # What the syntax makes a string: a .env value, a Make variable, a YAML scalar, an INI value.
            literal = dotenv or ini or make or m.group("op") == ":" and syntax.in_config_block(text, line_start)
            if any(c.isspace() for c in value) or suppress.is_placeholder(value) or is_expression(value):
                return None
        if not (in_list or _END_OF_LINE.match(text, content_end)) or value.rstrip(":").lower() in CODE_WORDS:
            return None  # 'password=lambda: ...', 'token=get_token(),' is code, not a config value
        if not literal and (value.startswith("_") or value[:4].lower() in ("pass", "secr", "toke", "cred", "pwd", "key")):
            return None
        keyword = text[m.start():m.start("tail")].lower()
        if (not (in_list or literal) and _REFERENCE.fullmatch(value) and not generated_key(value)
                and ("." in value or keyword in value.lower() or value.isupper() or not _config_line(text, m.start()))):
            return None  # a variable, an attribute or an env var name, not a literal (nor a generated token)
    literal = literal or quoted or in_list   # a query parameter, a connection string's field, a shell word after a flag
    if PASSWORD_WORD.search(text, m.start(), start):
        if not plausible_password(value):
            return None
        return Finding(start, end, PASSWORD, "password_assignment", 0.8 if quoted else 0.6)
    if "aws" in name.lower() and re.fullmatch(r"[A-Za-z0-9/+]{40}", value):
        if suppress.shannon_entropy(value) >= 3.5:
            return Finding(start, end, KEY, "aws_secret_key", 0.95)
        return None
    if generated_key(value):
        return Finding(start, end, KEY, "high_entropy_assignment", 0.7)
    # A config line (KEY=value, key: value) says more than code does: shorter values count there.
    # A declaration starting its line (KEY=value, key: value, SECRET = '...') says more than code does.
    min_length = 6 if literal and _config_line(text, m.start()) or not quoted and m.group("op") == ":" else 8
    if (_STRONG_NAME.search(name) and plausible_secret(value, min_length=min_length, literal=literal)
            and typed_secret(value, literal=literal)):
        return Finding(start, end, KEY, "secret_assignment", 0.7)
    return None


_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")
_CAMEL_WORD = re.compile(r"[A-Z]?[a-z0-9]+")


def _constant_holds_a_value(name: str, value: str) -> bool:
    """A constant's camelCase value that says more than the constant's own words is a value
    (PASSWD = 'testPass'); one that restates them names a field or a key (KEY_PASSWORD =
    'keyPassword'), as a camelCase value under any other name does (password: 'userPassword')."""
    if not _CONSTANT.fullmatch(name) or not value[:1].islower() or "_" in value or describes_something_else(value):
        return False  # 'passwordHash', 'tokenName': what the value names is not a credential
    name_words = name.lower().split("_")
    return any(not any(word in part or part in word for part in name_words)
               for word in (w.lower() for w in _CAMEL_WORD.findall(value)))


# Names that say "this is a secret" by themselves: whatever literal they hold is one.
_STRONG_NAME = re.compile(r"(?i)secret|passphrase|(?:api|access|private|signing|encryption|master|app|client|auth|"
                          r"session|cookie|jwt|hmac|bot|refresh|account)[_.-]?(?:key|token)|^token$|_token$|token_?key")


def _whole_line_value(text: str, m: re.Match) -> bool:
    """KEY=value (.env, compose) or key: value (YAML) starting its line: the value is the rest of
    the line, whatever punctuation it holds. 'x = f(y)' in code has spaces around '='."""
    op = m.group("op")
    if op == "=" and (text[m.start("op") - 1] in " \t" or text[m.end("op"):m.end("op") + 1] in (" ", "\t")
                      or not _DOTENV_LINE_START.fullmatch(line_prefix(text, m.start()))):
        return False  # 'x = f(y)' in code has spaces; 'f(\n    key=value,' is indented
    line = text[m.end():line_end(text, m.end())].rstrip()
    return op in ("=", ":") and _config_line(text, m.start()) and not line.endswith(",")


_MAKE_ONLY = ("?=", "::=", ":::=")   # operators no other common language has


def _make_variable(text: str, m: re.Match) -> bool:
    """A Makefile's variable (`TOKEN ?= value`, `API_TOKEN := value` starting its line): its value
    is the rest of the line, a literal. Go's `:=` declares a local inside a function, indented and
    rarely in capitals."""
    op = m.group("op")
    name = line_prefix(text, m.start()) + text[m.start():m.end("tail")]   # the match starts at the root word
    return op in _MAKE_ONLY or op in (":=", "+=") and _MAKE_NAME.fullmatch(name) is not None


_MAKE_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


def _spaced_config_line(text: str, m: re.Match) -> bool:
    """'password = value' (INI, TOML, properties): the name starts its line, nothing else follows."""
    return _config_line(text, m.start()) and m.group("op") in ("=", ":")


def _line_value_end(text: str, end: int) -> int:
    """The end of the line, less a trailing comment and blanks."""
    rest = text[end:line_end(text, end)]
    comment = _TRAILING_COMMENT.search(rest)
    return end + len((rest[:comment.start()] if comment else rest).rstrip())


def _unopened_quote(text: str, start: int, end: int) -> int:
    """``end``, less a closing quote the value ``text[start:end]`` does not open (the end of a string
    literal the config line is held in: '"DB_PASSWORD=..."')."""
    if end > start and text[end - 1] in "\"'" and text.count(text[end - 1], start, end) % 2:
        return end - 1
    return end


_TRAILING_COMMENT = re.compile(r"[ \t]+[#;]|[ \t]+//")

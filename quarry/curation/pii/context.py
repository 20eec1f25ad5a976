"""Secrets whose name is not next to them: a default after an environment lookup
(``process.env.JWT_SECRET || '...'``, ``os.getenv("SECRET_KEY", "...")``), a value under a parent
key that names a secret (``{"Jwt": {"Key": "..."}}``, a YAML block, a Kubernetes Secret's
``stringData``, ``- name: DB_PASSWORD`` then ``value: ...``), and a secret stated in prose
("the api secret is ...").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from quarry.curation.pii.findings import (KEY, PASSWORD, PASSWORD_WORD, SHORT_PASSWORD_NAME, Finding, finditer_from, line_prefix,
                                          lowered, occurrences, word_before)
from quarry.curation.pii.gates import present_literals, register
from quarry.curation.pii.values import (DICTIONARY_PLACEHOLDERS, describes_something_else, looks_generated, plausible_secret,
                               typed_secret)

_SECRET_WORD = re.compile(r"(?i:secret|passw|passphrase|pwd|_pass\b|pass$|token|credential|api_?key|apikey|"
                          r"private_?key|access_?key|signing_?key|encryption_?key|auth)|" + SHORT_PASSWORD_NAME.pattern)

def _names_secret(name: str) -> bool:
    return bool(_SECRET_WORD.search(name)) and not describes_something_else(name)


def _type_of(name: str) -> str:
    return PASSWORD if PASSWORD_WORD.search(name) else KEY


def _accept(name: str, value: str) -> bool:
    """A default or a nested value for ``name``: passwords may be plain, other secrets are typed."""
    if not plausible_secret(value, min_length=6, literal=True):  # a quoted string or a YAML scalar
        return False
    return (PASSWORD_WORD.search(name) is not None or typed_secret(value, literal=True) or len(value) >= 16
            or looks_generated(value))


# ---------------------------------------------------------------------------------------------
# Defaults after an environment lookup

# JS || ??, Kotlin / Groovy ?:; Python's `or` (matched from its literals, after an environment lookup only)
_JS_FALLBACK = re.compile(r"(?:\|\||\?\?|\?:)[ \t]*([\"'`])([^\"'`\r\n]{1,256})\1")
_OR_FALLBACK = re.compile(r"or[ \t]*([\"'])([^\"'`\r\n]{1,256})\1")
_OR_GATES = ('or "', "or '")
_ENV_NAME = re.compile(r"(?:env|ENV|environ|GetEnvironmentVariable|getProperty)(?:\.|\[\s*[\"']|\.get\(\s*[\"']|\(\s*[\"'])([A-Za-z_][A-Za-z0-9_]*)[\"']?\s*[\])]?\s*$")
_LAST_NAME = re.compile(r"([A-Za-z_$][\w$]*)\s*[\])]?\s*$")  # config.jwtSecret ?? '...'
_TARGET = re.compile(r"([A-Za-z_$][\w$.]*)\s*(?:=|:)\s*(?:await\s+)?[^=]*$")
# getenv("SECRET_KEY", "<default>"): found from its '(' (a literal the engine skips to), then the
# function before it is checked.
# (a value may carry escaped quotes of its own: `config.put("sonar.token", "\\"...\\"")`)
_DEFAULT_ARG = re.compile(r"\(\s*[\"'](-{0,2}[A-Za-z_][\w.-]*)[\"']\s*,\s*(?:default\s*=\s*)?([\"'])(?:\\[\"'])?"
                          r"([^\"'\\\r\n]{1,256})(?:\\[\"'])?\2")
# the functions that look a variable up in the environment
_ENV_LOOKUPS = r"getenv|environ\.get|\benv|ENV\.fetch|get_env|env\.str"
_ENV_FUNCTION = re.compile(r"(?:" + _ENV_LOOKUPS + r"|environ\.setdefault|\bconfig|"
                           r"\bdefine|[sS]etProperty|getProperty|[sS]etenv|putenv|SetEnvironmentVariable|"
                           # a store's write of a value under its name: `props.put`, `cache.set`, `localStorage.setItem`,
                           # Android's `editor.putString`, `store.save`; the map's own `put` in Java's double-brace
                           # initializer or Kotlin's `apply { }` (no receiver)
                           r"\.(?:put|set)\w*|(?<![\w.$])put(?:[A-Z]\w*)?|\.(?:save|store)|"
                           # a command-line option's default (argparse, optparse, click, Go's flag), a request's header
                           r"add_argument|add_option|\.option|flag\.String|[sS]etRequestHeader|[sS]etHeader|[aA]ddHeader|"
                           r"[hH]eader\.(?:Set|Add)|[hH]eaders\.(?:set|append))$")
# ${JWT_SECRET:-fallback} in compose files and shell: the default after ':-' or '-'.
_SHELL_DEFAULT = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?-([^}\s\"'$]{1,256})\}")
# requests' auth=('user', 'password')
_AUTH_TUPLE = re.compile(r"auth\s*=\s*\(\s*[\"'][^\"'\r\n]{1,64}[\"']\s*,\s*([\"'])([^\"'\r\n]{1,256})\1\s*\)")
# .NET appSettings <add key="SmtpPassword" value="..." />, <property name="password" value="..."/>
_APP_SETTING = re.compile(r"(?:key|name)=\"([\w.:-]{1,64})\"\s+value=\"([^\"\r\n]{1,512})\"")


# Ruby's block default: ENV.fetch("API_TOKEN") { "..." }
_BLOCK_DEFAULT = re.compile(r"ENV\.fetch\(\s*[\"']([A-Za-z_]\w*)[\"']\s*\)\s*\{\s*([\"'])([^\"'\r\n]{1,256})\2\s*\}")
# An environment lookup whose variable names nothing is named by what it is assigned to:
# Laravel's `'auth_token' => env('SERVICE_KEY', '...')`, `API_TOKEN = os.getenv("X", "...")`
_ENV_LOOKUP = re.compile(r"(?:" + _ENV_LOOKUPS + r")$")
_KEY_BEFORE = re.compile(r"[\"']?([A-Za-z_][\w.-]*)[\"']?\s*(?:=>|:|=)\s*[\w.$]*$")

# Scanned with the other detectors' gates (quarry.curation.pii.gates); most texts hold none.
GATES = ("${", "auth", 'value="', "||", "??", "?:", *_OR_GATES, "ENV.fetch")
register(GATES)


def find_env_defaults(text: str) -> Iterator[Finding]:
    present = present_literals(text)
    for gate, pattern, name_group, value_group in (("${", _SHELL_DEFAULT, 1, 2), ("auth", _AUTH_TUPLE, 0, 2),
                                                   ('value="', _APP_SETTING, 1, 2), ("ENV.fetch", _BLOCK_DEFAULT, 1, 3)):
        if gate not in present:
            continue
        for m in pattern.finditer(text):
            name = "password" if name_group == 0 else m.group(name_group)
            if _names_secret(name) and _accept(name, m.group(value_group)):
                yield Finding(m.start(value_group), m.end(value_group), _type_of(name), "env_default", 0.8)
    fallbacks = list(_JS_FALLBACK.finditer(text)) if not present.isdisjoint(("||", "??", "?:")) else []
    if not present.isdisjoint(_OR_GATES):
        starts = sorted(at for gate in _OR_GATES for at in occurrences(text, gate))
        fallbacks += (m for m in finditer_from(_OR_FALLBACK, text, starts) if not word_before(text, m.start()))
    for m in fallbacks:
        line_start = text.rfind("\n", max(0, m.start() - 200), m.start()) + 1
        before = text[max(line_start, m.start() - 200):m.start()].rstrip()
        env = _ENV_NAME.search(before) or (_LAST_NAME.search(before) if m.re is _JS_FALLBACK else None)
        if not env:
            continue
        target = _TARGET.match(before.lstrip().removeprefix("export ").removeprefix("const ")
                               .removeprefix("let ").removeprefix("var ").removeprefix("val "))
        name = env.group(1) if _names_secret(env.group(1)) else (target.group(1) if target else "")
        if _names_secret(name) and _accept(name, m.group(2)):
            yield Finding(m.start(2), m.end(2), _type_of(name), "env_default", 0.8)
    if "(" in text:
        for m in _DEFAULT_ARG.finditer(text):
            name, value = m.group(1), m.group(3)
            if not (_ENV_FUNCTION.search(text, max(0, m.start() - 16), m.start()) or name.isupper()):
                continue  # getenv("X", ...), define('DB_PASSWORD', ...); not any call with two strings
            if value.startswith("-"):
                continue  # add_argument("--token", "--auth-token"): an option's other name
            if not _names_secret(name) and _ENV_LOOKUP.search(text, max(0, m.start() - 16), m.start()):
                key = _KEY_BEFORE.search(line_prefix(text, m.start()))
                name = key.group(1) if key else name
            if _names_secret(name) and _accept(name, value):
                yield Finding(m.start(3), m.end(3), _type_of(name), "env_default", 0.8)


# ---------------------------------------------------------------------------------------------
# Nested configuration: JSON objects and YAML blocks

# Parents under which every value is a secret, and parents that make a bare 'key' / 'value' one.
_CONTAINERS = re.compile(r"(?i)^(?:secrets?|credentials?|passwords?|tokens?|api_?keys?|stringdata|auth_?tokens?|"
                         r"private_?keys?|keys)$")
_SECRET_PARENT = re.compile(r"(?i)jwt|secret|credential|auth|token|api|sign|encrypt|crypt|hmac|cipher|passw|"
                            r"smtp|mail|stripe|payment|redis|database|datasource|db|mysql|postgres|mongo|ldap|"
                            r"rabbit|amqp|aws|azure|gcp|s3|twilio|sendgrid|slack|github|oauth|session|cookie")
_BARE_CHILD = re.compile(r"(?i)^(?:key|value|auth|pass|secret|token|password|passphrase|pwd|api|signing_?key|"
                         r"secret_?key|client_?secret|private_?key|api_?key|access_?key|auth_?token|access_?token)$")
_JSON_OBJECT = re.compile(r"\"([\w.-]{1,64})\"\s*:\s*\{([^{}]{1,4000})\}")
_JSON_PAIR = re.compile(r"\"([\w.-]{1,64})\"\s*:\s*\"((?:[^\"\\\r\n]|\\.){1,512})\"")
_YAML_LINE = re.compile(r"([ \t]*)(-[ \t]+)?[\"']?([\w.-]{1,64})[\"']?[ \t]*:(?:[ \t]+(.*?))?[ \t]*")
# A line that opens a block ('jwt:', '"Jwt": {'): found from its end (a literal ':' the regex
# engine skips to), then its key is read back from the line's start. The character before the
# ':' must be able to end a key, which leaves out 'def f():' and 'if x[0]:' without Python work.
_BLOCK_END = re.compile(r":(?<=[\w.'\" \t-]:)[ \t]*\{?[ \t]*\r?\n")
_OPENER_KEY = re.compile(r"([ \t]*)(?:-[ \t]+)?[\"']?([\w.-]{1,64})[\"']?[ \t]*")
_K8S_ENV = re.compile(r"-[ \t]+name:[ \t]*[\"']?([\w.-]{1,64})[\"']?[ \t]*\r?\n[ \t]+value:[ \t]+(\S[^\r\n]*)")
_YAML_COMMENT = re.compile(r"[ \t]+#.*$")


def _nested_finding(parent: str, key: str, value: str, start: int) -> Finding | None:
    if describes_something_else(key):
        return None
    if not (_CONTAINERS.match(parent) or _BARE_CHILD.match(key) and _SECRET_PARENT.search(parent)):
        return None
    name = key if PASSWORD_WORD.search(key) else parent + "_" + key
    if not _accept(name, value) or value.lower() in DICTIONARY_PLACEHOLDERS:
        return None
    return Finding(start, start + len(value), _type_of(name), "nested_config", 0.75)


def find_nested(text: str) -> Iterator[Finding]:
    if ":" not in text:
        return
    if "{" in text:
        for obj in _JSON_OBJECT.finditer(text):
            for pair in _JSON_PAIR.finditer(obj.group(2)):
                finding = _nested_finding(obj.group(1), pair.group(1), pair.group(2), obj.start(2) + pair.start(2))
                if finding:
                    yield finding
    secret_kind = "kind: Secret" in text
    for block in _BLOCK_END.finditer(text):
        line_start = text.rfind("\n", 0, block.start()) + 1
        opener = _OPENER_KEY.fullmatch(text, line_start, block.start())
        if not opener:
            continue
        parent = opener.group(2)
        if parent in ("data", "stringData") and secret_kind:
            parent = "stringData"
        if _CONTAINERS.match(parent) or _SECRET_PARENT.search(parent):
            yield from _block_children(text, block.end() - 1, len(opener.group(1)), parent)
    if "value:" in text and "name:" in text:
        for m in _K8S_ENV.finditer(text):  # - name: DB_PASSWORD / value: ...
            value, start = _yaml_value(m.group(2).rstrip(), m.start(2))
            if _names_secret(m.group(1)) and _accept(m.group(1), value) and value.lower() not in DICTIONARY_PLACEHOLDERS:
                yield Finding(start, start + len(value), _type_of(m.group(1)), "nested_config", 0.75)


def _block_children(text: str, at: int, indent: int, parent: str) -> Iterator[Finding]:
    """The direct children 'key: value' of the block opened before ``at`` at ``indent``."""
    child_indent = None
    pos = at + 1
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        stripped = line.lstrip()
        line_indent = len(line) - len(stripped)
        if stripped and not stripped.startswith("#"):
            if line_indent <= indent:
                return
            child_indent = child_indent if child_indent is not None else line_indent
            m = _YAML_LINE.fullmatch(line.rstrip("\r")) if line_indent == child_indent else None
            if m and m.group(4):
                value, start = _yaml_value(m.group(4).rstrip(","), pos + m.start(4))
                finding = _nested_finding(parent, m.group(3), value, start) if value else None
                if finding:
                    yield finding
        pos = end + 1


def _yaml_value(raw: str, start: int) -> tuple[str, int]:
    """The scalar of a YAML line (quotes and a trailing comment removed) and where it starts."""
    if raw[:1] in "\"'`" and raw.endswith(raw[0]) and len(raw) >= 2:
        return raw[1:-1], start + 1
    comment = _YAML_COMMENT.search(raw)
    return (raw[:comment.start()] if comment else raw).rstrip(), start


# ---------------------------------------------------------------------------------------------
# Prose and comments: "the api secret is ...", "Admin password: ...", "use the token ... to log in"

_PROSE = re.compile(
    r"(?i)(password|passphrase|passwd|secret|token|(?:api|access|master|license|secret|private|signing)[ _-]?key)\b"
    r"(?:[ \t]+(?:for|of|on)[ \t]+[\w-]+(?:[ \t]+(?!is\b|was\b|to\b)[\w-]+){0,2})?"
    r"(?P<op>[ \t]+(?:is|was|will be|would be|remains|to|set to|is set to)[ \t]+|[ \t]*[:=][ \t]*|[ \t]+)"
    r"(?P<q>[`'\"]?)(?P<v>[^\s`'\"]{6,200})(?P=q)")
_PROSE_ROOTS = ("pass", "secret", "token", "key")
_KEY_QUALIFIER = re.compile(r"(?:api|access|master|license|secret|private|signing)[ _-]?$")
_PROSE_LEAD = re.compile(r"(?i)(?:(?:^|[ \t])(?:#+|//+|/\*+|\*|>|-|--)|\b(?:the|a|an|our|my|your|admin|default|root|"
                         r"api|client|shared|master|wifi|wi-fi|staging|production|prod|dev|test|database|db|new|"
                         r"temporary|initial|access|bot|service|app|use|with|and|note:?))[ \t]*$")
_TRAILING_PUNCTUATION = ".,;:)"
_LEAD_CHARS = 80  # how much of the line before the name is read (a minified file is one long line)


def find_prose(text: str) -> Iterator[Finding]:
    lower = lowered(text)
    starts = sorted(at for root in _PROSE_ROOTS for at in occurrences(lower, root))
    for at in starts:
        if lower.startswith("key", at):  # 'api key', 'private_key': the match starts at the qualifier
            qualifier = _KEY_QUALIFIER.search(lower, max(0, at - 9), at)
            if not qualifier:
                continue
            at = qualifier.start()
        if at and lower[at - 1].isalnum():
            continue
        m = _PROSE.match(text, at)
        if not m:
            continue
        line_start = text.rfind("\n", max(0, at - _LEAD_CHARS), at) + 1
        lead = text[max(line_start, at - _LEAD_CHARS):at]
        op = m.group("op").strip()
        at_line_start = lead.strip() == "" and at - line_start <= _LEAD_CHARS
        if at_line_start:  # 'Password: ...' opens a line of prose; 'token: Type' a line of code
            if not (text[at].isupper() and op in (":", "=")):
                continue
        elif not _PROSE_LEAD.search(lead):
            continue
        if op == "" and not m.group("q") and not re.search(r"(?i)\buse\b[^\n]*$", lead):
            continue  # "the password field": only "use the password X" states a value without a verb
        value, start = m.group("v"), m.start("v")
        if not m.group("q"):
            value = value.rstrip(_TRAILING_PUNCTUATION)
        if any(c in value for c in "()[]{}<>") or value.lower() in DICTIONARY_PLACEHOLDERS:
            continue
        if plausible_secret(value, min_length=8 if op in (":", "=") else 6) and typed_secret(value):
            yield Finding(start, start + len(value), _type_of(m.group(1)), "prose_secret", 0.7)

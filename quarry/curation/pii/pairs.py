"""A credential-like name paired with its value by position, with no assignment operator between
them, in the syntaxes that write it so:

- an EDN / Clojure keyword and its string (``{:db-password "..."}``), an Erlang / Elixir tuple
  (``{password, "..."}``), a Lisp definition (``(def ^:private api-token "...")``, ``(setq
  smtp-password "...")``), a C macro (``#define API_SECRET "..."``), a name then a string ending
  its line (a Groovy / Gradle call ``storePassword "..."``, a Ruby DSL's ``api_token '...'``,
  Tcl's ``set api_token "..."``), a placeholder's default (``${db.password:...}``);
- a Terraform variable whose label is the name and whose ``default`` is the value, an XML element
  named for a credential (``<apiToken>...</apiToken>``) or keyed by an attribute
  (``<entry key="jdbc.password">...</entry>``);
- a name and a value as two fields of one entry: ``{"name": "DB_PASSWORD", "value": "..."}``,
  ``<property><name>...</name><value>...</value></property>``, ``<setting name="..."><value>...``;
- a setter's or a builder's one string (``ds.setPassword("...")``, ``.apiKey("...")``), a
  credentials object's parts, the password last (``new BasicCredentials("user", "...")``), a
  login's user then password (``server.login(sender, "...")``) or a bot's one token;
- a command's words: ``npm config set //host/:_authToken ...``, ``git config github.token ...``,
  ``curl -H "X-Auth-Token: ..."``, csh's ``setenv API_TOKEN ...`` and fish's ``set -gx API_TOKEN ...``;
- nginx's ``fastcgi_param DB_PASSWORD ...;``, a string holding ``NAME=value`` whole
  (``withEnv(["DB_PASSWORD=..."])``);
- a Dockerfile's legacy ``ENV NAME value`` and Apache's ``SetEnv NAME value`` (the value is the
  rest of the line).

Each pair is judged as the assignment ``name = "value"`` (or the .env line ``NAME=value``) would
be (quarry.curation.pii.assignments): one judge for every syntax.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from quarry.curation.pii.findings import CREDENTIAL_ROOTS, finditer_from, finditer_in_lines, line_prefix, occurrences
from quarry.curation.pii.gates import present_literals, register

_STRING = r"\"(?P<value>[^\"\\\r\n]{1,512})\""
_QUOTED = r"(?P<q>[\"'])(?P<value>[^\"'\\\r\n]{1,512})(?P=q)"   # a string in either quote
# a command's last word, quoted or not: what a command ends with (`;`, `&`, `|`, a comment, the line's end) follows
_LAST_WORD = r"(?P<q>[\"']?)(?P<value>[^\s\"']{1,512})(?P=q)(?=[ \t]*(?:[;&|#]|\r?$))"

# a keyword starts with ':' where a symbol could not go on (not 'a:b', not '::'); then blanks and a string
_KEYWORD_PAIR = re.compile(r":(?<![\w:/.-]:)(?P<name>[\w.*+!?/-]{3,128})[ \t]+" + _STRING)
_LISP_DEFINITION = re.compile(r"\((?:def|defvar|defparameter|defconst|defconstant|defcustom|defonce|setq|setq-default"
                              r"|setf|set!|define)[ \t]+(?:\^\S+[ \t]+)*(?P<name>[^\s()\"']{3,128})[ \t]+" + _STRING)
# Docker's legacy ENV form and Apache's SetEnv, the instruction starting its line: the value is the rest
# of the line (judged as a .env line's)
_DOCKER_LEGACY_ENV = re.compile(r"(?m)(?:ENV|SetEnv)[ \t]+(?P<name>[A-Za-z_][\w.-]{0,64})[ \t]+(?P<value>[^\s=][^\r\n]*?)[ \t]*\r?$")
# csh's `setenv NAME value` and fish's `set -gx NAME value`: one shell word, quoted or not
_SHELL_SETENV = re.compile(r"(?:setenv|set(?:[ \t]+--?[A-Za-z]+)+)[ \t]+(?P<name>[A-Za-z_]\w{0,64})[ \t]+"
                           + _LAST_WORD, re.M)
# a shell's `read` of a here-string: `read -r DB_PASSWORD <<< "..."` (one shell word, quoted or not)
_HERE_STRING_READ = re.compile(r"read[ \t]+(?:-[A-Za-z]+[ \t]+)*(?P<name>[A-Za-z_]\w{0,64})[ \t]*<<<[ \t]*"
                               r"(?P<q>[\"']?)(?P<value>[^\s\"']{1,512})(?P=q)(?=[ \t]*(?:[;&|#)]|\r?$))", re.M)
# a C / C++ macro: `#define API_SECRET "..."`
_C_DEFINE = re.compile(r"#define[ \t]+(?P<name>\w{3,128})[ \t]+" + _STRING)
# the words a credential's name ends with, as code writes them (camelCase, snake_case, CONSTANT_CASE)
_SECRET_WORD = r"[Pp]assw(?:or)?d|PASSWORD|[Ss]ecret|SECRET|[Tt]oken|TOKEN"
# a name, blanks, then a string, its line's last: a Groovy / Gradle call without parentheses (`storePassword "..."`),
# a Ruby DSL (`api_token '...'`), Tcl's `set api_token "..."`, `gh secret set API_TOKEN "..."`
# (matched in the line of each occurrence of its literal, which stands after the name's start)
_NAME_THEN_STRING = re.compile(r"(?<![\w.$-])(?P<name>[A-Za-z_]\w{0,64}?(?:" + _SECRET_WORD + r"|[Pp]assphrase|[Kk]ey|KEY))"
                               r"[ \t]+" + _QUOTED + r"[ \t]*(?:[;}]|\r?$)", re.M)
# a setter or a builder's method given one string: `ds.setPassword("...")`, `.apiKey("...")`, `.withToken("...")`;
# a setter or a builder's method called without a receiver (in its own class, a Kotlin `apply { }`
# block): `setApiToken("...")`, `clientSecret("...")` (a function's name: lower case first, not a class's)
_SETTER_CALL = re.compile(r"(?:\.|(?<![\w.$])(?=[a-z_]))(?P<verb>(?:set|with)(?=[A-Z_]))?(?P<name>[A-Za-z_]\w{0,64})"
                          r"\([ \t]*" + _QUOTED + r"[ \t]*\)")
# what a setter's or builder's name ends with, and the verbs that make a method read one, not set it
_SETTER_NOUN = re.compile(r"(?:" + _SECRET_WORD + r"|[Pp]assphrase|[Aa]pi[Kk]ey|API_?KEY)$")
_READING_VERB = re.compile(r"(?:get|has|is|check|verify|validate|hash|read|fetch|load|find|lookup|compare|encode|encrypt|"
                           r"decrypt|match|parse|request|revoke|delete|remove|mask|prompt|print|log|send)(?![a-z])")
# a symbol naming the string after it, the call's or the line's last: Capistrano's `set :repo_password, "..."`,
# Elixir's `Application.put_env(:app, :api_key, "...")`, Ruby's `config.put(:api_token, "...")`
_SYMBOL_PAIR = re.compile(r"(?<![\w:]):(?P<name>[A-Za-z_]\w{2,64})[ \t]*,[ \t]*" + _QUOTED + r"[ \t]*(?:[);]|\r?$)", re.M)
# a credentials object or an authentication given its parts, the password last:
# `new BasicCredentials("user", "...")`, `HTTPBasicAuth('user', '...')`, sbt's `Credentials("realm", "host", "user", "...")`,
# Python keyring's `set_password("service", "user", "...")`
_CREDENTIALS_CALL = re.compile(r"(?P<call>\w*(?:Credentials?|Auth|Authentication)|set_password)\([ \t]*"
                               r"(?:(?P<q0>[\"'])[^\"'\\\r\n]{0,256}(?P=q0)[ \t]*,[ \t]*){1,3}"
                               + _QUOTED + r"[ \t]*\)")
# a login's password after its user, the call's last argument (smtplib's `server.login(sender, "...")`,
# `client.login("app", "...")`), or a token as its one argument (a chat bot's `client.login("...")`); an
# anonymous login's password is by custom an e-mail address, no secret
_LOGIN_CALL = re.compile(r"(?<![\w$])(?:login|logIn|log_in|signIn|sign_in|authenticate)\([ \t]*"
                         r"(?:(?![\"']?(?:anonymous|ftp)[\"'])"
                         r"(?P<user>(?P<q0>[\"'])[^\"'\\\r\n]{0,256}(?P=q0)|[A-Za-z_$][\w.$]{0,64})[ \t]*,[ \t]*)?"
                         + _QUOTED + r"[ \t]*\)")
# an XML element named for a credential, its text the value (read trimmed: '<apiToken>\n    ...\n</apiToken>')
_CREDENTIAL_ELEMENT = re.compile(
    r"<(?P<name>(?:[\w-]+:)?[\w.-]*"
    r"(?:" + _SECRET_WORD + r"|[Aa]pi[_-]?[Kk]ey|API_KEY|"
    r"(?i:access|private|auth|signing|encryption|master|consumer|app|client|account|storage)[_.-]?(?:[Kk]ey|KEY)(?![a-z]))"
    r"[\w.-]*)>\s*(?P<value>[^<\s]{4,256})\s*</(?P=name)>")
# a name and a value as two fields of one entry: a JSON object (`{"name": "DB_PASSWORD", "value": "..."}`,
# an ECS task's environment), XML elements (`<property><name>...</name><value>...</value></property>`,
# Hadoop's and Hive's configuration), a .NET setting (`<setting name="..." ...><value>...</value></setting>`)
_JSON_NAME_VALUE = re.compile(r"\"(?:[Nn]ame|[Kk]ey)\"[ \t]*:[ \t]*\"(?P<name>[^\"\\\r\n]{3,128})\"[ \t]*,\s{0,64}"
                              r"\"[Vv]alue\"[ \t]*:[ \t]*" + _STRING)
_XML_NAME_VALUE = re.compile(r"<(?P<field>name|key)>[ \t]*(?P<name>[^<\s]{3,128})[ \t]*</(?P=field)>\s{0,64}"
                             r"<value>\s*(?P<value>[^<\s]{1,512})\s*</value>")
_XML_SETTING = re.compile(r"<setting[ \t]+name=\"(?P<name>[^\"<>]{3,128})\"[^<>]*>\s{0,64}<value>\s*(?P<value>[^<\s]{1,512})\s*</value>")
# a tool's `config set NAME VALUE` (aws configure, npm, yarn, pnpm, git): one shell word, quoted or not
_CONFIG_SET = re.compile(r"config(?:ure)?[ \t]+set[ \t]+(?:--?[\w-]+[ \t]+)*(?P<name>[^\s=\"']{3,128})[ \t]+"
                         + _LAST_WORD, re.M)
# git's `config [--global] NAME VALUE` (`git config --global github.token ...`)
_GIT_CONFIG = re.compile(r"git[ \t]+config[ \t]+(?:--(?:global|local|system|worktree|add|replace-all)[ \t]+)*"
                         r"(?P<name>[\w.-]{3,128})[ \t]+" + _LAST_WORD, re.M)
# a placeholder's default (Spring's `${db.password:value}`; not a shell's `${VAR:-value}`, read elsewhere)
_PLACEHOLDER_DEFAULT = re.compile(r"\$\{(?P<name>[\w.-]{3,128}):(?P<value>[^-=+?}\s:][^}\s]{0,255})\}")
# an Erlang / Elixir config tuple: `{password, "..."}`, `{:api_key, "..."}`; a C / C# / Lua initializer's
# pair: `{ "api_token", "..." }`
_TUPLE = re.compile(r"\{[ \t]*(?::?(?P<bare_name>[a-z]\w{2,64})|\"(?P<name>[\w.-]{3,64})\")[ \t]*,[ \t]*" + _STRING + r"[ \t]*\}")
# PowerShell's `Set-Variable -Name apiToken -Value "..."`
_SET_VARIABLE = re.compile(r"Set-Variable[ \t]+(?:-Name[ \t]+)?(?P<name>[A-Za-z_]\w{2,64})[ \t]+(?:-Value[ \t]+)?(?P<q>[\"'])"
                           r"(?P<value>[^\"'\r\n]{1,512})(?P=q)")
# CMake's `set(API_TOKEN "...")`, an Erlang macro `-define(API_TOKEN, "...")`
_MACRO_SET = re.compile(r"(?:\bset|-define)\([ \t]*(?P<name>[A-Za-z_][\w.-]{2,64})(?:[ \t]*,[ \t]*|[ \t]+)" + _STRING + r"[ \t]*\)")
# an XML element whose key names its text: `<entry key="db.password">...</entry>`, `<add name="apiKey">...`
_KEYED_ELEMENT = re.compile(r"<(?P<tag>[\w:.-]+)[^<>]*?[ \t](?:key|name)=\"(?P<name>[^\"<>]{3,128})\"[^<>]*>[ \t]*"
                            r"(?P<value>[^<\s]{1,256})[ \t]*</(?P=tag)>")
# an HTTP header given to a client (curl -H, httpie, wget --header): its name names the value (after an
# auth scheme)
_HEADER_ARGUMENT = re.compile(r"(?:-H|--header)[ \t]+(?P<q>[\"'])(?P<name>[\w-]{2,64}):[ \t]*"
                              r"(?:(?:Bearer|Token|token|Bot|Basic|Key)[ \t]+)?(?P<value>[^\"'\s]{1,512})[ \t]*(?P=q)")
# nginx passing a variable to an application server: `fastcgi_param DB_PASSWORD value;`
_NGINX_PARAM = re.compile(r"(?:fastcgi|uwsgi|scgi)_param[ \t]+(?P<name>\w{3,128})[ \t]+(?P<q>[\"']?)(?P<value>[^\s\"']{1,512}?)"
                          r"(?P=q)[ \t]*;")
# a string holding one NAME=value whole: `withEnv(["DB_PASSWORD=..."])`, `env=['API_TOKEN=...']`
# (one pattern per quote: a pattern starting with a literal is skipped to, one starting with a class
# is tried at every position)
_STRING_HELD_PAIRS = tuple(re.compile(quote + r"(?P<name>[A-Za-z_][\w.-]{2,64})=(?P<value>[^\s\"'$%{}&;,]{1,256})" + quote)
                           for quote in "\"'")
# a Terraform / OpenTofu variable block: its label names the value its `default` holds (nested
# blocks, such as `validation { ... }`, before the default are not crossed)
_TERRAFORM_VARIABLE = re.compile(r"variable[ \t]+\"?(?P<name>[\w-]{3,128})\"?[ \t]*\{"
                                 r"[^{}]{0,4000}?(?<![\w-])default[ \t]*=[ \t]*" + _STRING)
# Every pattern matches a name whole, its root looked for after (a lazy name up to a root, behind a
# leading lookbehind, was tried at every position of the text).
_NAME_HAS_ROOT = re.compile("|".join(CREDENTIAL_ROOTS), re.I)

# Each pattern, and the literals a match of it starts with (most texts hold none): matched only where
# one occurs; a keyword's ':', a tuple's '{' and a string's quote are everywhere in code, so those
# patterns scan the text.
# In-line patterns: matched in the line of each occurrence of a literal they hold after their start.
_STARTS = ((_LISP_DEFINITION, ("(def", "(set")), (_DOCKER_LEGACY_ENV, ("ENV ", "SetEnv ")),
           (_TERRAFORM_VARIABLE, ("variable ",)), (_NGINX_PARAM, ("fastcgi_param", "uwsgi_param", "scgi_param")),
           (_C_DEFINE, ("#define ",)), (_PLACEHOLDER_DEFAULT, ("${",)), (_HEADER_ARGUMENT, ("-H ", "--header ")),
           (_SHELL_SETENV, ("setenv ", "set -")), (_HERE_STRING_READ, ("read ",)), (_MACRO_SET, ("set(", "-define(")),
           (_JSON_NAME_VALUE, ('"name"', '"Name"', '"key"', '"Key"')), (_XML_NAME_VALUE, ("<name>", "<key>")),
           (_XML_SETTING, ("<setting ",)), (_SET_VARIABLE, ("Set-Variable ",)))
# how a credential's name ends, in the literals that gate the patterns reading a name then its value
_NAME_ENDS = ("assword", "asswd", "ASSWORD", "assphrase", "oken", "OKEN", "ecret", "ECRET", "ey", "EY")
_IN_LINE = ((_NAME_THEN_STRING, tuple(end + blank + quote for end in _NAME_ENDS for blank in " \t" for quote in "\"'")),
            (_SETTER_CALL, tuple(end + call for end in _NAME_ENDS for call in ('("', "('"))),
            (_CREDENTIALS_CALL, ("Credentials(", "Credential(", "Auth(", "Authentication(", "set_password(")),
            (_LOGIN_CALL, ("login(", "logIn(", "log_in(", "signIn(", "sign_in(", "authenticate(")),
            (_SYMBOL_PAIR, tuple(end + comma + quote for end in _NAME_ENDS for comma in (", ", ",") for quote in "\"'")),
            (_CONFIG_SET, ("config set ", "configure set ")), (_GIT_CONFIG, ("git config ",)),
            (_KEYED_ELEMENT, (' key="', ' name="')))
_ELEMENT_ENDS = tuple(end + ">" for end in _NAME_ENDS)
# looked for in one scan with the other detectors' literals (quarry.curation.pii.gates)
register(literal for _, literals in (*_STARTS, *_IN_LINE, (None, _ELEMENT_ENDS)) for literal in literals)


@dataclass(frozen=True)
class Pair:
    name: str
    start: int     # the value's span in the text
    end: int
    whole_line: bool   # the value is the rest of its line (judged as a .env line's), else one literal


def positional_pairs(text: str) -> Iterator[Pair]:
    """Each credential-like name and its value written side by side."""
    found = [m for pattern in (_KEYWORD_PAIR, _TUPLE, *_STRING_HELD_PAIRS) for m in pattern.finditer(text)]
    present = present_literals(text)
    if not present.isdisjoint(_ELEMENT_ENDS):   # an element named for a credential closes with one of them
        found += _CREDENTIAL_ELEMENT.finditer(text)
    for pattern, literals in _STARTS:
        if present.isdisjoint(literals):
            continue
        starts = sorted(at for literal in literals for at in occurrences(text, literal))
        found += finditer_from(pattern, text, starts)
    for pattern, literals in _IN_LINE:
        if present.isdisjoint(literals):
            continue
        found += finditer_in_lines(pattern, text, literals)
    for m in found:
        whole_line = m.re is _DOCKER_LEGACY_ENV
        if whole_line and line_prefix(text, m.start()).strip():
            continue  # ENV / SetEnv not starting its line is not the instruction
        if m.re is _SETTER_CALL and not _sets_a_credential(m):
            continue
        if m.re is _LOGIN_CALL:   # one argument: a bot's token, which only a generated value is
            name = "password" if m.group("user") else "loginToken"
        else:
            name = "password" if m.re is _CREDENTIALS_CALL else m.group("name") or m.group("bare_name")
        if _NAME_HAS_ROOT.search(name):
            yield Pair(name, m.start("value"), m.end("value"), whole_line)


def _sets_a_credential(m: re.Match) -> bool:
    """`setPassword("...")`, `.apiKey("...")`: a method named for a credential that sets it, not one
    that reads, checks or hashes one (`getToken("github")`, `verifyPassword("...")`)."""
    name = m.group("name")
    return _SETTER_NOUN.search(name) is not None and (m.group("verb") is not None or _READING_VERB.match(name) is None)

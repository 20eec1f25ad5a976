"""Passwords on command lines: ``mysql -p<pw>``, ``--password <pw>``, ``sshpass -p``, ``redis-cli
-a``, ``mongosh -p``, ``sqlcmd -P``, ``ldapsearch -w``, ``xfreerdp /p:``, ``htpasswd -b``, ``docker
login -p`` (or a literal echoed into ``--password-stdin`` / ``gh auth login --with-token``), ``az
login -p``, ``smbclient -U user%<pw>``, ``echo user:<pw> | chpasswd``, ``PGPASSWORD=<pw> psql``,
``openssl -passout pass:<pw>``, ``keytool -storepass``, PowerShell's ``ConvertTo-SecureString "<pw>"
-AsPlainText``, passphrases (``ssh-keygen -N``, ``zip -P``, ``7z -p<pw>``, ``openssl enc -k``), ``vault
login <token>``, redis.conf's ``requirepass``, a ``.pgpass`` line, Oracle's logon (``sqlplus
user/<pw>@db``, ``jdbc:oracle:thin:user/<pw>@``); in SQL (``IDENTIFIED BY '<pw>'``, ``WITH PASSWORD
'<pw>'``); a login's password on one line (.netrc's ``machine H login U password <pw>``, fetchmail's
``user U password <pw>``) or a ``password <pw>`` directive on its own (.netrc, msmtprc).
``curl -u user:pw`` is a connection string (quarry.curation.pii.credentials). A value that is a
variable (``$PW``, ``"${PW}"``) or another flag (``psql --password -U app``: a prompt) is not a password.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from quarry.curation.pii import suppress
from quarry.curation.pii.findings import PASSWORD, Finding, finditer_in_lines
from quarry.curation.pii.gates import present_literals, register
from quarry.curation.pii.values import DICTIONARY_PLACEHOLDERS, describes_something_else, plausible_secret, typed_secret

_QUOTED_OR_BARE = r"(?:'(?P<sq>[^'\r\n]{1,256})'|\"(?P<dq>[^\"\r\n]{1,256})\"|(?P<bare>[^\s'\"`;|&]{1,256}))"
# Client programs whose '-p' glued to a value is the password (mysql -psecret), where '-p' alone prompts.
_MYSQL_P = re.compile(r"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]{0,200}?"
                      r"[ \t]-p(?=[^\s-])" + _QUOTED_OR_BARE)
# Flags that take a password as the next word or after '='.
# Any flag whose name ends in a password's name (--master-user-password), and the flags of
# credential tokens and secrets (--access-token, --client-secret; --change-token, --starting-token
# are not); the name is checked as a whole afterwards (--password-file names a file).
_LONG_FLAG = re.compile(r"--(?P<flag>[\w-]{0,40}?(?:password|passwd|pass)|(?:(?:access|auth|api|session|bearer|refresh|"
                        r"id|personal|bot|client|shared|app|webhook|signing)-)?(?:token|secret|api-key|apikey))"
                        r"(?:=|[ \t]+)" + _QUOTED_OR_BARE)
_SHORT_FLAG = re.compile(r"\b(?:sshpass|(?:redis-cli|mongo|mongosh)\b[^\n|;&]{0,200}?|(?:docker|podman|helm registry|az) login\b"
                         r"[^\n|;&]{0,200}?)[ \t]-[pa][ \t]+" + _QUOTED_OR_BARE)
# other clients' password flags: SQL Server's -P, OpenLDAP's -w, FreeRDP's /p:
_CLIENT_FLAG = re.compile(r"\b(?:(?:sqlcmd|bcp|osql|isql)\b[^\n|;&]{0,200}?[ \t]-P[ \t]*"
                          r"|ldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn|exop)\b[^\n|;&]{0,200}?[ \t]-w[ \t]+"
                          r"|(?:xfreerdp|wlfreerdp|sdl-freerdp)\b[^\n|;&]{0,200}?[ \t]/p:)" + _QUOTED_OR_BARE)
# archivers' and key tools' passphrase flags: ssh-keygen -N / -P, zip / unzip -P, openssl enc -k, 7z -p<pw> (glued)
_PASSPHRASE_FLAG = re.compile(r"\b(?:ssh-keygen\b[^\n|;&]{0,200}?[ \t]-[NP][ \t]+|(?:zip|unzip)\b[^\n|;&]{0,200}?[ \t]-P[ \t]+"
                              r"|openssl[ \t]+(?:enc|aes-\d+-\w+|des3)\b[^\n|;&]{0,200}?[ \t]-k[ \t]+"
                              r"|7za?[ \t]+[axeu]\b[^\n|;&]{0,200}?[ \t]-p(?=[^\s-]))" + _QUOTED_OR_BARE)
# a token given as a command's one argument: `vault login <token>`
_VAULT_LOGIN = re.compile(r"\bvault[ \t]+login[ \t]+(?:-[\w-]+(?:=\S+)?[ \t]+)*(?!-|[\w.-]+=)" + _QUOTED_OR_BARE + r"[ \t]*\r?$", re.M)
# htpasswd -b FILE USER PASSWORD (-b: the password on the command line)
_HTPASSWD = re.compile(r"\bhtpasswd(?:[ \t]+-[A-Za-z]+)*?[ \t]+-[A-Za-z]*b[A-Za-z]*(?:[ \t]+-[A-Za-z]+)*[ \t]+[^\s-]\S*[ \t]+[^\s-]\S*[ \t]+"
                       + _QUOTED_OR_BARE)
# user:password given whole: echoed into chpasswd, smbclient's -U user%password
_CHPASSWD = re.compile(r"\becho[ \t]+(?:-e[ \t]+)?(?P<q>['\"]?)[\w.@-]+:(?P<bare>[^\s'\"|;&]{1,256})(?P=q)"
                       r"[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd\b")
_SMB_USER = re.compile(r"\b(?:smbclient|rpcclient|smbcacls)\b[^\n|;&]{0,200}?[ \t](?:-U|--user(?:=|[ \t]+))[ \t]*"
                       r"(?P<q>['\"]?)[^\s'\"%]+%(?P<bare>[^\s'\"]{1,256})(?P=q)")
_OPENSSL_PASS = re.compile(r"-(?:passout|passin|pass|password)[ \t]+(?:pass|env-no):" + _QUOTED_OR_BARE)
_JAVA_STOREPASS = re.compile(r"-(?:storepass|keypass|srcstorepass|deststorepass|srckeypass|destkeypass)[ \t]+"
                             + _QUOTED_OR_BARE)
# SQL: what a user is IDENTIFIED BY is a password whatever its shape; `PASSWORD '...'` is judged (prose writes it too)
_SQL_IDENTIFIED_BY = re.compile(r"\b(?:IDENTIFIED|identified)[ \t]+(?:BY|by)[ \t]+'(?P<sq>[^'\r\n]{4,128})'")
_SQL_PASSWORD = re.compile(r"\b(?:PASSWORD|password)[ \t]+'(?P<sq>[^'\r\n]{4,128})'")
# a login then its password on a config line: .netrc's `machine HOST login USER password ...`, fetchmail's
# `poll HOST ... user USER password ...` (the line starts with a directive, not with a comment or prose;
# an anonymous login's password is by custom an e-mail address, no secret)
_LOGIN_PASSWORD = re.compile(r"(?m)^[ \t]*(?:(?:machine|default|poll|skip|account)\b[^\r\n]*?\b)?"
                             r"(?:login|user|username)[ \t]+(?!anonymous\b|ftp\b)[^\s,;]+[ \t]+(?:password|passwd)[ \t]+"
                             + _QUOTED_OR_BARE)
# a config directive alone on its line, its one argument the password: a .netrc written one token per
# line, msmtp's `password ...`
_PASSWORD_DIRECTIVE = re.compile(r"(?m)^[ \t]*(?:password|passwd|passphrase)[ \t]+" + _QUOTED_OR_BARE + r"[ \t]*\r?$")
# the directives around one that make a file such a config (a line 'password protected' in prose is not)
_LOGIN_DIRECTIVES = re.compile(r"(?m)^[ \t]*(?:machine|login|user|username|host|account|default|port|auth)(?:[ \t]+[^\s=:]|[ \t]*\r?$)")
# PowerShell's plain text made a SecureString: the -String argument (named, positional after the switches,
# or piped in) is the password; without -AsPlainText the argument is already encrypted.
_SECURE_STRING = re.compile(r"(?i:ConvertTo-SecureString)(?P<switches>(?:[ \t]+-(?i:AsPlainText|Force)\b)*)[ \t]+"
                            r"(?:-(?i:String)[ \t]+)?" + _QUOTED_OR_BARE + r"(?P<after>[^\r\n|;]*)")
_PIPED_SECURE_STRING = re.compile(r"(?:'(?P<sq>[^'\r\n]{1,256})'|\"(?P<dq>[^\"\r\n]{1,256})\")[ \t]*\|[ \t]*"
                                  r"(?i:ConvertTo-SecureString)\b(?P<after>[^\r\n|;]*)")
# VAR=value before a command on the same line: PGPASSWORD=... psql, MYSQL_PWD=... mysql.
_ENV_PREFIX = re.compile(r"[A-Z](?<!\w[A-Z])[A-Z0-9_]*(?:PASSWORD|PASS|PWD|_TOKEN|_SECRET|_API_KEY|_AUTH)=" + _QUOTED_OR_BARE
                         + r"(?=[ \t]+[\w./-])")
_ENV_PREFIX_GATE = ("PASSWORD=", "PASS=", "PWD=", "_TOKEN=", "_SECRET=", "_API_KEY=", "_AUTH=")
# a literal echoed into a command that reads its password from standard input (sudo's -S among its flags)
_PIPED_PASSWORD = re.compile(r"\becho[ \t]+(?:-n[ \t]+)?" + _QUOTED_OR_BARE
                             + r"[ \t]*\|[^\n|;&]{0,200}?(?:--password-stdin|--with-token|\bsudo[ \t]+-[A-Za-z]*S)\b")
# a PostgreSQL password file's line (~/.pgpass): hostname:port:database:username:password, * for any,
# ':' and '\' escaped with a backslash; read on the lines holding the ports its deployments document
# (PostgreSQL 5432 and the 543x of further clusters, PgBouncer 6432, managed services' 25060) or `*`
_PGPASS = re.compile(r"(?m)^[ \t]*(?:[A-Za-z0-9_.-]+|\*):(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:(?P<bare>(?:[^\s:\\]|\\.){1,256})[ \t]*\r?$")
# Oracle's logon, user/password@connect_identifier (a password holding '@' quoted): its command-line
# tools' and the JDBC thin and OCI URLs'
_ORACLE_LOGON = re.compile(r"\b(?:(?:sqlplus|sqlldr|expdp|impdp|exp|imp|rman|dgmgrl)(?:[ \t]+-\w+)*[ \t]+['\"]?"
                           r"|jdbc:oracle:(?:thin|oci8?):)[A-Za-z_][\w$#]*/"
                           r"(?:\"(?P<dq>[^\"\r\n]{1,128})\"|(?P<bare>[^\s/@'\"]{1,128}))@")
# redis.conf's directives whose one argument is a password
_REDIS_AUTH = re.compile(r"(?m)^[ \t]*(?:requirepass|masterauth)[ \t]+"
                         r"(?:'(?P<sq>[^'\r\n]{1,256})'|\"(?P<dq>[^\"\r\n]{1,256})\"|(?P<bare>\S{1,256}))[ \t]*\r?$")
_SECURE_STRING_GATE = ("ConvertTo-SecureString", "convertto-securestring")
# Each pattern runs only where its literal occurs: most source files hold none of them.
# (_LONG_FLAG starts with the literal '--' the engine itself skips to.)
_PATTERNS = ((_MYSQL_P, ("mysql", "mariadb")), (_LONG_FLAG, ()),
             (_SHORT_FLAG, ("sshpass", "redis-cli", "mongo", " login")), (_ENV_PREFIX, _ENV_PREFIX_GATE),
             (_CLIENT_FLAG, ("sqlcmd", "bcp ", "osql", "isql", "ldap", "freerdp")), (_HTPASSWD, ("htpasswd",)),
             (_CHPASSWD, ("chpasswd",)), (_SMB_USER, ("smbclient", "rpcclient", "smbcacls")),
             (_OPENSSL_PASS, (" pass:", " env-no:")), (_JAVA_STOREPASS, ("storepass ", "keypass ")),
             (_SQL_IDENTIFIED_BY, ("IDENTIFIED BY", "identified by")), (_SQL_PASSWORD, ("PASSWORD '", "password '")),
             (_LOGIN_PASSWORD, (" password ", " passwd ")), (_PASSWORD_DIRECTIVE, ("password ", "passwd ", "passphrase ")),
             (_SECURE_STRING, _SECURE_STRING_GATE), (_PIPED_SECURE_STRING, _SECURE_STRING_GATE),
             (_REDIS_AUTH, ("requirepass ", "masterauth ")), (_PIPED_PASSWORD, ("--password-stdin", "--with-token", "sudo -")),
             (_PGPASS, (":543", ":6432:", ":25060:", ":*:")),
             (_ORACLE_LOGON, ("sqlplus", "sqlldr", "expdp", "impdp", "exp ", "imp ", "rman ", "dgmgrl", "jdbc:oracle:")),
             (_PASSPHRASE_FLAG, ("ssh-keygen", "zip ", "openssl ", "7z ", "7za ")), (_VAULT_LOGIN, ("vault login",)))


def _value(m: re.Match) -> tuple[int, int, str] | None:
    """(start, end, value) from the pattern's groups (sq, dq, bare: those it has); a bare value starting
    with '-' is the next flag (a prompt), a quoted one is not."""
    groups = m.groupdict()
    for group in ("sq", "dq", "bare"):
        value = groups.get(group)
        if value:
            return None if group == "bare" and value.startswith("-") else (m.start(group), m.end(group), value)
    return None


# A value naming what goes there ('OldPassword', 'kmsPswd', 'my-token') is a placeholder.
_NAMES_ITSELF = re.compile(r"(?i)passw|pswd|passphrase|secret|token")


def _password_ok(value: str) -> bool:
    if suppress.is_placeholder(value) or _NAMES_ITSELF.search(value) and not any(c.isdigit() for c in value):
        return False
    return (not value.startswith(("$", "%", "`")) and value.lower() not in DICTIONARY_PLACEHOLDERS
            and plausible_secret(value, min_length=4) or _looks_like_password(value))


def _looks_like_password(value: str) -> bool:
    """plausible_secret rejects plain words; a password flag's plain word is still a password."""
    return (len(value) >= 6 and value.isalnum()
            and value.lower() not in DICTIONARY_PLACEHOLDERS and not value.isupper())


# what these take is a password, whatever its shape
_ONLY_PASSWORDS = {_SHORT_FLAG, _CLIENT_FLAG, _OPENSSL_PASS, _JAVA_STOREPASS, _HTPASSWD, _CHPASSWD, _SMB_USER,
                   _SECURE_STRING, _PIPED_SECURE_STRING, _REDIS_AUTH, _PIPED_PASSWORD, _LOGIN_PASSWORD,
                   _PASSWORD_DIRECTIVE, _SQL_IDENTIFIED_BY, _PASSPHRASE_FLAG, _VAULT_LOGIN, _PGPASS, _ORACLE_LOGON}
GATES = tuple(g for _, gate in _PATTERNS for g in gate)  # scanned with the other detectors' (quarry.curation.pii.gates)
register(GATES)


def find_command_passwords(text: str) -> Iterator[Finding]:
    present = present_literals(text)
    for pattern, gate in _PATTERNS:
        if gate and present.isdisjoint(gate):
            continue
        for m in _matches(pattern, gate, text):
            found = _value(m)
            if pattern is _LONG_FLAG and describes_something_else(m.group("flag")):
                continue
            if pattern in (_SECURE_STRING, _PIPED_SECURE_STRING) and not _plain_text(m):
                continue
            if pattern in (_PASSWORD_DIRECTIVE, _LOGIN_PASSWORD) and found and not _directive_password(text, m, found[2]):
                continue
            if found and (_password_ok(found[2]) or pattern in _ONLY_PASSWORDS and _any_password(found[2])) \
                    and not _template(found[2]):
                yield Finding(found[0], found[1], PASSWORD, "command_line", 0.8)


# patterns whose gate is a common word ('password ') or a line's middle: matched in the lines holding it, not over the text
_BY_LINE = {_LOGIN_PASSWORD, _PASSWORD_DIRECTIVE, _PGPASS}


def _matches(pattern: re.Pattern, gate: tuple[str, ...], text: str) -> Iterator[re.Match]:
    return finditer_in_lines(pattern, text, gate) if pattern in _BY_LINE else pattern.finditer(text)


def _directive_password(text: str, m: re.Match, value: str) -> bool:
    """A value that looks typed as a password, or one among a login's directives (.netrc, msmtprc):
    prose says 'the username and password portion' too."""
    return typed_secret(value, literal=True) or _LOGIN_DIRECTIVES.search(text, max(0, m.start() - 400), m.start()) is not None


def _any_password(value: str) -> bool:
    """What a command takes only as a password is one whatever its shape ('river.falcon42')."""
    return (len(value) >= 6 and not any(c.isspace() for c in value) and not suppress.is_placeholder(value)
            and value.lower() not in DICTIONARY_PLACEHOLDERS)


def _plain_text(m: re.Match) -> bool:
    """The SecureString is made from plain text (-AsPlainText, before or after the value)."""
    switches = m.groupdict().get("switches") or ""
    return "-asplaintext" in (switches + m.group("after")).lower()


def _template(value: str) -> bool:
    return value.startswith(("$", "<")) or "{{" in value

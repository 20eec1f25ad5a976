"""Is a dotted number a version rather than an address? Decided by where it stands, not by its
shape: '4.20.1.99' is a valid public IPv4 address and a common four-part version alike.

Version contexts: a version word or a requirement operator before it (v, version, release,
==, >=, __version__ = ...), a package before it (lodash@..., Chrome/..., group:artifact:...),
a pre-release or build suffix after it (-rc1, +build.5, -1 of a Debian revision), a changelog
heading (## 4.20.1.99, [4.20.1.99], a date on the line), a semantic version on the same line.
A host after ``user@`` on an ssh/scp/rsync/sftp command line is an address whatever it looks like.
"""

from __future__ import annotations

import re

from quarry.curation.pii.suppress import WELL_KNOWN_IPS

_PLACEHOLDER_IPS = frozenset({"1.2.3.4", "4.3.2.1", "5.6.7.8", "1.2.3.5", "9.8.7.6"})
_VERSION_CONTEXT = re.compile(
    r"(?i)(?:\b(?:v|ver|version|versions|release[sd]?|rev|revision|build|tag|tags|sections?|sec|chapters?|rfc|"
    r"firmware|fw|kernel|sdk|api level|bump(?:ed|s)?|upgraded?|downgraded?|(?:updated?|upgrades?) to|since|"
    r"(?:added|changed|fixed|new|deprecated|removed|introduced) in)\.?:?|==|>=|<=|~=|!=|\^|~|\u00a7)\s*['\"(\[`]?$"
)
# A semantic version on the same line ('upgraded from 2.31.0 to 2.31.0.4', '* 7.1.2.9 - 7.1.3')
# makes a four-part number a version too; a dotted package name as its key ('"Microsoft.Extensions.Http":
# "6.23.26.219"') as well.
_SEMVER = re.compile(r"(?<![\d.])v?\d{1,4}\.\d{1,4}\.\d{1,4}(?![\d.]|\.\d)")
_PACKAGE_KEY = re.compile(r"[\"'][A-Za-z@][\w@/-]*(?:\.[A-Za-z][\w-]*)+[\"']\s*[:=]\s*[\"']?$")
# What only packages stand before: 'Chrome/', 'com.acme:widgets:', 'registry/app:'; 'lodash@' on a
# package manager's line ('user@' elsewhere is a login or a mailbox, and its host an address).
_PACKAGE_BEFORE = re.compile(r"(?:(?<![/\w])[A-Za-z][\w.-]*/|[\w.-]+:[\w.-]+:|[\w.-]+/[\w.-]+:)$")
_PACKAGE_AT = re.compile(r"\b(?:npm|npx|yarn|pnpm|bun|deno|install|add|upgrade)\b[^\n]*[\s\"'][@\w./-]*@$")
# What only versions have after them: a pre-release, a build or a packaging revision.
_VERSION_SUFFIX = re.compile(r"(?i)(?:[-~.]?(?:rc|alpha|beta|dev|pre|post|snapshot|final|ga|release|b|a)\d*"
                             r"|[-~]\d+(?![\d.]))(?![\w])|\+[0-9A-Za-z]|\.v\d")
# Words that make a whole line about releases: 'Bump foo from ... to ...', 'Changes in ...'.
_RELEASE_LINE = re.compile(r"(?i)\b(?:bump(?:ed|s|ing)?|upgrad(?:e|ed|es|ing)|downgrad(?:e|ed|es|ing)|"
                           r"updat(?:e|ed|es|ing)[ \t]+(?:\S+[ \t]+)?(?:to|from)|changelog|changes[ \t]+in|what's[ \t]+new|"
                           r"release[sd]?|released)\b")
_HEADING_LEAD = re.compile(r"[ \t]*(?:#+|=+|\*+|-|\+)?[ \t]*(?:\[|v|version[ \t]+|release[ \t]+)?$", re.IGNORECASE)
_HEADING_TAIL = re.compile(r"\]|[ \t]*(?:\(|[-\u2013\u2014/:][ \t]|\r?\n|$)")
_DATE = re.compile(r"\b(?:19|20)\d\d[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01])\b|"
                   r"(?i:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?[ \t]+\d{1,2},?[ \t]+(?:19|20)\d\d)")
_UNDERLINE = re.compile(r"\r?\n[ \t]*(?:-{3,}|={3,}|~{3,})[ \t]*(?:\r?\n|$)")
# What names an address: a variable ('sock.ip', 'peer_host') or a word of the text around.
_ADDRESS_NAMES = r"ips?|hosts?|servers?|address(?:es)?|addr|resolvers?|nameservers?|peers?|gateway|proxy"
# Words that say the text around is about hosts: 'setServers(['4.4.4.4'])' holds an address,
# small parts or not.
_ADDRESS_WORD = re.compile(rf"(?i)(?:\b|_)(?:{_ADDRESS_NAMES}|dns|ping|listen|bind)(?:\b|_)|[a-z](?:Servers?|Hosts?|Address)\b")
_ADDRESS_NEAR = 240
# An address's name compared with the number: 'sock.ip == "3.3.3.3"', 'host != ...' compare
# addresses; the same operators after a package pin versions ('requests==2.31.0.1').
_ADDRESS_COMPARED = re.compile(rf"(?i)(?:\b|_)(?:{_ADDRESS_NAMES})\s*(?:===?|!==?)\s*['\"]?$")
# ssh root@..., scp f deploy@...:/srv, rsync -a ./ u@...:, ProxyJump u@...: the host of a login.
_REMOTE_COMMAND = re.compile(r"(?i)\b(?:ssh|scp|sftp|rsync|mosh|ssh-copy-id|sshpass|autossh|proxyjump|sshfs)\b")


def remote_login_host(text: str, start: int) -> bool:
    """Is the address at ``start`` the host of ``user@host`` on a remote-login command line?"""
    if start == 0 or text[start - 1] != "@":
        return False
    return _REMOTE_COMMAND.search(_line_before(text, start)) is not None


def looks_like_version(text: str, start: int, end: int) -> bool:
    """'1.2.3.4' in a version context (module doc), with zero-padded parts, with only small parts
    (section 7.2.3.1) or an OID prefix (1.3.6.1) is a version or a number, not an address."""
    candidate = text[start:end]
    parts = candidate.split(".")
    if any(len(part) > 1 and part[0] == "0" for part in parts) or candidate.startswith(("1.3.", "2.5.", "1.2.840")):
        return True
    if candidate in _PLACEHOLDER_IPS:
        return True
    if remote_login_host(text, start) or _ADDRESS_COMPARED.search(text, max(0, start - 48), start):
        return False
    before = _line_before(text, start)
    if (len(parts) == 4 and all(p.isdigit() and int(p) < 16 for p in parts) and candidate not in WELL_KNOWN_IPS
            and not _near_address_word(text, start, end)):
        return True  # 2.1.1.0, 7.9.2.2: versions and section numbers, not hosts
    if _PACKAGE_BEFORE.search(before[-120:]) or _PACKAGE_AT.search(before[-200:]) or _VERSION_SUFFIX.match(text, end):
        return True
    return (after_version_word(text, start) or _heading(text, start, end)
            or _SEMVER.search(_line_of(text, start)) is not None)


def _near_address_word(text: str, start: int, end: int) -> bool:
    """An address word on the line, or near a quoted literal (a test's ("2.2.2.2", 1) beside sock.ip)."""
    if _ADDRESS_WORD.search(_line_of(text, start)):
        return True
    quoted = text[start - 1:start] in ("'", '"') and text[end:end + 1] == text[start - 1]
    return quoted and _ADDRESS_WORD.search(text, max(0, start - _ADDRESS_NEAR), end + _ADDRESS_NEAR) is not None


def _heading(text: str, start: int, end: int) -> bool:
    """A changelog heading names a release: '## 4.20.1.99', '[4.20.1.99] - ...', '4.20.1.99 (2024-05-01)',
    a date on the line, or an underline below it."""
    line = _line_of(text, start)
    if _DATE.search(line):
        return True
    if not (_HEADING_LEAD.fullmatch(_line_before(text, start)) and _HEADING_TAIL.match(text, end)):
        return False
    lead = _line_before(text, start).strip()
    line_end = text.find("\n", end)
    return (lead[:1] in ("#", "=", "[", "*") or lead.lower().startswith(("v", "version", "release"))
            or _UNDERLINE.match(text, len(text) if line_end < 0 else line_end) is not None)


def _line_before(text: str, at: int) -> str:
    return text[text.rfind("\n", max(0, at - 400), at) + 1:at]


def _line_of(text: str, at: int) -> str:
    end = text.find("\n", at)
    return text[text.rfind("\n", 0, at) + 1:len(text) if end < 0 else end]


def after_version_word(text: str, start: int) -> bool:
    """Right after 'v', 'version', '==', '^'..., or on a line that talks about a version or
    after a package name's key."""
    if _VERSION_CONTEXT.search(text[max(0, start - 24):start]):
        return True
    before = _line_before(text, start)
    return ("version" in before.lower() or _PACKAGE_KEY.search(before[-120:]) is not None
            or _RELEASE_LINE.search(before) is not None)

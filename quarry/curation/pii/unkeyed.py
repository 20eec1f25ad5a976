"""A credential pasted in prose with no key name next to it ("Here is my API token, please don't
share: <token>", "Log in with <token> as the password", "my token below:" then the token alone
on the next line): a generated-looking token on a line of prose that speaks of credentials.

The token must look generated (entropy plus a mix of character classes: quarry.curation.pii.values), so
words, identifiers, versions, digests and placeholders near the same words stay.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from quarry.curation.pii import suppress
from quarry.curation.pii.findings import KEY, PASSWORD, Finding, lowered, occurrences
from quarry.curation.pii.values import looks_generated

# A word of prose, not part of a name: 'forgot-password', 'work_unit_token', 'auth.py' are names.
_CREDENTIAL_WORD = re.compile(
    r"(?i)(?<![\w.-])(?:tokens?|passwords?|passwd|passphrase|secrets?|api[ _-]?keys?|apikey|access[ _-]?keys?|credentials?|"
    r"creds|log(?:ged|ging)?[ -]?in|sign(?:ed|ing)?[ -]?in|authenticat\w*|bearer)(?![\w-]|\.\w)")
_PASSWORD_WORD = re.compile(r"(?i)pass|log|sign")
# A run of token characters between blanks, quotes, brackets or a trailing full stop.
_TOKEN = re.compile(r"(?<![^\s\"'`(\[<,:/])[A-Za-z0-9][A-Za-z0-9_\-+/=.~!#$%^&*]{11,199}")
_WORD = re.compile(r"[A-Za-z]{2,}")
_TRAILING = ".,;:!)"
_MIN_WORDS = 3  # a line of prose: words besides the token
_NEAR = 80  # characters between the credential word and the token on one line
_WORD_REACH = 200  # the longest credential word looked back over ('authenticationTokenProvider...')
_LINE_CONTEXT = 1000  # on a longer line, the characters each side of a token its line is judged by
# Literals every credential word holds, lowered, each looked for with str.find (fewer, shorter
# roots scan faster than many exact ones; a hit is confirmed by the word regex around it).
_ROOTS = ("token", "pass", "secret", "key", "cred", "log", "sign", "auth", "bearer")


def _line_at(text: str, at: int) -> tuple[int, int]:
    end = text.find("\n", at)
    return text.rfind("\n", 0, at) + 1, len(text) if end < 0 else end


def _word_lines(text: str, lower: str) -> list[int]:
    """Starts of the lines holding a credential word, found from each root with str.find (a
    case-insensitive alternation run over the whole text would stop at every letter)."""
    starts = set()
    for root in _ROOTS:
        for at in occurrences(lower, root):
            if not _CREDENTIAL_WORD.search(text, max(0, at - 8), at + len(root) + 16):
                continue  # most occurrences ('keys', 'logging'): no word, whatever the line's bounds
            line_start, line_end = _line_at(text, at)
            if line_start not in starts and _CREDENTIAL_WORD.search(text, max(line_start, at - 8),
                                                                    min(line_end, at + len(root) + 16)):
                starts.add(line_start)
    return sorted(starts)


# What code and command lines have and prose does not: assignments, calls, key-value pairs, braces.
_CODE = re.compile(r"=|[\w)\]]\(|[\"']\s*:|[{};]\s*$|^\s*(?:def|class|return|import|from|function|const|let|var|if|elif)\b")
_FLAG_BEFORE = re.compile(r"(?:^|\s)--?[\w-]+[ \t=]+[\"']?$")
_RUN = re.compile(r"[A-Za-z0-9]+")
_MIN_LENGTH = 12


def _prose(line: str, token: str) -> bool:
    rest = line.replace(token, " ")
    return len(_WORD.findall(rest)) >= _MIN_WORDS and not _CODE.search(rest)


def _credential_token(token: str) -> bool:
    """Generated, not a name: letters and digits in one run of at least 12 characters
    ('MyTestSecret-a1b2c3', 'StreamEndToken', 'crypto.pbkdf2Sync' are names)."""
    if len(token) < _MIN_LENGTH or "://" in token or "@" in token or token.count("/") >= 2 or token.count(".") >= 1:
        return False  # a URL, an address, a path, a dotted name or a version
    run = max(_RUN.findall(token), key=len, default="")
    classes = any(c.isdigit() for c in run) + any(c.islower() for c in run) + any(c.isupper() for c in run)
    if len(run) < 12 or not any(c.isdigit() for c in run) or classes < (2 if len(token) >= 16 else 3):
        return False
    return looks_generated(token) and not suppress.is_lookalike_secret(token)


def find_unkeyed(text: str) -> Iterator[Finding]:
    lower = lowered(text)
    for line_start in _word_lines(text, lower):
        line_start, line_end = _line_at(text, line_start)
        line = text[line_start:line_end]
        words = list(_CREDENTIAL_WORD.finditer(line))
        if not words:
            continue  # the root's window cut a longer word ('tokenizer')
        word_starts = [w.start() for w in words]
        for m in _TOKEN.finditer(line):
            token = m.group().rstrip(_TRAILING)
            nearby = words[bisect.bisect_left(word_starts, m.start() - _NEAR - _WORD_REACH):
                           bisect.bisect_right(word_starts, m.start() + _NEAR)]
            near = [w for w in nearby if abs((w.start() if w.start() > m.start() else w.end()) - m.start()) <= _NEAR
                    and not (m.start() <= w.start() < m.start() + len(token))]
            if not near:
                continue
            lo, context = _context(line, m)
            if (_prose(context, token) and _credential_token(token)
                    and not _FLAG_BEFORE.search(context, 0, m.start() - lo)):
                yield Finding(line_start + m.start(), line_start + m.start() + len(token), _type(near[0]), "unkeyed",
                              0.65)
        if line.rstrip().endswith(":") or "below" in line.lower() or "here" in line.lower():
            yield from _token_below(text, line_end, words[0])


def _context(line: str, token: re.Match) -> tuple[int, str]:
    """Where the text a token is judged by starts in its line, and that text: the line, or on a line
    of thousands of characters (minified, a paragraph without breaks) _LINE_CONTEXT characters each
    side of the token (judging all of it for each token was quadratic)."""
    if len(line) <= 2 * _LINE_CONTEXT:
        return 0, line
    lo = max(0, token.start() - _LINE_CONTEXT)
    return lo, line[lo:token.end() + _LINE_CONTEXT]


def _token_below(text: str, after: int, word: re.Match) -> Iterator[Finding]:
    """'my token below:' / 'the password:' then the token alone on the next line that is not blank."""
    next_start = after + 1
    while next_start < len(text) and text[next_start] in "\r\n \t":
        next_start += 1
    if next_start >= len(text):
        return
    line_start, line_end = _line_at(text, next_start)
    alone = text[line_start:line_end].strip()
    token = alone.strip("`'\"").rstrip(_TRAILING)
    if alone and " " not in alone and not _CREDENTIAL_WORD.search(alone) and _credential_token(token):
        start = text.index(token, line_start)
        yield Finding(start, start + len(token), _type(word), "unkeyed", 0.65)


def _type(word: re.Match) -> str:
    return PASSWORD if _PASSWORD_WORD.search(word.group()) else KEY

"""Credentials with a known shape: provider tokens, private key blocks, URL passwords.

Each pattern starts with a literal, so the regex engine skips straight to candidates (a leading
lookbehind would stop that skipping; the left word boundary is checked in Python instead).
Candidates are then validated: entropy, placeholders, the body of a key block.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from quarry.curation.pii import suppress
from quarry.curation.pii.findings import KEY, PASSWORD, Finding, word_before
from quarry.curation.pii.gates import present_literals, register


@dataclass(frozen=True)
class Shape:
    kind: str
    pattern: re.Pattern
    gate: tuple[str, ...] = ()  # literals one of which must occur, where the pattern's own is short
    min_entropy: float = 3.0  # of the whole token: rejects xxxx and 0000 placeholders
    confidence: float = 0.95


def _shape(kind: str, pattern: str, gate: tuple[str, ...] = (), **kw) -> Shape:
    return Shape(kind, re.compile(pattern), gate or _literal_prefix(pattern), **kw)


def _literal_prefix(pattern: str) -> tuple[str, ...]:
    """The literal a pattern starts with ('rubygems_' of 'rubygems_[a-f0-9]{48}'), as its gate:
    a substring test is far cheaper than a regex scan, and most texts hold none of them."""
    literal = re.match(r"(?:[A-Za-z0-9_-]|\\\.)*", pattern).group().replace("\\.", ".")
    return (literal,) if len(literal) >= 2 else ()


_E = r"(?![A-Za-z0-9_])"  # token ends at a word boundary

SHAPES: tuple[Shape, ...] = (
    _shape("aws_access_key_id", r"A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}" + _E, gate=("AKIA", "ASIA", "ABIA", "ACCA")),
    _shape("github_token", r"g(?:h[pousr]_[A-Za-z0-9]{36,251}|ithub_pat_[A-Za-z0-9_]{60,255})" + _E, gate=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    _shape("gitlab_token", r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_.-]{20,}" + _E, gate=("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "gloas-", "glsoat-", "glft-", "glimt-", "glagent-")),
    _shape("gitlab_token", r"GR1348941[A-Za-z0-9_-]{20,}" + _E),
    _shape("slack_token", r"x(?:ox[abposrce]-(?:\d+-)*[A-Za-z0-9]{16,}|app-\d-[A-Z0-9]+-\d+-[a-z0-9]+)" + _E, gate=("xox", "xapp-")),
    _shape("slack_webhook", r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+",
           gate=("hooks.slack.com/",)),
    # secret and restricted keys; a publishable key (pk_) is public by design, shipped in client code
    _shape("stripe_key", r"[sr]k_(?:live|test)_[0-9A-Za-z]{16,}" + _E, gate=("k_live_", "k_test_")),
    _shape("stripe_key", r"whsec_[A-Za-z0-9]{32,}" + _E),
    _shape("google_api_key", r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
    _shape("google_oauth", r"GOCSPX-[0-9A-Za-z_-]{28}(?![A-Za-z0-9_-])"),
    _shape("google_oauth", r"ya29\.[0-9A-Za-z_-]{30,}"),
    _shape("openai_key", r"sk-(?:ant-(?:api|admin)\d\d-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}", min_entropy=3.5),
    _shape("huggingface_token", r"hf_[A-Za-z0-9]{30,}" + _E, min_entropy=3.5),
    _shape("huggingface_token", r"api_org_[A-Za-z0-9]{30,}" + _E, min_entropy=3.5),
    _shape("npm_token", r"npm_[A-Za-z0-9]{36}" + _E),
    _shape("pypi_token", r"pypi-[A-Za-z0-9_-]{40,}", min_entropy=3.5),
    _shape("sendgrid_key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
    _shape("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}" + _E, gate=("_v1_",)),
    _shape("shopify_token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E, gate=("shpat_", "shpca_", "shppa_", "shpss_")),
    _shape("square_token", r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}"),
    _shape("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", confidence=0.9),
    _shape("azure_storage_key", r"AccountKey=[A-Za-z0-9+/]{86}==", min_entropy=4.0),
    _shape("mailgun_key", r"key-[0-9a-z]{32}" + _E),
    _shape("databricks_token", r"dapi[0-9a-f]{32}(?:-\d)?" + _E),
    _shape("postman_key", r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}" + _E),
    _shape("docker_token", r"dckr_pat_[A-Za-z0-9_-]{27,}" + _E),
    _shape("linear_key", r"lin_api_[A-Za-z0-9]{40}" + _E),
    _shape("vault_token", r"hv[sbr]\.[A-Za-z0-9_-]{24,}" + _E, gate=("hvs.", "hvb.", "hvr.")),
    _shape("grafana_token", r"gl(?:c_[A-Za-z0-9+/]{32,}={0,2}|sa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})" + _E, gate=("glc_", "glsa_")),
    _shape("newrelic_key", r"NR(?:AK|JS|II)-[A-Za-z0-9]{19,32}" + _E, gate=("NRAK-", "NRJS-", "NRII-")),
    _shape("groq_key", r"gsk_[A-Za-z0-9]{48,}" + _E, min_entropy=3.5),
    _shape("replicate_token", r"r8_[A-Za-z0-9]{37}" + _E, min_entropy=3.5),
    _shape("sentry_token", r"sntry[su]_[A-Za-z0-9+/=_-]{40,}", min_entropy=3.5, gate=("sntry",)),
    _shape("figma_token", r"fig[dou]_[A-Za-z0-9_-]{38,}" + _E, min_entropy=3.5, gate=("figd_", "figo_", "figu_")),
    _shape("rubygems_key", r"rubygems_[a-f0-9]{48}" + _E),
    _shape("telegram_bot_token", r"\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])", gate=(":AA",), min_entropy=3.5),
    _shape("atlassian_token", r"ATATT3[A-Za-z0-9_=-]{100,}", min_entropy=3.5),
    _shape("doppler_token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}" + _E, min_entropy=3.5, gate=("dp.",)),
    _shape("twilio_key", r"SK[0-9a-fA-F]{32}" + _E),
    _shape("xai_key", r"xai-[A-Za-z0-9]{70,}" + _E, min_entropy=3.5),
    _shape("perplexity_key", r"pplx-[A-Za-z0-9]{40,}" + _E, min_entropy=3.5),
    _shape("notion_token", r"ntn_[A-Za-z0-9]{40,}" + _E, min_entropy=3.5),
    _shape("notion_token", r"secret_[A-Za-z0-9]{43}" + _E, min_entropy=3.5),
    _shape("mapbox_token", r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    _shape("terraform_token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}", gate=(".atlasv1.",)),
    _shape("nuget_key", r"oy2[a-z0-9]{43}" + _E),
    _shape("pulumi_token", r"pul-[a-f0-9]{40}" + _E),
    _shape("hubspot_token", r"pat-(?:na|eu)1-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}" + _E),
    # SonarQube's user, project-analysis and global-analysis tokens: the prefix and 40 hex digits
    _shape("sonar_token", r"sq[upa]_[a-f0-9]{40}" + _E, gate=("squ_", "sqp_", "sqa_")),
    _shape("supabase_token", r"sb[pa]_[a-f0-9]{40}" + _E, gate=("sbp_", "sba_")),
    _shape("heroku_key", r"HRKU-[A-Za-z0-9_-]{60}" + _E),
    _shape("planetscale_token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}" + _E),
    _shape("alibaba_key", r"LTAI[A-Za-z0-9]{12,20}" + _E, min_entropy=3.5),
    _shape("age_secret_key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" + _E),
)
# An AWS secret key near its key id, whatever it is assigned to (CSV exports, `aws configure`).
_AWS_SECRET_NEAR = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
register(g for shape in SHAPES for g in shape.gate)


def find_shapes(text: str) -> Iterator[Finding]:
    present = present_literals(text)
    for shape in SHAPES:
        if shape.gate and present.isdisjoint(shape.gate):
            continue
        for m in shape.pattern.finditer(text):
            start = m.start()
            if word_before(text, start):
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
        if (suppress.shannon_entropy(value) >= 4.0 and suppress.char_classes(value) >= 3
                and not suppress.is_placeholder(value)):
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
        else:  # truncated block: the key runs as far as base64 does, never past the next marker line
            stop = text.find("-----", m.end(), m.end() + 64_000)
            end = _PEM_BODY.match(text, m.end(), stop if stop >= 0 else m.end() + 64_000).end()
            body_len = end - m.end()
        body = text[m.end():m.end() + body_len]
        if body_len >= _PEM_MIN_BODY and not suppress.is_placeholder(body.strip()[:80]):
            yield Finding(m.start(), end, KEY, "private_key", 0.99)


# ---------------------------------------------------------------------------------------------
# Passwords in connection strings: scheme://user:password@host

# After '://': user ':' password '@' host; the password may hold '@', '#' or '?' (people do not
# always encode them), not '/', so the userinfo ends at the last '@' before the path.
_URL_USER = re.compile(r"[^\s:/@'\"`<>]{0,128}:")
_URL_AUTHORITY = re.compile(r"[^\s/'\"`<>]{1,400}")


# '-(?<!\S-)' is '(?<!\S)-' written so that the engine skips to each '-'.
CLI_USER_GATES = ("-u ", "--user ", "--user=")
register(CLI_USER_GATES)
_CLI_USER = re.compile(r"-(?<!\S-)(?:u|-user)[ =]['\"]?[^\s:'\"]{1,64}:([^\s'\"]{1,128})")


def _url_password(text: str, at: int) -> tuple[int, int] | None:
    user = _URL_USER.match(text, at)
    if not user:
        return None
    authority = _URL_AUTHORITY.match(text, user.end())
    if not authority:
        return None
    end = authority.group().rfind("@")
    host = text[authority.start() + end + 1:authority.start() + end + 2]
    if end <= 0 or not (host.isalnum() or host == "["):
        return None
    return user.end(), authority.start() + end


def _plausible_password(value: str) -> bool:
    """Not a template ('{token}', 'APIPASS') and not a plain word: has a digit or a symbol."""
    if suppress.is_placeholder(value) or value.isupper():
        return False
    return len(value) >= 12 or any(not c.isalpha() for c in value)


def find_url_passwords(text: str) -> Iterator[Finding]:
    pos = text.find("://")
    while pos >= 0:
        password = _url_password(text, pos + 3)
        if password and _plausible_password(text[password[0]:password[1]]):
            yield Finding(*password, PASSWORD, "connection_string", 0.96)
        pos = text.find("://", pos + 3)
    if not present_literals(text).isdisjoint(CLI_USER_GATES):  # curl -u user:password
        for m in _CLI_USER.finditer(text):
            if _plausible_password(m.group(1)):
                yield Finding(m.start(1), m.end(1), PASSWORD, "connection_string", 0.9)

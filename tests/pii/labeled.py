"""A seeded labeled set for PII detection: code and config in several languages with planted fake
secrets and personal data (positives, with their spans) and hard negatives (look-alikes that
must not be reported). Every value is generated here from the seed, none is real.

A document is ``{"id", "language", "text", "spans": [{"start", "end", "type", "kind"}],
"negatives": [{"start", "end", "kind"}]}`` with offsets in characters of ``text``.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

from quarry.curation.pii.findings import CARD, EMAIL, IP_ADDRESS, KEY, PASSWORD, PHONE
from labeled_context import NEGATIVE_SNIPPETS, PREFIXED_KINDS, SNIPPETS, Planted, rand_text
from template_split import line_key, snippet_key, template_half
from quarry.curation.pii.suppress import is_public_ip

ALNUM = string.ascii_letters + string.digits
B32 = string.ascii_uppercase + "234567"
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"

# Credential kinds with a known, documented shape (the recall goal is stated for these).
KNOWN_SHAPE_KINDS = frozenset({
    "aws_access_key_id", "aws_secret_key", "github_token", "gitlab_token", "slack_token", "stripe_key",
    "google_api_key", "openai_key", "jwt", "private_key", "connection_string",
}) | PREFIXED_KINDS


def _mixed(rng: random.Random, alphabet: str, n: int) -> str:
    """Random, but with at least one lower, one upper and one digit where the alphabet has them."""
    while True:
        value = rand_text(rng, alphabet, n)
        classes = (any(c.islower() for c in value) + any(c.isupper() for c in value)
                   + any(c.isdigit() for c in value))
        if classes >= min(3, sum(any(f(c) for c in alphabet) for f in (str.islower, str.isupper, str.isdigit))):
            return value


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# ---------------------------------------------------------------------------------------------
# Positive value generators: kind -> (type, generator)

def _aws_key_id(rng): return "AKIA" + _mixed(rng, B32, 16)
def _aws_secret(rng): return _mixed(rng, B64, 40)
def _github(rng): return rng.choice(["ghp_", "gho_", "ghs_"]) + _mixed(rng, ALNUM, 36) if rng.random() < 0.8 \
    else "github_pat_" + _mixed(rng, ALNUM, 22) + "_" + _mixed(rng, ALNUM, 59)
def _gitlab(rng): return "glpat-" + _mixed(rng, ALNUM + "_-", 20)
def _slack(rng): return f"xoxb-{rand_text(rng, string.digits, 12)}-{rand_text(rng, string.digits, 13)}-{_mixed(rng, ALNUM, 24)}"
def _stripe(rng): return rng.choice(["sk_live_", "rk_live_", "sk_test_"]) + _mixed(rng, ALNUM, rng.choice([24, 34, 99]))
def _google(rng): return "AIza" + _mixed(rng, ALNUM + "_-", 35)
def _openai(rng): return rng.choice(["sk-", "sk-proj-"]) + _mixed(rng, ALNUM, 48)


def _jwt(rng):
    header = _b64url(json.dumps({"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": rand_text(rng, string.digits, 10), "iat": rng.randrange(1_500_000_000, 1_800_000_000)}).encode())
    return f"{header}.{payload}.{_b64url(rng.randbytes(32))}"


def _pem(rng):
    label = rng.choice(["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "OPENSSH PRIVATE KEY"])
    body = base64.b64encode(rng.randbytes(rng.randrange(300, 1200))).decode()
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def _password(rng):
    return _mixed(rng, ALNUM, rng.randrange(6, 10)) + rng.choice("!#%^*-_+") + rand_text(rng, ALNUM, rng.randrange(2, 6))


def _high_entropy(rng):
    return _mixed(rng, ALNUM, rng.choice([24, 32, 40])) if rng.random() < 0.7 else rand_text(rng, HEX, 32)


FIRST = "anna ben carla dmitri elena farid grace hiro ines jonas kwame lena mateo nadia oscar priya quinn rosa".split()
LAST = "smith garcia mueller rossi tanaka okafor novak silva kim johansson dubois patel kowalski nguyen".split()
DOMAINS = "acme-corp.io mailbox.org fastmail.com gmail.com outlook.de uni-heidelberg.de corp.co.uk startup.dev".split()


def _email(rng):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    local = rng.choice([f"{first}.{last}", f"{first[0]}{last}", f"{first}_{last}{rng.randrange(10, 99)}", first])
    return f"{local}@{rng.choice(DOMAINS)}"


def _ipv4(rng):
    while True:
        address = ipaddress.IPv4Address(rng.getrandbits(32))
        if is_public_ip(address) and address.packed[0] >= 16:
            return str(address)


def _ipv6(rng):
    while True:
        if rng.random() < 0.7:  # compressed global unicast, as configs write them
            address = ipaddress.IPv6Address(bytes([0x20 | rng.randrange(0, 0x0F)]) + rng.randbytes(7) + bytes(6) + rng.randbytes(2))
            text = str(address)
        else:  # every group written out
            address = ipaddress.IPv6Address(rng.randbytes(16))
            text = address.exploded
        if is_public_ip(address, global_unicast_only="::" in text):
            return text


def _luhn_complete(prefix: str, length: int, rng) -> str:
    digits = prefix + rand_text(rng, string.digits, length - len(prefix) - 1)
    for check in string.digits:
        candidate = digits + check
        total = sum((d * 2 - 9 if d * 2 > 9 else d * 2) if i % 2 else d
                    for i, d in enumerate(int(c) for c in reversed(candidate)))
        if total % 10 == 0:
            return candidate
    raise AssertionError("unreachable")


def _card(rng):
    network = rng.choice(["visa", "mc", "amex", "discover", "visa13"])
    if network == "amex":
        number = _luhn_complete(rng.choice(["34", "37"]), 15, rng)
        groups = [number[:4], number[4:10], number[10:]]
    elif network == "visa13":  # old 13-digit numbers are written unseparated
        return _luhn_complete("4", 13, rng)
    else:
        prefix = {"visa": "4", "mc": str(rng.randrange(51, 56)), "discover": "6011"}[network]
        number = _luhn_complete(prefix, 16, rng)
        groups = [number[i:i + 4] for i in range(0, 16, 4)]
    return rng.choice([" ", "-", ""]).join(groups)


def _phone(rng):
    area, exchange, line = rng.randrange(201, 989), rng.randrange(200, 999), rng.randrange(0, 9999)
    return rng.choice([
        f"({area}){exchange}-{line:04d}", f"{area}.{exchange}.{line:04d} x{rng.randrange(10, 9999)}",
        f"+1 ({area}) {exchange}-{line:04d}", f"({area}) {exchange}-{line:04d}", f"{area}-{exchange}-{line:04d}",
        f"+1-{area}-{exchange}-{line:04d}", f"+44 20 {rng.randrange(7000, 8999)} {line:04d}",
        f"+49 30 {rng.randrange(100, 999)} {rng.randrange(1000, 99999)}", f"+33 1 {rng.randrange(10, 99)} {rng.randrange(10, 99)} {rng.randrange(10, 99)} {rng.randrange(10, 99)}",
    ])


# ---------------------------------------------------------------------------------------------
# Hard negatives: look-alikes that are not personal data or live credentials.

def _neg_sha(rng): return rand_text(rng, HEX, rng.choice([40, 64]))
def _neg_uuid(rng): return "-".join(rand_text(rng, HEX, n) for n in (8, 4, 4, 4, 12))
def _neg_integrity(rng): return "sha512-" + base64.b64encode(rng.randbytes(64)).decode()
def _neg_blob(rng): return base64.b64encode(rng.randbytes(rng.randrange(200, 400))).decode()
def _neg_placeholder_key(rng): return rng.choice(["YOUR_API_KEY", "<your-token-here>", "xxxxxxxxxxxxxxxxxxxx", "${API_TOKEN}",
                                                   "REPLACE_ME", "changeme", "{{ secret }}", "sk-...", "********"])
def _neg_doc_email(rng): return f"{rng.choice(FIRST)}@{rng.choice(['example.com', 'example.org', 'example.net', 'test.example'])}"
def _neg_doc_ip(rng): return rng.choice([f"192.0.2.{rng.randrange(1, 255)}", f"198.51.100.{rng.randrange(1, 255)}",
                                         f"203.0.113.{rng.randrange(1, 255)}", f"2001:db8::{rng.randrange(1, 0xffff):x}"])
def _neg_private_ip(rng): return rng.choice([f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}",
                                             f"192.168.{rng.randrange(256)}.{rng.randrange(1, 255)}", "127.0.0.1",
                                             f"172.{rng.randrange(16, 32)}.{rng.randrange(256)}.{rng.randrange(1, 255)}",
                                             f"169.254.{rng.randrange(256)}.{rng.randrange(1, 255)}", "::1", "fe80::1", "0.0.0.0"])
def _neg_version(rng): return f"{rng.randrange(1, 12)}.{rng.randrange(0, 30)}.{rng.randrange(0, 20)}.{rng.randrange(0, 9999)}"
def _neg_number(rng): return str(rng.randrange(10**12, 10**13))  # a millisecond timestamp
def _neg_aws_example(rng): return rng.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"])


# ---------------------------------------------------------------------------------------------
# Templates: how each language writes an assignment, a comment, a call.

@dataclass(frozen=True)
class Style:
    language: str
    assign: str  # with {name} and {value}
    comment: str
    filler: tuple[str, ...]
    upper_names: bool = False


STYLES = (
    Style("Python", '{name} = "{value}"', "# {text}",
          ("def load(path):", "    with open(path) as fh:", "        return json.load(fh)", "for item in items:",
           "    total += item.price * item.qty", "class Client:", "    def __init__(self, session):",
           "        self.session = session", "import os, json", "if __name__ == '__main__':", "    main()",
           "logger = logging.getLogger(__name__)", "result = {k: v for k, v in pairs if v}")),
    Style("JavaScript", "const {name} = '{value}';", "// {text}",
          ("export async function fetchUser(id) {", "  const res = await fetch(`/api/users/${id}`);",
           "  return res.json();", "}", "module.exports = { fetchUser };", "items.forEach((x) => console.log(x));",
           "const app = express();", "app.listen(3000);")),
    Style("Go", '{name} := "{value}"', "// {text}",
          ("package main", 'import "fmt"', "func main() {", '\tfmt.Println("ready")', "}",
           "if err != nil {", "\treturn nil, err", "}", "type Config struct {", "\tHost string", "}")),
    Style("Java", 'private static final String {name} = "{value}";', "// {text}",
          ("public class Service {", "    public void run() {", "        List<String> names = new ArrayList<>();",
           "    }", "}", "@Override", "public String toString() { return name; }"), upper_names=True),
    Style("YAML", "  {name}: {value}", "# {text}",
          ("services:", "  web:", "    image: nginx:1.25", "    ports:", '      - "8080:80"', "database:",
           "  pool: 5", "  timeout: 30"), ),
    Style("dotenv", "{name}={value}", "# {text}", ("NODE_ENV=production", "PORT=8080", "LOG_LEVEL=info", "WORKERS=4"),
          upper_names=True),
    Style("JSON", '  "{name}": "{value}",', None, ('  "name": "service",', '  "version": "2.1.0",', '  "enabled": true,',
                                                   '  "retries": 3,')),
    Style("Shell", 'export {name}="{value}"', "# {text}",
          ("set -euo pipefail", 'cd "$(dirname "$0")"', "docker compose up -d", 'echo "done"', "for f in *.log; do gzip \"$f\"; done"),
          upper_names=True),
    Style("Markdown", "- {name}: `{value}`", "{text}",
          ("## Setup", "Install the package and run the tests.", "See the changelog for details.", "```bash",
           "pip install -e .", "```")),
)

CREDENTIAL_NAMES = {
    "password": ["password", "db_password", "admin_pass" + "word", "smtp_password", "passwd"],
    "key": ["api_key", "secret_key", "access_token", "auth_token", "client_secret", "token", "apiKey"],
}


def _name(style: Style, name: str) -> str:
    return name.upper() if style.upper_names else name


def _assignment(style: Style, name: str, planted: Planted) -> list:
    head, tail = style.assign.split("{value}")
    return [head.replace("{name}", _name(style, name)), planted, tail]


def _comment(style: Style, parts: list) -> list:
    if style.comment is None:
        return ['  "_note": "', *parts, '",']
    head, tail = style.comment.split("{text}")
    return [head, *parts, tail]


POSITIVES: dict[str, tuple[str, Callable]] = {
    "aws_access_key_id": (KEY, _aws_key_id), "aws_secret_key": (KEY, _aws_secret), "github_token": (KEY, _github),
    "gitlab_token": (KEY, _gitlab), "slack_token": (KEY, _slack), "stripe_key": (KEY, _stripe),
    "google_api_key": (KEY, _google), "openai_key": (KEY, _openai), "jwt": (KEY, _jwt), "private_key": (KEY, _pem),
    "connection_string": (PASSWORD, _password), "password_assignment": (PASSWORD, _password),
    "high_entropy_assignment": (KEY, _high_entropy), "email": (EMAIL, _email), "ipv4": (IP_ADDRESS, _ipv4),
    "ipv6": (IP_ADDRESS, _ipv6), "payment_card": (CARD, _card), "phone": (PHONE, _phone),
}


def _positive_line(rng: random.Random, style: Style, kind: str) -> list:
    type_, make = POSITIVES[kind]
    planted = Planted(make(rng), type_, kind)
    if kind == "aws_access_key_id":
        return _assignment(style, "aws_access_key_id", planted)
    if kind == "aws_secret_key":
        return _assignment(style, "aws_secret_access_key", planted)
    if kind == "private_key":
        return [planted]
    if kind == "connection_string":
        scheme = rng.choice(["postgres", "mysql", "mongodb+srv", "redis", "amqp"])
        user = rng.choice(["app", "admin", "svc_orders", "root"])
        host = rng.choice(["db.internal.acme-corp.io", "10.0.3.7", "cluster0.mongo.net", "mq.prod.local"])
        head, tail = style.assign.split("{value}")
        return [head.replace("{name}", _name(style, "database_url")), f"{scheme}://{user}:", planted,
                f"@{host}:5432/app", tail]
    if kind == "password_assignment":
        return _assignment(style, rng.choice(CREDENTIAL_NAMES["password"]), planted)
    if kind in ("high_entropy_assignment",):
        return _assignment(style, rng.choice(CREDENTIAL_NAMES["key"]), planted)
    if type_ == KEY:
        if kind == "jwt" and rng.random() < 0.5:
            return _comment(style, ["curl -H 'Authorization: Bearer ", planted, "' https://api.acme-corp.io/v1/me"])
        return _assignment(style, rng.choice(["token", "api_key", "key", "credentials", "auth"]), planted)
    prose = {
        EMAIL: ["Maintainer: ", planted, " (questions welcome)"],
        IP_ADDRESS: ["production host ", planted, " behind the load balancer"],
        CARD: ["customer card on file ", planted],
        PHONE: ["support phone: ", planted],
    }[type_]
    if rng.random() < 0.5 and type_ in (EMAIL, IP_ADDRESS):
        name = {EMAIL: "contact_email", IP_ADDRESS: "server_ip"}[type_]
        return _assignment(style, name, planted)
    return _comment(style, prose)


NEGATIVES: dict[str, Callable[[random.Random, Style], list]] = {
    "git_sha": lambda rng, s: _assignment(s, "commit", Planted(_neg_sha(rng), None, "git_sha")),
    "sha256": lambda rng, s: _assignment(s, "sha256", Planted(_neg_sha(rng), None, "sha256")),
    "uuid": lambda rng, s: _assignment(s, "request_id", Planted(_neg_uuid(rng), None, "uuid")),
    "integrity": lambda rng, s: _assignment(s, "integrity", Planted(_neg_integrity(rng), None, "integrity")),
    "base64_blob": lambda rng, s: _assignment(s, "icon_png", Planted(_neg_blob(rng), None, "base64_blob")),
    "placeholder_key": lambda rng, s: _assignment(s, rng.choice(["api_key", "token", "password", "client_secret"]),
                                                  Planted(_neg_placeholder_key(rng), None, "placeholder_key")),
    "doc_email": lambda rng, s: _comment(s, ["e.g. ", Planted(_neg_doc_email(rng), None, "doc_email")]),
    "doc_ip": lambda rng, s: _assignment(s, "host", Planted(_neg_doc_ip(rng), None, "doc_ip")),
    "private_ip": lambda rng, s: _assignment(s, "bind_address", Planted(_neg_private_ip(rng), None, "private_ip")),
    "version": lambda rng, s: _assignment(s, "version", Planted(_neg_version(rng), None, "version")),
    "timestamp": lambda rng, s: _assignment(s, "created_ms", Planted(_neg_number(rng), None, "timestamp")),
    "aws_example": lambda rng, s: _assignment(s, "aws_access_key_id", Planted(_neg_aws_example(rng), None, "aws_example")),
    "git_remote": lambda rng, s: _comment(s, ["clone ", Planted("git@github.com:acme/widgets.git", None, "git_remote")]),
    "retina_asset": lambda rng, s: _comment(s, ["uses ", Planted(f"logo@{rng.choice([2, 3])}x.png", None, "retina_asset")]),
    "identifier_value": lambda rng, s: _assignment(s, "token_usage", Planted(rng.choice(
        ["mlflow.trace.tokenUsage", "VibeVoiceAcousticTokenizerConfig", "cache_input_tokens_above_1hr"]), None,
        "identifier_value")),
    "cidr": lambda rng, s: _assignment(s, "allowed_range", Planted(f"{_ipv4(rng).rsplit('.', 1)[0]}.0/24", None, "cidr")),
    "spdx_license_key": lambda rng, s: _assignment(s, "spdx_license_key", Planted(
        rng.choice(["BSD-3-Clause", "LicenseRef-scancode-ogl-wpd-3.0", "Apache-2.0"]), None, "spdx_license_key")),
    "url_template": lambda rng, s: _comment(s, ["connect with ", Planted(
        rng.choice(["redis://[[username]:[password]]@localhost:6379", "postgres://{user}:{password}@{host}/db",
                    "https://user:${TOKEN}@git.acme-corp.io/repo.git"]), None, "url_template")]),
    "message": lambda rng, s: _assignment(s, "password_prompt", Planted("Enter your password:", None, "message")),
    "variable_password": lambda rng, s: [rng.choice(["password = os.environ['DB_PASSWORD']", "self.password = password",
                                                     "def login(user, password: str, token=None):",
                                                     "token = get_token(session)", "PASSWORD_FIELD = \"password\""]),
                                         Planted("", None, "variable_password")],
}


def build_document(rng: random.Random, index: int, half: str | None = None) -> dict:
    """One document; with ``half`` ("dev" or "held_back", template_split.py) only templates of
    that half are used."""
    style = rng.choice(STYLES)
    lines: list[list] = []
    positives = [k for k in sorted(POSITIVES) if half is None or template_half(line_key(style.language, k)) == half]
    negative_kinds = [k for k in sorted(NEGATIVES) if half is None or template_half(line_key(style.language, k)) == half]
    kinds = rng.sample(positives, min(len(positives), rng.randrange(1, 5)))
    negatives = rng.sample(negative_kinds, min(len(negative_kinds), rng.randrange(2, 6)))
    for kind in kinds:
        lines.append(_positive_line(rng, style, kind))
    for kind in negatives:
        lines.append(NEGATIVES[kind](rng, style))
    for pool, counts in ((SNIPPETS, (0, 3)), (NEGATIVE_SNIPPETS, (1, 4))):
        for kind in rng.sample(sorted(pool), rng.randrange(*counts)):  # secrets found by context, look-alikes
            snippet = _snippet(rng, kind, pool[kind], half)
            if snippet:
                lines.append(snippet)
    for _ in range(rng.randrange(6, 30)):
        lines.append([rng.choice(style.filler)])
    if rng.random() < 0.3:  # multi-byte text before findings exercises character offsets
        lines.append(_comment(style, [rng.choice(["設定ファイル — 本番環境", "Ünïcödé ✓ naïve café", "🚀 deploy notes 🚀"])]))
    rng.shuffle(lines)
    return _render(lines, index, style.language)


_SNIPPET_TRIES = 12


def _snippet(rng: random.Random, name: str, make: Callable, half: str | None) -> list | None:
    """A snippet from generator ``make`` whose template lies in ``half`` (None: any), or None
    where none came up in a few tries."""
    for _ in range(1 if half is None else _SNIPPET_TRIES):
        parts = make(rng)
        if half is None or template_half(snippet_key(name, parts)) == half:
            return parts
    return None


def _render(lines: list[list], index: int, language: str) -> dict:
    text_parts: list[str] = []
    spans, negatives = [], []
    cursor = 0
    for line in lines:
        for part in line:
            if isinstance(part, Planted):
                if not part.value:
                    continue
                record = {"start": cursor, "end": cursor + len(part.value)}
                if part.type is None:
                    negatives.append({**record, "kind": part.kind})
                else:
                    spans.append({**record, "type": part.type, "kind": part.kind})
                part = part.value
            text_parts.append(part)
            cursor += len(part)
        text_parts.append("\n")
        cursor += 1
    return {"id": f"pii-{index:05d}", "language": language, "text": "".join(text_parts),
            "spans": spans, "negatives": negatives}


def build_labeled_set(n: int = 400, seed: int = 0, half: str | None = None) -> list[dict]:
    rng = random.Random(seed)
    return [build_document(rng, i, half) for i in range(n)]

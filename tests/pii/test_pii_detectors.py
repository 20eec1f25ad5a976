"""Every detector on positives and on the hard negatives real code is full of."""

import pytest

from quarry.curation.pii import detect
from quarry.curation.pii.personal import luhn_ok
from quarry.curation.pii.engine import PiiConfig

POSITIVES = [
    # (text, planted value, type, detector)
    ('maintainer = "Jane Doe <jane.doe@acme-corp.io>"', "jane.doe@acme-corp.io", "EMAIL", "email"),
    ("mail first_last42+tag@sub.uni-heidelberg.de now", "first_last42+tag@sub.uni-heidelberg.de", "EMAIL", "email"),
    ('HOST = "93.184.216.34"', "93.184.216.34", "IP_ADDRESS", "ipv4"),
    ("ping 8.8.4.4 twice", "8.8.4.4", "IP_ADDRESS", "ipv4"),
    ('dns = "2606:4700:4700::1111"', "2606:4700:4700::1111", "IP_ADDRESS", "ipv6"),
    ('aws_access_key_id = "AKIAQ3EGRT5VWXZ2L7MN"', "AKIAQ3EGRT5VWXZ2L7MN", "KEY", "aws_access_key_id"),
    ("aws_secret_access_key = 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\n", "q8Vw3Zr9Tb2Lm5Np7Xc1Hs4Jd6Kf0Gy8Ue3Ri5Oa",
     "KEY", "aws_secret_key"),
    ("t = 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'", "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "KEY", "github_token"),
    ("GITLAB=glpat-Xy7_kQ2mZp9LwR4tBv6N", "glpat-Xy7_kQ2mZp9LwR4tBv6N", "KEY", "gitlab_token"),
    ('SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUv12"',
     "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUv12", "KEY", "slack_token"),
    ("stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "KEY", "stripe_key"),
    ("GOOGLE = 'AIzaSyD3x9Kq2LmN8pR4tV6wY1zB5cE7gH0jK3m'", "AIzaSyD3x9Kq2LmN8pR4tV6wY1zB5cE7gH0jK3m", "KEY", "google_api_key"),
    ("OPENAI_API_KEY=sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7sU9wY1\n",
     "sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7sU9wY1", "KEY", "openai_key"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "KEY", "jwt"),
    ('db = "postgres://app:Xk9mP2vLq7@db.acme-corp.io:5432/app"', "Xk9mP2vLq7", "PASSWORD", "connection_string"),
    ('DB_PASSWORD = "S3cr3t-P@ssw0rd!"', "S3cr3t-P@ssw0rd!", "PASSWORD", "password_assignment"),
    ("smtp_password: hunter2x9\n", "hunter2x9", "PASSWORD", "password_assignment"),
    ('cs = "Server=db;User Id=sa;Password=MyP4ssw0rd;"', "MyP4ssw0rd", "PASSWORD", "password_assignment"),
    ('client_secret = "Qm9vT2xAc2VjcmV0MTIzNDU2Nzg5"', "Qm9vT2xAc2VjcmV0MTIzNDU2Nzg5", "KEY", "high_entropy_assignment"),
    ('SECRET_KEY = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"', "9f8e7d6c5b4a39281706f5e4d3c2b1a0", "KEY", "high_entropy_assignment"),
    ("card: 4539 1488 0343 6467", "4539 1488 0343 6467", "CARD", "payment_card"),
    ("amex 378282246310005 on file", "378282246310005", "CARD", "payment_card"),
    ("phone: +1 (415) 555-2671", "+1 (415) 555-2671", "PHONE", "phone"),
    ("call 415-555-0132 today", "415-555-0132", "PHONE", "phone"),
    ("toll free 1-800-555-0199.", "1-800-555-0199", "PHONE", "phone"),
    ("Tel +44 20 7946 0958", "+44 20 7946 0958", "PHONE", "phone"),
    ("office (123)456-7890 ok", "(123)456-7890", "PHONE", "phone"),
    ("fax +1.415.555.2671", "+1.415.555.2671", "PHONE", "phone"),
    ('connect(host="db", password="Tr0ub4dor&3")', "Tr0ub4dor&3", "PASSWORD", "password_assignment"),
    ('SECRET_KEY = "django-insecure-8x#k2$m9@q!w7e^r5t&y"', "django-insecure-8x#k2$m9@q!w7e^r5t&y", "KEY",
     "high_entropy_assignment"),
    ("desk 555.013.4567 x204\n", "555.013.4567 x204", "PHONE", "phone"),
    ("credit card: 4929804463624", "4929804463624", "CARD", "payment_card"),
    ("peer a3f1:0b2c:77d4:9e01:5c3a:aa10:0f0f:1234 up", "a3f1:0b2c:77d4:9e01:5c3a:aa10:0f0f:1234", "IP_ADDRESS", "ipv6"),
    ("[2001:4860:4860::8888]:443", "2001:4860:4860::8888", "IP_ADDRESS", "ipv6"),
    ("<settings><password>Xk9mP2vLq7z</password></settings>", "Xk9mP2vLq7z", "PASSWORD", "password_assignment"),
    ("mysql -u root --password=Xk9mP2vLq7 app", "Xk9mP2vLq7", "PASSWORD", "command_line"),
    ('url = "jdbc:mysql://h:3306/db?user=root&password=s3cret99x"', "s3cret99x", "PASSWORD", "password_assignment"),
    ('{"auth": "ZGVwbG95OnMzY3IzdFBhc3M5OQ=="}', "ZGVwbG95OnMzY3IzdFBhc3M5OQ==", "KEY", "high_entropy_assignment"),
    ("curl -u admin:S3cure!Pass https://api.acme-corp.io/", "S3cure!Pass", "PASSWORD", "connection_string"),
    ("DB_PASS=hunter2x\n", "hunter2x", "PASSWORD", "password_assignment"),
    ('dbPass = "Xk9mP2vLq7"', "Xk9mP2vLq7", "PASSWORD", "password_assignment"),
    ("AUTH=AIzaY_moGKKRcyyuFgQkH8QFxPwvFAkEt3rh7Cx\n", "AIzaY_moGKKRcyyuFgQkH8QFxPwvFAkEt3rh7Cx", "KEY",
     "google_api_key"),  # spells 'FAkE' by chance: not a placeholder
    ("MAILGUN=key-3ax6xnjp29jd6fds4gc373sgvjxteol0", "key-3ax6xnjp29jd6fds4gc373sgvjxteol0", "KEY", "mailgun_key"),
    ('curl -H "Authorization: Basic YWRtaW46czNjcjN0UGFzcw=="', "YWRtaW46czNjcjN0UGFzcw==", "PASSWORD", "basic_auth"),
]


def test_aws_secret_next_to_its_key_id_without_a_name():
    text = "AKIAQ3EGRT5VWXZ2L7MN,q8Vw3Zr9Tb2Lm5Np7Xc1Hs4Jd6Kf0Gy8Ue3Ri5Oa\n"
    assert [(f.kind, text[f.start:f.end]) for f in detect(text)] == [
        ("aws_access_key_id", "AKIAQ3EGRT5VWXZ2L7MN"), ("aws_secret_key", "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")]

PEM = ("-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(["MIIEowIBAAKCAQEA7bq2m9XzN1vQ8rT5yW3kP6sL0dF4hJ2gC9xB7nM1aZ5eR8uK"] * 6)
       + "\n-----END RSA PRIVATE KEY-----")


@pytest.mark.parametrize("text,value,type_,kind", POSITIVES, ids=[p[3] + ":" + p[1][:12] for p in POSITIVES])
def test_detects_planted_value_with_exact_span(text, value, type_, kind):
    findings = detect(text)
    start = text.index(value)
    assert [(f.start, f.end, f.type, f.kind) for f in findings] == [(start, start + len(value), type_, kind)]


def test_private_key_block_is_one_finding_also_with_escaped_newlines():
    doc = f'key = """{PEM}"""\n'
    [finding] = detect(doc)
    assert (doc[finding.start:finding.end], finding.kind) == (PEM, "private_key")
    escaped = '{"private_key": "' + PEM.replace("\n", "\\n") + '\\n"}'
    [finding] = detect(escaped)
    assert escaped[finding.start:finding.end] == PEM.replace("\n", "\\n")


def test_truncated_key_blocks_end_at_the_next_marker():
    # two blocks cut before their END line are two findings, each its own body; and a text of
    # nothing but BEGIN lines (each read to the end of the text before) is read once
    body = PEM.split("\n", 1)[1].rsplit("\n", 1)[0]
    first, second = "-----BEGIN RSA PRIVATE KEY-----\n" + body, "-----BEGIN PRIVATE KEY-----\n" + body
    doc = f"{first}\n{second}\n"
    assert [doc[f.start:f.end].strip() for f in detect(doc)] == [first, second]
    assert detect("-----BEGIN PRIVATE KEY-----\n" * 20_000) == []


HARD_NEGATIVES = [
    'commit = "3f786850e387550fdab836ed7e6dc881de23001b"',
    'sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
    'request_id = "123e4567-e89b-12d3-a456-426614174000"',
    '"integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR0QzeNwOLHcDmCVA=="',
    'ICON = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="',
    'api_key = "YOUR_API_KEY"', "token: <token>", 'password = "xxxxxxxx"', 'secret = "${SECRET}"',
    'AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"', "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "contact jane@example.com or ops@example.org", "write to your.name@yourcompany.com", "root@localhost.localdomain", "clone git@github.com:acme/widgets.git", "see logo@2x.png",
    'host = "192.0.2.15"', 'doc6 = "2001:db8::1"', 'bind = "192.168.1.10"', "lo 127.0.0.1 and 10.0.0.7 and fe80::1 and ::1",
    'version = "1.2.3.4"', "requires foo>=2.31.0.1", "see section 7.9.2.2", 'oid = "1.3.6.1.4.1"',
    "created_ms = 1699999999999", "order 1234567890123456 shipped",  # fails Luhn
    "std::vector<int> v; a::b::c(); dead::beef", "at 12:34:56 and 2023-10-05T12:34:56Z", "mac 00:1A:2B:3C:4D:5E", "def login(user, password: str, token=None):",
    "self.password = password", "password = os.environ['DB_PASSWORD']", "token = get_token(session)",
    'PASSWORD_FIELD = "password"', 'password = "Enter your password"', 'author = "Jane Smith"',
    '"authority": "https://login.microsoftonline.com/common"', "MAX_TOKENS = 4096", "color: #ff00aa;", "pip install scikit-learn==1.4.2",
    "@property\ndef name(self):", "npm i @types/node@20.11.5", "date 2023-10-05 12:34:56", "pi = 3.14159265358979",
    'postgres://user:${DB_PASS}@db:5432/app', "ftp://anonymous:pass@ftp.acme-corp.io/",
    # look-alikes found in real package source
    '"vibevoice_acoustic_tokenizer": "VibeVoiceAcousticTokenizerEncoderConfig",', 'TOKEN_USAGE = "mlflow.trace.tokenUsage"',
    '"cache_input_tokens_above_1hr": "cache_input_tokens_above_1hr",', '"next_page_token": "eyJpbmRleCI6IDExfQ==",',
    "weights = [+0.3333333, 0.4969]", "32-bit PCM  -2147483648  +2147483647  int32", "[4220315081820346526, 7]",
    '"b": ["2.1.1.0", "2.1.1.1"]', 'OAUTH_OWNER_PASSWORD = "OAUTH_OWNER_PASSWORD"', 'cparams["password"] = "some_password"',
    "redis://[[username]:[password]]@localhost:6379", '"192.31.196.0/24", "2620:4f:8000::/48"', "Section 2.2.24.1", 'key: "sk-1234567890abcdefghijklmnopqrstuvwxyz"',
]


@pytest.mark.parametrize("text", HARD_NEGATIVES)
def test_hard_negative_is_not_reported(text):
    assert detect(text) == []


def test_offsets_are_character_offsets_after_multibyte_text():
    prefix = "設定 — ünïcödé 🚀🚀 "
    text = prefix + "mail jane.doe@acme-corp.io ok"
    [finding] = detect(text)
    assert finding.start == text.index("jane.doe") and text[finding.start:finding.end] == "jane.doe@acme-corp.io"


def test_sensitivity_levels_and_type_selection():
    text = "office 415-555-0132\nmail jane.doe@acme-corp.io"
    assert {f.type for f in detect(text, PiiConfig(sensitivity="medium"))} == {"PHONE", "EMAIL"}
    assert {f.type for f in detect(text, PiiConfig(sensitivity="low"))} == {"EMAIL"}  # bare phone is 0.6
    assert {f.type for f in detect(text, PiiConfig(types=("PHONE",)))} == {"PHONE"}


def test_overlapping_candidates_resolve_to_one_finding():
    text = 'GITHUB_TOKEN = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"'
    [finding] = detect(text)
    assert finding.kind == "github_token"


def test_luhn():
    assert luhn_ok("4539148803436467") and luhn_ok("378282246310005")
    assert not luhn_ok("4539148803436468")


def test_bad_config_names_the_key():
    from quarry.errors import ConfigError

    with pytest.raises(ConfigError, match="pii.sensitivity"):
        PiiConfig.from_params({"pii": {"sensitivity": "extreme"}})
    with pytest.raises(ConfigError, match="pii.types"):
        PiiConfig.from_params({"pii": {"types": ["SSN"]}})


def test_literal_finder_reports_every_word_that_occurs():
    """The gate of the shape and command detectors: the same answer as a substring test per word,
    also for overlapping words, words sharing a character and words at the text's edges."""
    import random

    from quarry.curation.pii.credentials import SHAPES
    from quarry.infra.literals import literal_finder

    words = sorted({g for shape in SHAPES for g in shape.gate} | {"a", "ab", "ba", "PASSWORD=", "_TOKEN="})
    present = literal_finder(words)
    rng = random.Random(0)
    pieces = words + ["x", " ", "_", "-", "K", "\n", "é"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert present(text) == {w for w in words if w in text}, text


def test_the_shared_digit_scan_finds_what_each_number_pattern_finds_alone():
    """Cards and North-American phone numbers are read in one scan of the digits: each detector
    must still see exactly what its own pattern's finditer gives, on texts dense with both."""
    import random

    from quarry.curation.pii import personal
    from quarry.curation.pii.findings import finditer_from

    rng = random.Random(7)
    pieces = ["4111", "1111", "555", "0199", "123", "4", "12", " ", "-", ".", ",", "x", "ext. 7", "\n", "1-", "a"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        personal._digit_shapes.cache_clear()
        cards, phones = personal._digit_shapes(text)
        for pattern, starts in ((personal._CARD, cards), (personal._PHONE_NANP, phones)):
            assert [m.span() for m in finditer_from(pattern, text, starts)] == \
                [m.span() for m in pattern.finditer(text)], text


def test_secret_named_base64_values_are_read_from_their_names_roots():
    """The base64 detector runs its pattern only where a credential name's root occurs: it must
    find what the pattern's own finditer finds, in any case and with names running into each other."""
    import random

    from quarry.curation.pii import encoded

    rng = random.Random(11)
    pieces = ["password", "PASS", "Secret", "tOkEn", "api_key", "APIKEY", "credentials", "_b64", "pw", ": ", "=",
              '"', " ", "\n", "c2VjcmV0LXZhbHVlLTEyMzQ1", "QUJDREVGR0hJSktMTU5PUA==", "x"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        assert [m.span(1) for m in encoded._secret_named_values(text)] == \
            [m.span(1) for m in encoded._SECRET_NAMED_B64.finditer(text)], text


def test_a_document_of_thousands_of_findings_keeps_each_once():
    # overlaps are resolved by bisection over the kept spans (a scan of all kept was quadratic)
    rows = [f"user{i},{i:05d}Zq{i * 7919 % 100000:05d}Wx" for i in range(5000)]
    text = "user,password\n" + "\n".join(rows) + "\n"
    found = detect(text)
    assert [text[f.start:f.end] for f in found] == [row.split(",")[1] for row in rows]


def test_a_long_line_of_prose_with_many_tokens_is_judged_around_each():
    import random
    import string

    r = random.Random(9)
    tokens = ["".join(r.choice(string.ascii_letters + string.digits) for _ in range(19)) + "7" for _ in range(2000)]
    line = " ".join(f"the token is {t} for now." for t in tokens)  # one line, no break
    assert [line[f.start:f.end] for f in detect(line)] == tokens

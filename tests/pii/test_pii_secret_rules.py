"""Provider token formats (gitleaks' rule set as data), assignment syntaxes, placeholders and what
``sensitivity`` changes. Tokens are generated here, at random, in each provider's documented
format (none is copied from a scanner's own tests)."""

import json
import random
import string

import pytest

from quarry.curation.pii import detect
from quarry.curation.pii.engine import PiiConfig
from quarry.curation.pii.scanner_rules import COVERED_BY_SHAPES, RULES_FILE, SECOND_RULES_FILE, load

_RND = random.Random(4343)
ALNUM, HEX, UPPER_NUM = string.ascii_letters + string.digits, "0123456789abcdef", string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "_-"


def rand(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_RND.choice(alphabet) for _ in range(n))


# (syntax around the token, token) from each provider's documentation of its token format.
PROVIDER_TOKENS = [
    ('SRC_ACCESS_TOKEN="{}"', "sgp_" + rand(40, HEX)),                      # Sourcegraph access token
    ("sonar.token={}", "sqp_" + rand(40, HEX)),                             # SonarQube project analysis token
    ("sonar.token={}", "squ_" + rand(40, HEX)),                             # SonarQube user token
    ("FLY_API_TOKEN: {}", "fo1_" + rand(43, URLSAFE)),                      # Fly.io org token
    ('op_secret_key = "{}"', "A3-" + "-".join(rand(n, UPPER_NUM) for n in (6, 11, 5, 5, 5))),  # 1Password
    ("AZURE_CLIENT_SECRET={}", rand(3) + "8Q~" + rand(34, ALNUM + "_~.-")),  # Entra ID client secret
    ('webhook = "{}"', f"https://hooks.slack.com/services/T{rand(10, UPPER_NUM)}/B{rand(10, UPPER_NUM)}/{rand(24)}"),
    ("export SLACK_BOT_TOKEN={}", f"xoxb-{rand(12, '0123456789')}-{rand(13, '0123456789')}-{rand(24)}"),
    ("CLOJARS_TOKEN = '{}'", "CLOJARS_" + rand(60, string.ascii_lowercase + string.digits)),
    ("adafruit_io_key := \"{}\"", rand(32, string.ascii_lowercase + string.digits)),  # keyed: io.adafruit.com key
]


@pytest.mark.parametrize("syntax,token", PROVIDER_TOKENS, ids=[t[:6] for _, t in PROVIDER_TOKENS])
def test_provider_tokens_are_redacted(syntax, token):
    text = syntax.format(token)
    spans = [text[f.start:f.end] for f in detect(text)]
    assert any(token.endswith(s) or s.endswith(token) or token in s for s in spans if len(s) >= 16), spans


SYNTAXES = [
    '$config["token"] .= "{}";',           # PHP append
    "DEPLOY_TOKEN ::= {}",                  # GNU Make (POSIX) simple assignment
    "DEPLOY_TOKEN :::= {}",
    "DEPLOY_TOKEN ?= {}",                   # Make default
    'var apiKey string = "{}"',             # Go typed declaration
    'val apiSecret: String = "{}"',         # Kotlin / Scala
    "api_secret ||= '{}'",                  # Ruby default
    "$apiToken ??= '{}';",                  # PHP null-coalescing assignment
    'curl -s https://api.acme.dev/v2/items --header "Api-Token: {}"',
    # a JSON document held in a JSON string: its quotes and newlines are escaped
    '{{"settings": "{{\\n  \\"api_token\\": \\"{}\\"\\n}}"}}',
    "<settings>\n  <apiToken>\n    {}\n  </apiToken>\n</settings>",  # XML element text over lines
]


@pytest.mark.parametrize("syntax", SYNTAXES)
def test_assignment_syntaxes_leak_nothing(syntax):
    secret = rand(32)
    text = syntax.format(secret)
    assert any(text[f.start:f.end] == secret for f in detect(text)), syntax


# Account identifiers keyed by an id or login word, not a credential word: gitleaks' id rules
# (Discord's 18-digit client id, Sumo Logic's 'su' access id, Plaid's 24-character client id).
ID_KEYS = [
    ('discord_client_id = "{}"', rand(18, "0123456789")),
    ("DISCORD_CLIENT_ID={}", rand(18, "0123456789")),
    ('  discordClientId: "{}",', rand(18, "0123456789")),
    ("export SUMO_ACCESS_ID={}", "su" + rand(12)),
    ('PLAID_CLIENT_ID: "{}"', rand(24, string.ascii_lowercase + string.digits)),
]


@pytest.mark.parametrize("syntax,token", ID_KEYS, ids=[s.split("=")[0].strip()[:20] for s, _ in ID_KEYS])
def test_provider_ids_keyed_without_a_credential_word(syntax, token):
    text = syntax.format(token)
    assert [text[f.start:f.end] for f in detect(text)] == [token]


@pytest.mark.parametrize("text", [
    'client_id = "{}"'.format(rand(18, "0123456789")),             # an id naming no provider
    'discord_channel_id = "{}"'.format(rand(18, "0123456789")),    # a provider's id, not an account's
    "discord_client_id = get_client_id()",                         # a call, not a value
    "Log in to Discord with your client id from the developer portal.",
])
def test_ids_that_are_not_account_ids_stay(text):
    assert detect(text) == []


def test_sonar_tokens_are_found_by_shape_at_every_level():
    token = "sqa_" + rand(40, HEX)
    text = f"analysis:\n  credential: {token}\n"  # no sonar key beside it
    assert [text[f.start:f.end] for f in detect(text, PiiConfig(sensitivity="low"))] == [token]


def test_keyed_rule_reads_escaped_json():
    client_id = rand(18, "0123456789")  # a Discord id: digits only, found by its provider-named key
    text = '{"env": "{\\n  \\"discord_token\\": \\"%s\\"\\n}"}' % client_id
    assert [text[f.start:f.end] for f in detect(text)] == [client_id]


def test_format_rule_reads_xml_element_text():
    token = "fo1_" + rand(43, URLSAFE)  # a Fly.io token: a format rule, so found at every level
    text = f"<config>\n  <flyApiToken>{token}</flyApiToken>\n</config>"
    assert [text[f.start:f.end] for f in detect(text, PiiConfig(sensitivity="low"))] == [token]


PLACEHOLDERS = [
    "- (id)hf_requiredCharacteristicForServiceIdentifier;",
    'curl --user "$1:$2" https://api.acme.dev/login',
    'api_key = "${API_KEY}"',
    'token: "{{ vault_token }}"',
    "SRC_ACCESS_TOKEN=<your-token>",
    'password = "changeme"',
    "AZURE_CLIENT_SECRET=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    # a token's shape filled by hand: one or two characters after the prefix, or counting runs
    'github_token = "ghp_000000000000000000000000000000000000"',
    "SHOPIFY_TOKEN=shpat_00000000000000000000000000000000",
    "slack_token: xoxb-000000000000-000000000000-xxxxxxxxxxxxxxxxxxxxxxxx",
    'SLACK_USER_TOKEN = "xoxp-1234567890-1234567890-1234567890-abcdef1234567890abcdef1234567890"',
    'footer_key = "0123456789abcdef"',
    'client_secret = "1234567890abcdef1234567890abcdef"',
    # a release tool's substitution marker, a reference to the environment
    'api_token = "@@API_TOKEN@@"', "DEPLOY_TOKEN=__DEPLOY_TOKEN__", '<apiToken>#{ApiToken}#</apiToken>',
    "client_secret: env:CLIENT_SECRET",
    # a placeholder base64-encoded, as a Secret's data holds it ('password', 'changeme')
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: cGFzc3dvcmQ=\n  token: Y2hhbmdlbWU=\n",
    # a publishable key is public by design (Stripe ships it in client code)
    'const stripe = Stripe("pk_live_4eC39HqLyjWDarjtT1zdp7dcQ2", {locale: "en"});',
]


@pytest.mark.parametrize("text", PLACEHOLDERS)
@pytest.mark.parametrize("sensitivity", ["low", "medium", "high"])
def test_placeholders_stay(text, sensitivity):
    assert detect(text, PiiConfig(sensitivity=sensitivity)) == []


def test_a_filler_shape_is_not_a_random_token():
    # a random token of the same shape is found; a weak password too short to be a filler is judged as one
    found = [bool(detect(text)) for text in ('github_token = "ghp_' + rand(36) + '"',
                                             'client_secret = "' + rand(32, HEX) + '"', 'db_password = "abcd1234"')]
    assert found == [True, True, True]


def test_sensitivity_changes_what_is_redacted():
    # format rules at every level, a provider-keyed rule from medium, the generic rule only at high
    prefixed, keyed, generic = ("sgp_" + rand(40, HEX), 'DISCORD_TOKEN = "' + rand(18, "0123456789") + '"',
                                "DEPLOY_KEY=" + rand(24))  # a bare key: only the generic rule
    found = {s: [bool(detect(t, PiiConfig(sensitivity=s))) for t in (prefixed, keyed, generic)]
             for s in ("low", "medium", "high")}
    assert found == {"low": [True, False, False], "medium": [True, True, False], "high": [True, True, True]}


# Formats only the second rule set (Kingfisher's) knows: the provider's prefix inside the token
SECOND_SET_TOKENS = [
    ('BUILDKITE_API_TOKEN="{}"', "bkua_" + rand(40, HEX)),                  # Buildkite user API token
    ("TS_API_KEY={}", f"tskey-api-{rand(12)}-{rand(30)}"),                  # Tailscale API key
    ("contentful:\n  management: {}", "CFPAT-" + rand(43, URLSAFE)),       # Contentful personal access token
    ('ubidots_auth = "{}"', "BBFF-" + rand(30)),                            # Ubidots token
    ("flexport = {}", "shltm_" + rand(40)),                                 # Flexport API key
]


@pytest.mark.parametrize("syntax,token", SECOND_SET_TOKENS, ids=[t[:6] for _, t in SECOND_SET_TOKENS])
def test_second_rule_set_formats_at_every_level(syntax, token):
    text = syntax.format(token)
    assert [text[f.start:f.end] for f in detect(text, PiiConfig(sensitivity="low"))] == [token]


def test_second_rule_set_is_cited_data_of_token_formats():
    doc = json.loads(SECOND_RULES_FILE.read_text())
    assert doc["source"].startswith("https://github.com/mongodb/kingfisher") and doc["commit"] and "Apache" in doc["license"]
    ids = {r.id for r in load()[0]}
    assert {r["id"] for r in doc["rules"]} <= ids and len(doc["rules"]) >= 10
    assert all(r["secret_group"] == 1 for r in doc["rules"])  # a token group, never a key with its value
    # what was left out is said, rule by rule
    assert {d["why"] for d in doc["dropped"]} >= {"not visible", "format already known"}


def test_rules_are_cited_data():
    doc = json.loads(RULES_FILE.read_text())
    assert doc["source"].startswith("https://github.com/gitleaks/gitleaks") and doc["commit"] and "MIT" in doc["license"]
    rules = [r for r in load()[0] if not r.id.startswith("kingfisher.")]
    assert {r.id for r in rules} | COVERED_BY_SHAPES == {r["id"] for r in doc["rules"]} and len(rules) >= 150
    # a rule the shapes are said to cover is covered: its own sample token is found by the shapes
    from quarry.curation.pii.credentials import find_shapes
    for token in ("ghp_" + rand(36), "glpat-" + rand(20), "npm_" + rand(36), "dop_v1_" + rand(64, HEX)):
        assert [f.end - f.start for f in find_shapes(f'x = "{token}"')] == [len(token)], token


def test_base64_secrets_are_redacted():
    import base64

    password = rand(20, ALNUM + "!#%&")
    wrapped = "ghp_" + rand(36)
    text = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n"
            f"  username: {base64.b64encode(b'admin').decode()}\n"
            f"  password: {base64.b64encode(password.encode()).decode()}\n---\n"
            f'auth_token_b64: "{base64.b64encode(wrapped.encode()).decode()}"\n')
    spans = {text[f.start:f.end] for f in detect(text)}
    assert base64.b64encode(password.encode()).decode() in spans
    assert base64.b64encode(wrapped.encode()).decode() in spans
    assert base64.b64encode(b"admin").decode() not in spans  # too short to be a secret: a user name


def test_a_secrets_data_entry_holding_a_config_with_a_credential_is_redacted():
    import base64

    def encoded(content: str) -> str:
        return base64.b64encode(content.encode()).decode()

    settings = encoded(json.dumps({"region": "eu-west-1", "api_token": rand(32)}, indent=2))
    dotenv = encoded(f"DB_HOST=db.internal\nDB_PASSWORD={rand(14, ALNUM + '!#%')}\n")
    text = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ntype: Opaque\ndata:\n"
            f"  settings.json: {settings}\n  app.env: {dotenv}\n")
    assert [text[f.start:f.end] for f in detect(text)] == [settings, dotenv]


def test_a_base64_wrapped_jwt_is_redacted_whole():
    """A JWT (RFC 7519: base64url header, claims, signature) base64-encoded again, with no name
    around it: the whole value goes, not just the header claim the rule's named group marks."""
    import base64

    def b64url(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    jwt = ".".join((b64url(b'{"alg":"HS256","typ":"JWT"}'), b64url(json.dumps({"sub": rand(12), "iat": 1700000000}).encode()),
                    rand(43, URLSAFE)))
    wrapped = base64.b64encode(jwt.encode()).decode()
    for text in (f"{wrapped}\n", f"headers = {{'X-Session': '{wrapped}'}}\n"):
        spans = [text[f.start:f.end] for f in detect(text)]
        assert wrapped in spans, spans


def test_a_found_secret_is_redacted_wherever_it_recurs():
    password = "t0rnado" + rand(4, string.digits)
    text = (f'db:\n  password: "{password}"\n\nLog in with {password} and change it; '
            f"not x{password} nor {password}.2 (other tokens)\n")
    spans = [(f.start, text[f.start:f.end]) for f in detect(text)]
    assert [s for _, s in spans] == [password, password], spans


def test_names_judged_under_a_credential_are_not_echoed():
    # a value a detector may take under a password's name, but a word of code elsewhere
    text = 'password = "ParseHtml5Node"\n\nnode = ParseHtml5Node(tree)\n'
    assert all(f.start < text.index("\n\n") for f in detect(text))


def test_a_long_credential_is_judged_in_linear_time():
    # a name-shaped pattern with nested repeats took seconds on such a value (base64 of a JSON-ish
    # text, ~10x more per 10 characters): the echo check must read a value in linear time
    import base64

    value = base64.b64encode(b"account:{verified:true,region:north,plan:basic,team:storage,tier:2,"
                             b"zone:eu-west}").decode()
    text = f'fullstory_SECRET="{value}"\nagain: {value}\n'
    assert [text[f.start:f.end] for f in detect(text)] == [value, value]


@pytest.mark.parametrize("joint", ["_", ""])
def test_a_long_name_of_credential_words_is_read_in_linear_time(joint):
    # thousands of credential words run together, no operator after them (a minified identifier):
    # the name pattern once split the name between name and declared type at every root (cubic)
    words = [_RND.choice(["token", "Key", "password", "Secret", "user", "Config"]) for _ in range(4000)]
    text = "token: " + joint.join(words) + "\nother = 1\n"
    assert detect(text) == []


def test_a_private_key_encoded_whole_is_found_and_a_certificate_is_not():
    import base64

    def pem(kind: str) -> str:
        body = "\n".join(rand(64, ALNUM + "+/") for _ in range(6))
        return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n"

    key, certificate = (base64.b64encode(pem(kind).encode()).decode() for kind in ("RSA PRIVATE KEY", "CERTIFICATE"))
    text = (f"users:\n- name: admin\n  user:\n    client-certificate-data: {certificate}\n"
            f"    client-key-data: {key}\n")
    assert [text[f.start:f.end] for f in detect(text)] == [key]


def test_a_yaml_key_written_as_a_ruby_symbol_names_its_value():
    token = rand(32)
    text = f"---\n:rubygems_api_key: {token}\n:verbose: true\n"
    assert [text[f.start:f.end] for f in detect(text)] == [token]

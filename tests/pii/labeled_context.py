"""Labeled snippets for secrets found by context: values whose only tell is where they stand.

Each generator returns the parts of one snippet (strings and ``Planted`` values) for the labeled
set in labeled.py: JS/TS fallbacks, nested JSON/YAML config, .env / compose / Kubernetes
files, command lines, connection strings of many schemes, secrets stated in prose, tokens with a
vendor prefix, and IP / version look-alikes. Every positive has hard negatives of the same shape
(placeholders, variables, durations, URLs, versions) so a detector that reads only the shape fails.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from dataclasses import dataclass

from quarry.curation.pii.findings import IP_ADDRESS, KEY, PASSWORD

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
WORDS = ("river falcon maple copper orbit velvet harbor cedar lantern quartz ember meadow summit pixel tundra "
         "nimbus cobalt saffron glacier thunder willow").split()
SEASONS = ("Summer Winter Autumn Spring Monday Welcome Dragon Sunshine Galaxy Phoenix").split()


@dataclass
class Planted:
    value: str
    type: str | None  # None: a hard negative
    kind: str


def rand_text(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


# ---------------------------------------------------------------------------------------------
# Values people actually write: weak human passwords, passphrases, random strings, hex, base64.

def human_password(rng: random.Random) -> str:
    word, word2 = rng.choice(WORDS), rng.choice(WORDS)
    return rng.choice([
        f"{rng.choice(SEASONS)}{rng.randrange(2015, 2026)}{rng.choice('!#$@*')}",
        f"{word.capitalize()}{rng.choice('@#$&')}{rng.randrange(10, 9999)}",
        f"{word}.{word2}.{rng.randrange(1, 99)}",  # dotted words with digits
        f"{word}-{word2}-{rng.randrange(100, 999)}",
        f"{word.replace('e', '3').replace('o', '0')}{rng.randrange(1, 99)}",
        rand_text(rng, ALNUM + "!@#$%^&*-_=+;:,.?~", rng.randrange(10, 20)),
        f"{rand_text(rng, ALNUM, 6)}{rng.choice(';&=%/')}{rand_text(rng, ALNUM, 6)}",
        f"{word}_{rng.randrange(1000, 99999)}",
    ])


def generic_secret(rng: random.Random) -> str:
    choice = rng.randrange(7)
    if choice == 0:
        return rand_text(rng, HEX, rng.choice([32, 40, 48, 64]))
    if choice == 1:
        return rand_text(rng, ALNUM + "+/", rng.choice([40, 43])) + rng.choice(["", "=", "=="])
    if choice == 2:
        return rand_text(rng, ALNUM + "-_", rng.choice([32, 43, 64]))
    if choice == 3:
        return f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{rand_text(rng, ALNUM, 12)}"
    if choice == 4:
        return f"{rng.choice(['dev', 'local', 'app', 'my'])}-{rng.choice(WORDS)}-secret-{rng.randrange(100, 9999)}"
    return rand_text(rng, ALNUM, rng.randrange(18, 48))


def any_secret(rng: random.Random) -> str:
    value = human_password(rng) if rng.random() < 0.5 else generic_secret(rng)
    return value if value[0] not in "#&*!%@|>{['\"`-?:,~" else "k" + value  # YAML would read those as syntax


PLACEHOLDERS = ("changeme", "<your-key>", "${JWT_SECRET}", "xxxxxxxxxxxx", "your-secret-here", "CHANGE_ME",
                "<password>", "{{ .Values.db.password }}", "$(SECRET_KEY)", "TODO", "********", "secret",
                "${{ secrets.API_TOKEN }}", "%DB_PASSWORD%", "REPLACE_WITH_YOUR_TOKEN", "")


def placeholder(rng: random.Random) -> str:
    return rng.choice(PLACEHOLDERS)


# ---------------------------------------------------------------------------------------------
# Snippets: (rng, make_planted) -> parts. ``pos`` plants a value, ``neg`` a hard negative.

Snippet = Callable[[random.Random], list]


def _pos(value: str, kind: str, type_: str = KEY) -> Planted:
    return Planted(value, type_, kind)


def _neg(value: str, kind: str) -> Planted:
    return Planted(value, None, kind)


SECRET_ENV = ("JWT_SECRET", "SESSION_SECRET", "API_KEY", "STRIPE_SECRET", "AUTH_TOKEN", "DB_PASSWORD",
              "COOKIE_SECRET", "ADMIN_PASSWORD", "ENCRYPTION_KEY", "APP_SECRET", "ACCESS_TOKEN_SECRET", "MONGO_PASS")


def _secret_type(name: str) -> str:
    return PASSWORD if "PASS" in name.upper() else KEY


def js_fallback(rng):
    env = rng.choice(SECRET_ENV)
    var = rng.choice([env.lower(), "secret", "jwtSecret", "config.secret", "apiKey", "key", "opts.password"])
    op, q = rng.choice(["||", "??"]), rng.choice("'\"`")
    value = any_secret(rng)
    decl = rng.choice(["const ", "let ", "export const ", "", "  "])
    sep = " = " if not var.startswith("opts") else ": " if rng.random() < 0.3 else " = "
    return [f"{decl}{var}{sep}process.env.{env} {op} {q}", _pos(value, "js_fallback", _secret_type(env)), f"{q};"]


def js_fallback_negative(rng):
    env, q = rng.choice([("PORT", "'3000'"), ("JWT_EXPIRES_IN", "'7d'"), ("TOKEN_TTL", "'3600'"),
                         ("AUTH_URL", "'https://auth.acme-corp.io/oauth'"), ("NODE_ENV", "'development'"),
                         ("SECRET_KEY", None), ("API_KEY", None), ("PASSWORD_MIN_LENGTH", "'12'"),
                         ("SESSION_SECRET_NAME", "'sid'")])
    op = rng.choice(["||", "??"])
    if q is None:
        return [f"const {env.lower()} = process.env.{env} {op} '", _neg(placeholder(rng), "placeholder_fallback"), "';"]
    return [f"const {env.lower()} = process.env.{env} {op} ", _neg(q, "config_fallback"), ";"]


def nested_json(rng):
    parent, child, qualifier = rng.choice([
        ("Jwt", "Key", "Issuer"), ("JwtSettings", "Secret", "Audience"), ("Authentication", "ClientSecret", "ClientId"),
        ("Stripe", "SecretKey", "PublishableKeyName"), ("secrets", "github", "region"), ("credentials", "sendgrid", "from"),
        ("Smtp", "Password", "Host"), ("apiKeys", "maps", "provider"), ("auth", "token", "endpoint")])
    secret = any_secret(rng)
    neutral = rng.choice(["acme-corp.io", "https://login.acme-corp.io", "eu-west-1", "orders-api", "60"])
    indent = rng.choice(["  ", "    ", "\t"])
    return [f'{{\n{indent}"{parent}": {{\n{indent}{indent}"{qualifier}": "', _neg(neutral, "nested_neutral"),
            f'",\n{indent}{indent}"{child}": "', _pos(secret, "nested_config", _secret_type(child)),
            f'"\n{indent}}}\n}}']


def nested_yaml(rng):
    parent, child = rng.choice([("jwt", "secret"), ("jwt", "key"), ("database", "password"), ("redis", "auth"),
                                ("secrets", "stripe"), ("oauth", "client_secret"), ("mail", "pass"),
                                ("spring.datasource", "password"), ("credentials", "api"), ("api", "key")])
    secret = any_secret(rng)
    quote = rng.choice(["", "", "'", '"'])
    return [f"{parent}:\n  host: ", _neg(rng.choice(["db.internal", "0.0.0.0", "localhost", "redis-master"]), "nested_neutral"),
            f"\n  ttl: 3600\n  {child}: {quote}", _pos(secret, "nested_config", _secret_type(child)), quote]


def nested_negative(rng):
    value = placeholder(rng) or "${SECRET}"
    return rng.choice([
        ['jwt:\n  secret: ', _neg(value, "placeholder_nested"), "\n  expires_in: ", _neg("7d", "duration")],
        ['{"Jwt": {"Key": "', _neg(value, "placeholder_nested"), '", "Issuer": "', _neg("https://acme-corp.io", "url"), '"}}'],
        ["secrets:\n  name: ", _neg("db-credentials", "resource_name"), "\n  mountPath: ", _neg("/etc/secrets", "path")],
        ['"auth": {"type": "', _neg("oauth2", "auth_type"), '", "tokenUrl": "', _neg("https://auth.acme-corp.io/token", "url"), '"}'],
    ])


def dotenv(rng):
    name = rng.choice(SECRET_ENV + ("POSTGRES_PASSWORD", "MYSQL_ROOT_PASSWORD", "RABBITMQ_DEFAULT_PASS", "REDIS_PASSWORD",
                                    "SECRET_KEY_BASE", "NEXTAUTH_SECRET", "WEBHOOK_SECRET"))
    value = any_secret(rng)
    quote = rng.choice(["", "", '"', "'"])
    comment = rng.choice(["", "", "  # rotated quarterly"])
    return [f"{rng.choice(['', '', 'export '])}{name}={quote}", _pos(value, "env_file", _secret_type(name)), quote + comment]


def compose(rng):
    name = rng.choice(("POSTGRES_PASSWORD", "MYSQL_ROOT_PASSWORD", "MYSQL_PASSWORD", "MONGO_INITDB_ROOT_PASSWORD",
                       "RABBITMQ_DEFAULT_PASS", "REDIS_PASSWORD", "MINIO_ROOT_PASSWORD", "JWT_SECRET", "SECRET_KEY"))
    value = any_secret(rng)
    if rng.random() < 0.5:
        return ["services:\n  db:\n    image: postgres:16\n    environment:\n      - POSTGRES_USER=app\n      - ",
                f"{name}=", _pos(value, "compose", _secret_type(name)), "\n      - PGDATA=/var/lib/postgresql/data"]
    quote = rng.choice(["", '"', "'"])
    return ["    environment:\n      POSTGRES_DB: orders\n      ", f"{name}: {quote}",
            _pos(value, "compose", _secret_type(name)), quote]


def kubernetes(rng):
    value = any_secret(rng)
    key = rng.choice(["password", "api-token", "DATABASE_PASSWORD", "client-secret", "SECRET_KEY", "token"])
    if rng.random() < 0.5:
        return ["apiVersion: v1\nkind: Secret\nmetadata:\n  name: ", _neg("app-secrets", "resource_name"),
                f"\ntype: Opaque\nstringData:\n  {key}: ", _pos(value, "kubernetes", _secret_type(key))]
    return ["        env:\n          - name: ", _neg(key.upper().replace("-", "_"), "env_name"),
            "\n            value: ", _pos(value, "kubernetes", _secret_type(key))]


def env_negative(rng):
    return rng.choice([
        ["DB_PASSWORD=", _neg(rng.choice(["${DB_PASSWORD}", "changeme", "<password>", "$POSTGRES_PASSWORD"]), "placeholder_env")],
        ["TOKEN_EXPIRY=", _neg("3600", "number")], ["PASSWORD_MIN_LENGTH=", _neg("12", "number")],
        ["AUTH_PROVIDER=", _neg("github", "word")], ["APP_VERSION=", _neg("4.17.2.301", "version")],
        ["SECRET_NAME=", _neg("prod/orders/db", "path")],
        ["      - POSTGRES_PASSWORD_FILE=", _neg("/run/secrets/db_password", "path")],
        ["        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef:\n              name: ",
         _neg("db-credentials", "resource_name")],
    ])


def command_line(rng):
    pw = human_password(rng).replace("'", "") if rng.random() < 0.7 else rand_text(rng, ALNUM, 14)
    user, host = rng.choice(["root", "admin", "deploy", "app"]), rng.choice(["db.acme-corp.io", "10.0.4.12", "localhost"])
    shape = rng.randrange(8)
    if shape == 0:
        return [f"mysql -u{user} -p", _pos(pw.replace(" ", ""), "command_line", PASSWORD), f" -h {host} orders"]
    if shape == 1:
        return [f"mysqldump -u {user} -p'", _pos(pw, "command_line", PASSWORD), "' orders > dump.sql"]
    if shape == 2:
        return [f"{rng.choice(['mysql', 'pg_dump', 'mongo', 'app-cli'])} --user={user} --password=",
                _pos(pw.replace(" ", "").replace(";", ""), "command_line", PASSWORD), f" --host={host}"]
    if shape == 3:
        return ["sshpass -p '", _pos(pw, "command_line", PASSWORD), f"' ssh {user}@{host}"]
    if shape == 4:
        return ["PGPASSWORD=", _pos(pw.replace(" ", "").replace(";", "").replace("&", ""), "command_line", PASSWORD),
                f" psql -h {host} -U {user} orders"]
    if shape == 5:
        return [f"curl -u {user}:", _pos(pw.replace(" ", "").replace("'", ""), "command_line", PASSWORD),
                " https://api.acme-corp.io/v2/export"]
    if shape == 6:
        return ["redis-cli -h cache -a '", _pos(pw, "command_line", PASSWORD), "' ping"]
    return [f"docker login -u {user} -p ", _pos(pw.replace(" ", "").replace(";", "").replace("&", ""), "command_line",
                                             PASSWORD), " registry.acme-corp.io"]


def command_negative(rng):
    return [_neg(rng.choice([
        "mkdir -p build/out", "mysql -u root -p orders", "mysql -p$MYSQL_PWD orders", "tar -xzpf dist.tgz",
        "psql --password -U app", "PGPASSWORD=$PGPASS psql -h db", 'sshpass -p "$SSHPASS" ssh deploy@host',
        'curl -u "$API_USER:$API_TOKEN" https://api.acme-corp.io', "mysqldump --password=${DB_PASS} orders",
        "cp -pr src dst", "ssh -p 2222 deploy@host", "docker login -u ci -p \"$CI_TOKEN\" registry",
        "grep -P '\\d+' log.txt", "pip install -r requirements.txt",
    ]), "command")]


SCHEMES = ("postgresql", "postgres", "mysql", "mariadb", "mongodb", "mongodb+srv", "redis", "rediss", "amqp", "amqps",
           "ftp", "sftp", "smtp", "smtps", "ldap", "ldaps", "mssql", "sqlserver", "postgresql+psycopg2",
           "mysql+pymysql", "oracle", "clickhouse", "nats", "kafka", "https", "git+https", "cockroachdb", "neo4j+s")


def connection_string(rng):
    scheme, user = rng.choice(SCHEMES), rng.choice(["app", "admin", "svc-orders", "root", "deploy_bot", ""])
    pw = human_password(rng).replace("'", "").replace('"', "") if rng.random() < 0.6 else generic_secret(rng)
    pw = pw.replace(" ", "").replace("/", "").replace("?", "").replace("#", "")
    host = rng.choice(["db.acme-corp.io:5432", "cluster0.ab1cd.mongodb.net", "mq.acme-corp.io", "10.0.3.7:6379",
                       "smtp.mailbox.org:587"])
    if rng.random() < 0.15:  # JDBC and ADO.NET keep the password in parameters
        return rng.choice([
            [f"jdbc:{scheme.split('+')[0]}://{host}/orders?user={user or 'app'}&password=",
             _pos(pw.replace("&", ""), "connection_string", PASSWORD), "&ssl=true"],
            [f"Server={host};Database=orders;User Id={user or 'sa'};Password=",
             _pos(pw.replace(";", ""), "connection_string", PASSWORD), ";Encrypt=true;"]])
    q = rng.choice(['"', "'", ""])
    return [f"url = {q}{scheme}://{user}:", _pos(pw, "connection_string", PASSWORD), f"@{host}/orders{q}"]


def connection_negative(rng):
    return [_neg(rng.choice([
        "postgres://app:${DB_PASSWORD}@db:5432/orders", "mongodb://localhost:27017/test", "redis://:@cache:6379/0",
        "https://deploy@git.acme-corp.io/repo.git", "amqp://guest:guest@localhost:5672/", "postgresql://{user}:{password}@{host}/{db}",
        "mysql://user:password@localhost/db", "smtp://<user>:<password>@smtp.acme-corp.io",
        "git@github.com:acme/orders.git", "http://localhost:8080/api?token=", "postgres://postgres:postgres@localhost/app",
    ]), "connection_template")]


PROSE_NAMES = ("api secret", "admin password", "default password", "root password", "API key", "client secret",
               "access token", "shared secret", "wifi password", "master key", "passphrase", "staging token")


def prose(rng):
    name, value = rng.choice(PROSE_NAMES), any_secret(rng).replace("`", "")
    type_ = PASSWORD if "pass" in name else KEY
    lead = rng.choice(["# ", "// ", "", "-- ", " * "])
    template = rng.choice([
        ("the {n} is ", "", " (do not share)"), ("The {n} is `", "`", "."), ("{N}: ", "", ""),
        ("use the {n} ", " to log in", ""), ("NOTE: {n} for staging is ", "", ""),
        ("{N} = ", "", "  -- temporary"), ("set the {n} to \"", "\"", " before deploying")])
    head = template[0].replace("{n}", name).replace("{N}", name[0].upper() + name[1:])
    return [lead + head, _pos(value, "prose", type_), template[1] + template[2]]


def prose_negative(rng):
    return [_neg(rng.choice([
        "the api secret is stored in Vault", "The password is never logged.", "the access token is valid for 30 days",
        "Password: required", "the default password is empty", "API key: see the dashboard",
        "the client secret is issued by the identity provider", "Token: optional", "the root password is changed on first boot",
        "passphrase is read from stdin", "The secret is rotated every 90 days.",
    ]), "prose_negative")]


def _prefixed(rng) -> tuple[str, str]:
    return rng.choice([
        ("pypi_token", "pypi-AgEIcHlwaS5vcmc" + rand_text(rng, ALNUM + "-_", rng.randrange(60, 160))),
        ("npm_token", "npm_" + rand_text(rng, ALNUM, 36)),
        ("huggingface_token", "hf_" + rand_text(rng, ALNUM, 34)),
        ("gitlab_token", rng.choice(["glpat-", "gldt-", "glrt-"]) + rand_text(rng, ALNUM + "_-", 20)),
        ("anthropic_key", "sk-ant-api03-" + rand_text(rng, ALNUM + "-_", 93) + "AA"),
        ("groq_key", "gsk_" + rand_text(rng, ALNUM, 52)),
        ("replicate_token", "r8_" + rand_text(rng, ALNUM, 37)),
        ("sentry_token", "sntrys_" + rand_text(rng, ALNUM, 60)),
        ("figma_token", "figd_" + rand_text(rng, ALNUM + "-_", 40)),
        ("rubygems_key", "rubygems_" + rand_text(rng, HEX, 48)),
        ("telegram_bot_token", f"{rng.randrange(10**8, 10**10)}:AA" + rand_text(rng, ALNUM + "_-", 33)),
        ("atlassian_token", "ATATT3xFfGF0" + rand_text(rng, ALNUM + "_-", 170) + "=" + rand_text(rng, HEX.upper(), 8)),
        ("doppler_token", "dp.pt." + rand_text(rng, ALNUM, 43)),
        ("twilio_key", "SK" + rand_text(rng, HEX, 32)),
    ])


PREFIXED_KINDS = frozenset({
    "pypi_token", "npm_token", "huggingface_token", "anthropic_key", "groq_key", "replicate_token", "sentry_token",
    "figma_token", "rubygems_key", "telegram_bot_token", "atlassian_token", "doppler_token", "twilio_key"})


def prefixed_token(rng):
    kind, value = _prefixed(rng)
    return rng.choice([
        [f"{rng.choice(['TOKEN', 'token', 'PUBLISH', 'CI_AUTH', 'config'])} = \"", _pos(value, kind), '"'],
        ["//registry.npmjs.org/:_authToken=", _pos(value, kind)],
        ["# use ", _pos(value, kind), " for the release job"],
        ["login(", _pos(value, kind), ")"],
    ])


def prefixed_negative(rng):
    return [_neg(rng.choice([
        "hf_hub_download", "npm_config_cache", "pypi-upload-action", "glpat-xxxxxxxxxxxxxxxxxxxx", "npm_package_version",
        "hf_token_path", "sk-ant-...", "gsk_example_key", "r8_model_version", "figd_<your-token>", "SKIP_BUILD",
        "pypi-token-here", "hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "npm_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    ]), "prefix_lookalike")]


def ipv6_sentence(rng):
    groups = [f"{rng.randrange(0x2001, 0x2c00):x}"] + [f"{rng.randrange(1, 0xffff):x}" for _ in range(rng.randrange(2, 4))]
    address = ":".join(groups) + "::" + f"{rng.randrange(1, 0xffff):x}"
    return [rng.choice(["The resolver listens on ", "Traffic comes from ", "peer is "]), _pos(address, "ipv6", IP_ADDRESS),
            rng.choice([".", ". Restart after changes.", ", then", "!"])]


def version_negative(rng):
    a, b, c, d = rng.randrange(1, 40), rng.randrange(16, 250), rng.randrange(0, 250), rng.randrange(16, 250)
    value = f"{a}.{b}.{c}.{d}"
    return rng.choice([
        ["Release ", _neg(value, "version"), " fixes the crash."],
        ["upgraded from ", _neg(f"{a}.{b}.{c}", "version"), " to ", _neg(value, "version")],
        ['[assembly: AssemblyFileVersion("', _neg(value, "version"), '")]'],
        ['"Microsoft.Extensions.Http": "', _neg(value, "version"), '",'],
        ["v", _neg(value, "version"), " (2024-05-01)"],
        ["* ", _neg(value, "version"), " - ", _neg(f"{a}.{b}.{c + 1}", "version"), " - bugfixes"],
        ["tag: ", _neg(value, "version")],
        ["ver. ", _neg(value, "version")],
    ])


SNIPPETS: dict[str, Snippet] = {
    "js_fallback": js_fallback, "nested_json": nested_json, "nested_yaml": nested_yaml, "dotenv": dotenv,
    "compose": compose, "kubernetes": kubernetes, "command_line": command_line, "connection_string_scheme": connection_string,
    "prose": prose, "prefixed_token": prefixed_token, "ipv6_sentence": ipv6_sentence,
}
NEGATIVE_SNIPPETS: dict[str, Snippet] = {
    "js_fallback_negative": js_fallback_negative, "nested_negative": nested_negative, "env_negative": env_negative,
    "command_negative": command_negative, "connection_negative": connection_negative, "prose_negative": prose_negative,
    "prefixed_negative": prefixed_negative, "version_negative": version_negative,
}

"""Secrets found by context, one shape at a time, each beside the hard negatives of the same shape;
redaction replaces the whole value and leaves no part of it."""

import pytest

from quarry.curation.pii import PiiConfig, detect, redact

# (shape, text, planted value): the value must be found whole and redaction must remove all of it.
POSITIVES = [
    ("js_or", "const secret = process.env.JWT_SECRET || 'k3y-for-dev-2931';", "k3y-for-dev-2931"),
    ("js_nullish", 'export const apiKey = process.env.STRIPE_KEY ?? "rk_9f8a7b6c5d4e3f2a1b0c";', "rk_9f8a7b6c5d4e3f2a1b0c"),
    ("js_target_names_it", "  password: process.env.PGPASS || `Winter2024!`,", "Winter2024!"),
    ("python_getenv", 'SECRET_KEY = os.getenv("SECRET_KEY", "river.falcon.42")', "river.falcon.42"),
    ("python_environ_get", "token = os.environ.get('BOT_TOKEN', 'copper-orbit-9931')", "copper-orbit-9931"),
    ("json_nested", '{"Jwt": {"Issuer": "https://acme-corp.io", "Key": "Zq8#mLp2$vXe9!Tr"}}', "Zq8#mLp2$vXe9!Tr"),
    ("json_multiline", '{\n  "Jwt": {\n    "Key": "maple.cedar.77",\n    "Audience": "api"\n  }\n}', "maple.cedar.77"),
    ("yaml_block", "jwt:\n  issuer: acme\n  key: Summer2024!\n  ttl: 3600\n", "Summer2024!"),
    ("yaml_secrets_container", "secrets:\n  payments: s3cr3t-value-for-stripe\n", "s3cr3t-value-for-stripe"),
    ("k8s_secret_stringdata", "apiVersion: v1\nkind: Secret\nstringData:\n  api-token: quartz-ember-4471\n",
     "quartz-ember-4471"),
    ("k8s_env_value", "        env:\n          - name: DB_PASSWORD\n            value: Velvet#2291\n", "Velvet#2291"),
    ("dotenv_punctuation", "DB_PASSWORD=ab;cd&ef(12)\n", "ab;cd&ef(12)"),
    ("dotenv_dotted_words", "SESSION_SECRET=blue.river.42  # rotated\n", "blue.river.42"),
    ("compose_list", "    environment:\n      - POSTGRES_PASSWORD=p@ss.w0rd!x\n", "p@ss.w0rd!x"),
    ("compose_map", "    environment:\n      MYSQL_ROOT_PASSWORD: 'Tundra#4549'\n", "Tundra#4549"),
    ("mysql_glued", "mysql -uroot -pc$o!ywu3c7 -h db orders", "c$o!ywu3c7"),
    ("mysqldump_quoted", "mysqldump -u deploy -p'*~:y^Oc$rws' orders > dump.sql", "*~:y^Oc$rws"),
    ("password_flag", "pg_dump --user=app --password=Cedar@8812 --host=db", "Cedar@8812"),
    ("password_flag_space", "app-cli --password 'glacier-thunder-311' sync", "glacier-thunder-311"),
    ("sshpass", "sshpass -p 'Monday2023$' ssh deploy@db.acme-corp.io", "Monday2023$"),
    ("pgpassword", "PGPASSWORD=orbit_77421 psql -h db -U app orders", "orbit_77421"),
    ("curl_user", "curl -u admin:S3cure!Pass https://api.acme-corp.io/v2", "S3cure!Pass"),
    ("redis_cli", "redis-cli -h cache -a 'Nimbus@4410' ping", "Nimbus@4410"),
    ("docker_login", "docker login -u ci -p Ember-8812-x registry.acme-corp.io", "Ember-8812-x"),
    ("url_at_in_password", "url = 'rediss://svc:Copper@681@cache.acme-corp.io:6380/0'", "Copper@681"),
    ("url_hash_in_password", 'DATABASE_URL="amqp://admin:jPh0hRW#1LM2@mq.acme-corp.io:5672/"', "jPh0hRW#1LM2"),
    ("url_mongodb_srv", "mongodb+srv://app:Rogm99xgqH@cluster0.ab1cd.mongodb.net/orders", "Rogm99xgqH"),
    ("url_sqlalchemy", "postgresql+psycopg2://orders:velvet-99-lantern@db:5432/orders", "velvet-99-lantern"),
    ("url_empty_user", "redis://:Harbor2291x@cache:6379/0", "Harbor2291x"),
    ("jdbc_params", "jdbc:mysql://db:3306/app?user=root&password=s3cret99x&ssl=true", "s3cret99x"),
    ("query_semicolon", "jdbc:mysql://db/app?user=root&password=ah9E6r;c4yF&ssl=true", "ah9E6r;c4yF"),
    ("ado_net", "Server=db;Database=orders;User Id=sa;Password=Lantern#7781;Encrypt=true;", "Lantern#7781"),
    ("js_config_fallback", 'const jwtSecret = config.jwtSecret ?? "Zq8#mLp2$vXe9!Tr";', "Zq8#mLp2$vXe9!Tr"),
    ("shell_default", "jwt_secret: ${JWT_SECRET:-fallback-9921-lantern}\n", "fallback-9921-lantern"),
    ("php_define", "define('DB_PASSWORD', 'Harbor2291x');", "Harbor2291x"),
    ("dotnet_app_setting", '<add key="SmtpPassword" value="Velvet#2291" />', "Velvet#2291"),
    ("requests_auth_tuple", "requests.get(url, auth=('deploy', 'Quartz#8812'))", "Quartz#8812"),
    ("openssl_passout", "openssl pkcs12 -export -out cert.p12 -passout pass:Willow#3390", "Willow#3390"),
    ("keytool_storepass", "keytool -importcert -keystore ks.jks -storepass Saffron_4471", "Saffron_4471"),
    ("sql_identified_by", "CREATE USER app IDENTIFIED BY 'Ember#2024x';", "Ember#2024x"),
    ("sql_with_password", "ALTER USER postgres WITH PASSWORD 'River_5512';", "River_5512"),
    ("netrc", "machine api.acme-corp.io login deploy password Tundra_8831\n", "Tundra_8831"),
    ("prose_quoted", "login with user `admin` and password `P4ssw0rd-Prod`", "P4ssw0rd-Prod"),
    ("prose_is", "# the api secret is Kx6NBwy4JFzAm8wM-sY (do not share)", "Kx6NBwy4JFzAm8wM-sY"),
    ("prose_backticks", "The admin password is `Autumn2019#`.", "Autumn2019#"),
    ("prose_for", "// NOTE: staging token for staging is Monday2025#", "Monday2025#"),
    ("prose_colon", "Password: hunter2-x9\n", "hunter2-x9"),
    ("prose_use", "use the access token aZ3-99xq-PLm1 to log in", "aZ3-99xq-PLm1"),
    ("pypi", 'TOKEN = "pypi-AgEIcHlwaS5vcmcCJDU3YjFkOTIxLTgyNjMtNDkzMy1hMjk5LWQ3NWE3OTQwZmM1ZgACKlszLCJh"',
     "pypi-AgEIcHlwaS5vcmcCJDU3YjFkOTIxLTgyNjMtNDkzMy1hMjk5LWQ3NWE3OTQwZmM1ZgACKlszLCJh"),
    ("npm", "//registry.npmjs.org/:_authToken=npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
     "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    ("huggingface", "login(hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567890)", "hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567890"),
    ("gitlab", "# use glpat-Xy7_kQ2mZp9LwR4tBv6N for the release job", "glpat-Xy7_kQ2mZp9LwR4tBv6N"),
    ("groq", 'GROQ = "gsk_' + "aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7sU9wY1bD3fH5j" + '"',
     "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"),
    ("telegram", "bot = Bot('7012345678:AAHk3Jx9_qLmN2pR5tV8wY1zB4cE7gH0jKs')",
     "7012345678:AAHk3Jx9_qLmN2pR5tV8wY1zB4cE7gH0jKs"),
]


@pytest.mark.parametrize("shape,text,value", POSITIVES, ids=[p[0] for p in POSITIVES])
def test_found_whole_and_redacted_without_a_trace(shape, text, value):
    start = text.index(value)
    spans = [(f.start, f.end) for f in detect(text)]
    assert any(s <= start and start + len(value) <= e for s, e in spans), (shape, spans)
    redacted, counts = redact(text, PiiConfig(ip_replacement="placeholder"))
    assert sum(counts.values()) >= 1
    for part in _pieces(value):
        assert part not in redacted, (shape, part, redacted)
    assert redact(redacted)[0] == redacted  # idempotent


def _pieces(value: str) -> list[str]:
    """Fragments of the value no redaction may leave: its halves and its alphanumeric runs of 4+."""
    half = len(value) // 2
    runs = "".join(c if c.isalnum() else " " for c in value).split()
    return [value[:half + 1], value[half:]] + [r for r in runs if len(r) >= 4]


# Same shapes, nothing secret in them: placeholders, variables, durations, URLs, versions, hashes.
HARD_NEGATIVES = {
    "js": ["const port = process.env.PORT || '3000';", "const ttl = process.env.JWT_EXPIRES_IN || '7d';",
           "const s = process.env.SESSION_SECRET || 'changeme';", "const k = process.env.API_KEY ?? '<your-key>';",
           "const u = process.env.AUTH_URL || 'https://auth.acme-corp.io/oauth';",
           "const t = process.env.TOKEN ?? process.env.GITHUB_TOKEN ?? '';",
           "const secret = process.env.JWT_SECRET || '${JWT_SECRET}';"],
    "python": ['SECRET_KEY = os.getenv("SECRET_KEY", "")', 'name = os.getenv("SECRET_NAME", "db-creds-v2")',
               "token = os.environ.get('TOKEN_TYPE', 'bearer')"],
    "nested": ['{"Jwt": {"Issuer": "https://acme-corp.io", "Key": "${JWT_KEY}"}}',
               "jwt:\n  secret: xxxxxxxxxxxx\n  expires_in: 7d\n",
               "secrets:\n  name: db-credentials-v2\n  mountPath: /etc/secrets\n",
               '"auth": {"type": "oauth2", "tokenUrl": "https://auth.acme-corp.io/token"}',
               "cache:\n  key: node-modules-v2\n",
               "apiVersion: v1\nkind: Secret\nstringData:\n  password: '{{ .Values.db.password }}'\n",
               "        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef:\n              name: db-creds\n",
               "  commit: 9c8546abfb4d00ce5cee514281f9fb23a1e8fdb8\n"],
    "env": ["DB_PASSWORD=${DB_PASSWORD}\n", "SECRET_KEY=changeme\n", "API_KEY=<your-key>\n", "TOKEN_EXPIRY=3600\n",
            "PASSWORD_MIN_LENGTH=12\n", "AUTH_PROVIDER=github\n", "APP_VERSION=4.17.2.301\n",
            "      - POSTGRES_PASSWORD_FILE=/run/secrets/db_password\n", "SECRET_NAME=prod/orders/db\n",
            "REQUEST_ID=123e4567-e89b-12d3-a456-426614174000\n",
            "secret: projects/my-project/secrets/db-password/versions/latest\n", "password: ${DB_PASSWORD:-postgres}\n",
            "password_hash: $2b$12$KIXQJ1x4sYq8tZ1O2l3bUeWv1e0k9fG7hJ6kL5mN4oP3qR2sT1uV0\n",
            "private_key_path: ~/.ssh/id_rsa\n", "secret_version: v1.2.3\n", "password: !ENV ${DB_PASS}\n"],
    "commands": ["mkdir -p build/out", "mysql -u root -p orders", "mysql -p$MYSQL_PWD orders", "tar -xzpf dist.tgz",
                 "psql --password -U app", "PGPASSWORD=$PGPASS psql -h db", 'sshpass -p "$SSHPASS" ssh deploy@host',
                 'curl -u "$API_USER:$API_TOKEN" https://api.acme-corp.io', "mysqldump --password=${DB_PASS} orders",
                 "ssh -p 2222 deploy@host", 'docker login -u ci -p "$CI_TOKEN" registry', "cp -pr src dst",
                 "app-cli --password PASSWORD", "app-cli --token <token>", "ALTER USER app WITH PASSWORD NULL;",
                 "openssl rsa -in key.pem -passin env:KEY_PASS", "keytool -list -storepass $STORE_PASS",
                 "CREATE USER app IDENTIFIED BY '${DB_PASSWORD}';", "requests.get(url, auth=(user, password))"],
    "urls": ["postgres://app:${DB_PASSWORD}@db:5432/orders", "mongodb://localhost:27017/test",
             "https://deploy@git.acme-corp.io/repo.git", "amqp://guest:guest@localhost:5672/",
             "postgresql://{user}:{password}@{host}/{db}", "mysql://user:password@localhost/db",
             "smtp://<user>:<password>@smtp.acme-corp.io", "postgres://postgres:postgres@localhost/app"],
    "prose": ["the api secret is stored in Vault", "The password is never logged.",
              "the access token is valid for 30 days", "Password: required", "the default password is empty",
              "API key: see the dashboard", "The secret is rotated every 90 days.",
              "    token: EventLoopToken | None = None,", "#   mailersend://APIKey:FromEmail/ToEmail1/ToEmail2",
              "#     token = 1*tchar", "                 pad_token=self.eod_token,"],
    "prefixes": ["hf_hub_download", "npm_config_cache", "pypi-upload-action", "glpat-xxxxxxxxxxxxxxxxxxxx",
                 "npm_package_version", "hf_token_path", "hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "SKIP_BUILD",
                 "npm_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"],
    "hashes_and_ids": ['sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
                       'request_id = "123e4567-e89b-12d3-a456-426614174000"', "contact jane@example.com"],
}


@pytest.mark.parametrize("text", [t for texts in HARD_NEGATIVES.values() for t in texts])
def test_hard_negative_of_the_same_shape_is_not_reported(text):
    assert detect(text) == []


VERSIONS = ["Release 10.24.3.112 fixes the crash.", "upgraded from 6.63.90 to 6.63.90.204",
            '[assembly: AssemblyFileVersion("3.141.59.26")]', '"Microsoft.Extensions.Http": "6.23.26.219",',
            "v4.19.200.6 (2024-05-01)", "* 7.139.2.211 - 7.139.3 - bugfixes", "tag: 38.71.201.58", "ver. 7.220.230.17",
            "firmware 21.33.164.90"]


@pytest.mark.parametrize("text", VERSIONS)
def test_dotted_versions_are_not_ip_addresses(text):
    assert detect(text) == []


@pytest.mark.parametrize("text,address", [
    ("The resolver listens on 2606:4700:4700::1111.", "2606:4700:4700::1111"),
    ("peer is 2a00:1450:4001:80b::200e. Restart after changes.", "2a00:1450:4001:80b::200e"),
    ("Traffic comes from 2001:4860:4860::8888!", "2001:4860:4860::8888"),
    ("A server at 93.184.216.34.", "93.184.216.34"),
])
def test_ip_address_at_the_end_of_a_sentence(text, address):
    [finding] = detect(text)
    assert text[finding.start:finding.end] == address and finding.type == "IP_ADDRESS"


def test_ipv6_documentation_range_and_code_are_not_addresses():
    assert detect("see 2001:db8::1. Also std::vector and a::b::c.") == []


def test_redaction_is_typed():
    text = ("PGPASSWORD=orbit_77421 psql -h db\nconst s = process.env.JWT_SECRET || 'k3y-for-dev-2931';\n"
            "login(hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567890)\n")
    redacted, counts = redact(text)
    assert redacted == ("PGPASSWORD=<PASSWORD> psql -h db\nconst s = process.env.JWT_SECRET || '<KEY>';\n"
                        "login(<KEY>)\n")
    assert counts == {"PASSWORD": 1, "KEY": 2}

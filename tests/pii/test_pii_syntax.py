"""A value assigned to a secret-named key is a secret in any syntax, whatever its shape (dotted
words, '&', '#'); a reference, a placeholder or a code expression in the same places is not."""

import pytest

from quarry.curation.pii import detect

VALUES = ["river.falcon42", "ab&cd123", "Cedar&Maple#7", "tundra.ember.9", "x9&k2;p0=q", "Orbit@2291", "maple&cedar",
          "k7Yp2mQ9wLz3"]
SYNTAXES = {
    "yaml": "db:\n  host: db.internal\n  password: {v}\n",
    "yaml_double_quoted": 'db:\n  password: "{v}"\n',
    "compose_map": "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: {v}\n",
    "compose_list": "services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD={v}\n",
    "compose_list_quoted": '    environment:\n      - "MYSQL_ROOT_PASSWORD={v}"\n',
    "kubernetes_secret": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n  db-password: {v}\n",
    "kubernetes_env": "      env:\n        - name: DB_PASSWORD\n          value: {v}\n",
    "kubernetes_env_quoted": '      env:\n        - name: API_TOKEN\n          value: "{v}"\n',
    "helm_values": "postgresql:\n  auth:\n    password: {v}\n",
    "ansible_vars": "- hosts: all\n  vars:\n    mysql_root_password: {v}\n",
    "rails_database_yml": "production:\n  adapter: postgresql\n  password: {v}\n",
    "django_databases": ("DATABASES = {{\n    'default': {{\n        'ENGINE': 'django.db.backends.postgresql',\n"
                         "        'PASSWORD': '{v}',\n        'HOST': 'db',\n    }}\n}}\n"),
    "django_email": "EMAIL_HOST_USER = 'app'\nEMAIL_HOST_PASSWORD = '{v}'\n",
    "django_secret_key": "SECRET_KEY = '{v}'\n",
    "dotenv": "DB_PASSWORD={v}\n",
    "dotenv_secret": "JWT_SECRET={v}\n",
    "shell_export": "export DB_PASSWORD='{v}'\n",
    "json": '{{\n  "user": "app",\n  "password": "{v}"\n}}\n',
    "toml": '[database]\nuser = "app"\npassword = "{v}"\n',
    "ini": "[database]\nuser = app\npassword = {v}\n",
    "ini_colon": "[client]\nuser: app\npassword: {v}\n",
    "properties": "spring.datasource.username=app\nspring.datasource.password={v}\n",
    "properties_spaced": "db.user = app\ndb.password = {v}\n",
    "xml_attribute": '<dataSource user="app" password="{v}" url="jdbc:x"/>\n',
    "xml_name_value": '<property name="password" value="{v}"/>\n',
    "xml_element": "<password>{v}</password>\n",
    "java_set_property": 'props.setProperty("password", "{v}");\n',
    "yaml_api_token": "slack:\n  api_token: {v}\n",
    "yaml_client_secret": "oauth:\n  client_secret: {v}\n",
    "python_keyword": "conn = connect(host='db', user='app', password='{v}')\n",
    "go_struct": 'cfg := Config{{\n\tUser: "app",\n\tPassword: "{v}",\n}}\n',
    "hcl": 'resource "x" "y" {{\n  password = "{v}"\n}}\n',
    "dockerfile_env": "FROM python:3.11-slim\nENV DB_PASSWORD={v}\n",
    "dockerfile_arg": "ARG DEPLOY_TOKEN={v}\nRUN ./deploy.sh\n",
    "npmrc": "registry=https://npm.example.com/\n//npm.example.com/:_authToken={v}\n",
    "yaml_anchor": "db:\n  password: &db_password {v}\nreplica:\n  password: *db_password\n",
    # a config held in a string literal, its line breaks escaped
    "string_held_dotenv": 'ENV = "DB_USER=app\\nDB_PASSWORD={v}\\nDEBUG=1"\n',
    "string_held_dotenv_last_line": 'ENV = "DB_USER=app\\nDB_PASSWORD={v}"\n',
    "string_held_crlf": 'conf = "user=app\\r\\njwt_secret={v}\\r\\n";\n',
    "json_held_yaml": '{{"values": "db:\\n  host: db\\n  password: {v}\\n"}}\n',
    # a name and its value side by side, no operator between them
    "edn_keyword": '{{:db-user "app"\n :db-password "{v}"\n :port 5432}}\n',
    "clojure_def": '(def ^:private smtp-password "{v}")\n',
    "lisp_earmuffs": '(defparameter *api-token* "{v}")\n',
    "elisp_setq": '(setq erc-password "{v}")\n',
    "dockerfile_legacy_env": "FROM alpine:3.20\nENV ADMIN_PASSWORD {v}\nRUN ./setup.sh\n",
    "c_define": '#ifndef CONFIG_H\n#define MQTT_PASSWORD "{v}"\n#endif\n',
    "gradle_signing": ('android {{\n  signingConfigs {{\n    release {{\n      storeFile file("release.jks")\n'
                       "      storePassword '{v}'\n    }}\n  }}\n}}\n"),
    "rust_const": "const DB_PASSWORD: &'static str = \"{v}\";\n",
    "systemd_environment": '[Service]\nEnvironment="DB_PASSWORD={v}"\n',
    "config_set": 'npm config set //registry.example.com/:_authToken "{v}"\n',
    "spring_placeholder_default": '@Value("${{mail.smtp.password:{v}}}")\nprivate String smtpPassword;\n',
    "erlang_tuple": '[{{db, [{{user, "app"}}, {{password, "{v}"}}]}}].\n',
    "elixir_tuple": 'config :billing, [{{:api_key, "{v}"}}]\n',
    "xml_entry_key": '<properties>\n  <entry key="jdbc.password">{v}</entry>\n</properties>\n',
    "python_triple_quoted": "SMTP_PASSWORD = '''{v}'''\n",
    "curl_header": "curl -H 'X-Auth-Token: {v}' https://deploy.example.com/hooks\n",
    "apache_setenv": "<VirtualHost *:80>\n  SetEnv DB_PASSWORD {v}\n</VirtualHost>\n",
    "nginx_fastcgi_param": 'location ~ \\.php$ {{\n  fastcgi_param DB_PASSWORD "{v}";\n}}\n',
    "php_fpm_pool": "[www]\nuser = www-data\nenv[DB_PASSWORD] = {v}\n",
    "terraform_variable": ('variable "db_password" {{\n  description = "Password of the primary database"\n'
                           '  type        = string\n  default     = "{v}"\n  sensitive   = true\n}}\n'),
    # a string's prefix before its quote
    "python_bytes": "SECRET_KEY = b'{v}'\n",
    "python_raw": 'api_token = r"{v}"\n',
    "csharp_verbatim": 'var dbPassword = @"{v}";\n',
    "swift_raw": 'let apiToken = #"{v}"#\n',
    # a Makefile's variables: the rest of the line, a literal
    "make_conditional": "DEPLOY_TOKEN ?= {v}\n",
    "make_simple": "DEPLOY_TOKEN := {v}\n",
    "yaml_core_tag": "deploy:\n  api_token: !!str '{v}'\n",
    "csh_setenv": "setenv DB_PASSWORD '{v}'\n",
    "fish_set": "set -gx API_TOKEN '{v}'\n",
    "java_system_property": 'System.setProperty("mail.smtp-password", "{v}");\n',
    # an element named for a credential is judged as the assignment of its name would be
    "xml_client_secret": "<oauth>\n  <clientSecret>{v}</clientSecret>\n</oauth>\n",
    # a setter's or builder's one string, a credentials object's parts (the password last)
    "java_setter": 'dataSource.setPassword("{v}");\n',
    "builder_method": 'Client client = Client.builder().apiKey("{v}").build();\n',
    "sbt_credentials": 'credentials += Credentials("Sonatype Nexus", "nexus.example.com", "deploy", "{v}")\n',
    "basic_credentials": 'provider.setCredentials(AuthScope.ANY, new UsernamePasswordCredentials("admin", "{v}"));\n',
    "setter_in_its_class": '    setApiToken("{v}");\n',
    "kotlin_apply_builder": 'val client = Client().apply {{ withToken("{v}") }}\n',
    "python_keyring": 'keyring.set_password("deploy-service", "ci", "{v}")\n',
    # a store's write of a value under a credential's name
    "browser_local_storage": 'localStorage.setItem("access_token", "{v}");\n',
    "android_shared_preferences": 'editor.putString("auth_token", "{v}");\n',
    "cache_set": 'cache.set("session_secret", "{v}")\n',
    "store_save": 'store.save("github_token", "{v}")\n',
    "java_double_brace_put": 'Map<String, String> env = new HashMap<>() {{{{ put("deploy_secret", "{v}"); }}}};\n',
    "kotlin_apply_put": 'val props = Properties().apply {{\n    put("api_token", "{v}")\n}}\n',
    # a symbol naming the string after it
    "capistrano_set": 'set :repo_password, "{v}"\n',
    "elixir_put_env": 'Application.put_env(:my_app, :api_key, "{v}")\n',
    # a name and a value as two fields of one entry
    "ecs_environment": '"environment": [\n  {{\n    "name": "DB_PASSWORD",\n    "value": "{v}"\n  }}\n]\n',
    "hadoop_property": ("<configuration>\n  <property>\n    <name>fs.s3a.secret.key</name>\n    <value>{v}</value>\n"
                        "  </property>\n</configuration>\n"),
    "dotnet_setting": '<setting name="SmtpPassword" serializeAs="String">\n  <value>{v}</value>\n</setting>\n',
    # a name, blanks, then a string ending its line
    "ruby_dsl": "  api_token '{v}'\n",
    "tcl_set": 'set db_password "{v}"\n',
    "gh_secret_set": 'gh secret set DEPLOY_TOKEN "{v}"\n',
    "escaped_quotes_in_a_value": 'props.put("sonar.token", "\\"{v}\\"");\n',
    # more declarations and defaults
    "visual_basic_dim": 'Dim smtpPassword As String = "{v}"\n',
    "c_array": 'static const char API_TOKEN[] = "{v}";\n',
    "cmake_set": 'set(DEPLOY_TOKEN "{v}")\n',
    "erlang_define": '-define(API_SECRET, "{v}").\n',
    "initializer_pair": 'static const struct setting defaults[] = {{\n  {{ "api_token", "{v}" }},\n}};\n',
    "argparse_default": 'parser.add_argument("--api-token", default="{v}")\n',
    "go_flag_default": 'var token = flag.String("token", "{v}", "API token")\n',
    "kotlin_elvis": 'val apiToken = System.getenv("API_TOKEN") ?: "{v}"\n',
    "request_header": 'xhr.setRequestHeader("X-Api-Token", "{v}");\n',
    "laravel_env_default": "    'auth_token' => env('SERVICE_KEY', '{v}'),\n",
    "ruby_fetch_block": 'token = ENV.fetch("API_TOKEN") {{ "{v}" }}\n',
    "python_annotated_generic": 'class Settings(BaseSettings):\n    api_token: Optional[str] = "{v}"\n',
    "csharp_auto_property": 'public string ApiToken {{ get; set; }} = "{v}";\n',
    "perl_env_hash": "$ENV{{API_TOKEN}} = '{v}';\n",
    "java_get_property_default": 'String token = System.getProperty("api.token", "{v}");\n',
    "csharp_environment_fallback": 'var apiToken = Environment.GetEnvironmentVariable("API_TOKEN") ?? "{v}";\n',
    "python_or_fallback": 'api_token = os.environ.get("API_TOKEN") or "{v}"\n',
    "powershell_set_variable": 'Set-Variable -Name apiToken -Value "{v}"\n',
    # a password named pw or psk, its name's last part
    "short_pw_name": "[ldap]\nbind_pw = {v}\n",
    "camel_pw_name": 'const dbPw = "{v}";\n',
    "wpa_supplicant_psk": 'network={{\n    ssid="HomeNet"\n    psk="{v}"\n}}\n',
    # a shell reading a here-string into a variable named for a credential
    "here_string_read": "read -r DB_PASSWORD <<< '{v}'\n",
}


@pytest.mark.parametrize("syntax", sorted(SYNTAXES))
@pytest.mark.parametrize("value", VALUES)
def test_value_of_a_secret_named_key_is_found_whole(syntax, value):
    if syntax.startswith("xml"):
        value = value.replace("&", "&amp;")
    text = SYNTAXES[syntax].format(v=value)
    start = text.index(value)
    assert any(f.start <= start and start + len(value) <= f.end for f in detect(text)), text


NOT_SECRETS = [
    "password = get_password()\n", "password: ${DB_PASSWORD}\n", "password = os.environ['DB_PASSWORD']\n",
    "password: <your-password>\n", "password: changeme\n", "password: xxxxxxxx\n",
    "    password = self.config.password\n", "    'PASSWORD': env('DB_PASSWORD'),\n",
    "password: {{ .Values.password }}\n", "token = request.headers.token\n",
    "const opts = {\n  user: 'app',\n  password: config.password\n}\n",
    "class Settings(BaseSettings):\n    password: SecretStr\n    token: Token\n",
    "def connect(self):\n    password = self.vault.read_secret\n",
    "db:\n  password: !vault |\n    $ANSIBLE_VAULT;1.1;AES256\n",
    "defaults: &defaults\n  password: *default_password\n",
    "production:\n  password: <%= ENV['DB_PASSWORD'] %>\n",
    "[database]\npassword = %(db_password)s\n",
    "[database]\npassword =\n",
    "db.password = ${DB_PASSWORD}\n",
    "EMAIL_HOST_PASSWORD_FILE = '/run/secrets/smtp'\n",
    'next_page_token = "eyJpbmRleCI6IDExfQ=="\n',
    "self.password = password\nself.token = token\n",
    'printf("password:\\n");\n', 'fprintf(stderr, "token=%s\\n", token);\n',
    'puts("Enter your password\\nthen press return");\n', '"DB_PASSWORD=${DB_PASSWORD}\\nDEBUG=1"\n',
    'sprintf(buf, "api_key=%s\\nuser=%s\\n", key, user);\n',
    "ENV DB_PASSWORD_FILE=/run/secrets/db\n", "ARG NPM_TOKEN\nRUN echo $NPM_TOKEN\n",
    "//npm.example.com/:_authToken=${NPM_TOKEN}\n",
    'variable "db_password" {\n  type      = string\n  sensitive = true\n}\n',
    'variable "password_length" {\n  default = "24"\n}\n',
    'variable "api_token" {\n  description = "Token for the deploy API"\n}\n',
    '{:db-password (System/getenv "DB_PASSWORD")\n :token-header "Authorization"}\n',
    '(def password-prompt "Enter your password")\n',
    "ENV TOKEN_URL https://auth.example.com/token\n", "ENV DB_PASSWORD ${DB_PASSWORD}\n",
    "RUN echo ENV API_KEY placeholder\n",
    '#define PASSWORD_PROMPT "Password: "\n', '#define API_KEY_HEADER "X-Api-Key"\n', '#define PASSWORD_ENV "DB_PASSWORD"\n',
    'storePassword System.getenv("KEYSTORE_PASSWORD")\n', 'keyPassword "${keyPass}"\n',
    "npm config set //registry.example.com/:_authToken ${NPM_TOKEN}\n", '@Value("${db.password}")\n',
    '<entry key="password.min.length">12</entry>\n', "{token, undefined}\n", '{password, "Enter password"}\n',
    'curl -H "Authorization: Bearer $TOKEN" https://api.example.com\n', "curl -H 'X-Api-Key: ${API_KEY}' $URL\n",
    'PASSWORD_HELP = """Your password"""\n',
    "db_password = f'{prefix}-{suffix}'\n", 'var dbPassword = $"{user}{suffix}";\n', "password = b''\n",
    "API_TOKEN := $(shell cat .token)\n", "API_TOKEN ?= $(API_TOKEN_FROM_ENV)\n", "TOKEN_FILE := $(HOME)/.token\n",
    "func load() {\n\ttoken := s.client.Token\n}\n",
    "api_token: !!str ${API_TOKEN}\n", "set -gx GITHUB_TOKEN \"$GH_TOKEN\"\n", "setenv TOKEN_FILE /etc/deploy/token\n",
    'System.setProperty("auth-token-header", "X-Auth-Token");\n',
    'String token = vault.getToken("github");\n', 'c.setTokenEndpoint("https://auth.example.com/token");\n',
    'ds.setPassword("${DB_PASSWORD}");\n', 'HTTPBasicAuth("user", os.environ["PW"])\n', 'req.header("X-Api-Key");\n',
    'field.setPasswordVisible(true);\n', 'user.setPassword(encoder.encode(raw));\n',
    'setPasswordHint("Use at least twelve characters");\n', 'setTokenEndpoint("https://auth.example.com/token");\n',
    'localStorage.setItem("token_expiry", "3600");\n', "PWD=/home/build/src\n", 'password_file = "~/.config/app/pw"\n',
    '#define TLS1_TXT_PSK_WITH_AES_128_CCM "PSK-AES128-CCM"\n', '#define SSL_TXT_kRSAPSK "kRSAPSK"\n',
    '<iso_3166_2_entry code="PW-002" name="Aimeliik" />\n', "upward = 'Orbit2291x'\n", 'read -r name <<< "Orbit2291x"\n', '    put("password_prompt", "Enter your password");\n',
    '    put("token_header", "X-Auth-Token");\n', 'output("password", "hunter22x")\n', 'localStorage.getItem("access_token", "none");\n',
    'keyring.set_password("deploy-service", "ci", password)\n',
    'set :password_prompt, "Enter the deploy password"\n', 'Application.put_env(:my_app, :token_ttl, "3600")\n',
    'set :api_token, ENV.fetch("API_TOKEN")\n',
    '{"name": "DB_PASSWORD", "valueFrom": "arn:aws:ssm:eu-west-1:123456789012:parameter/db"}\n',
    '{"name": "DB_PASSWORD", "value": "${DB_PASSWORD}"}\n',
    "<property>\n  <name>hive.metastore.password.length</name>\n  <value>16</value>\n</property>\n",
    'raise InvalidToken "token expired"\n', 'sort_key "created_at"\n', 'puts password "hello"\n',
    'parser.add_argument("--token", "--auth-token", help="API token")\n', 'set(TOKEN_HEADER "X-Auth-Token")\n',
    'conn.setRequestHeader("Authorization", "Bearer " + token);\n',
    'Dim passwordPrompt As String = "Enter your password"\n',
    "    'host' => env('DB_HOST', '127.0.0.1'),\n", "    'api_key' => env('MAILGUN_DOMAIN', 'mg.example.com'),\n",
    'token = ENV.fetch("API_TOKEN") { "changeme" }\n', "timeout = os.getenv('TOKEN_TIMEOUT', '30s')\n",
    'token = get_token() or "anonymous"\n', "password_hash: Optional[str] = None\n",
    "public string Password { get; set; } = string.Empty;\n", "$ENV{HOME} = '/tmp';\n",

]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_reference_placeholder_or_expression_is_not_a_secret(text):
    assert [text[f.start:f.end] for f in detect(text) if f.type in ("KEY", "PASSWORD")] == []


FLAGS = [("aws rds create-db-cluster --master-user-password secret99 \\", "secret99"),
         # PowerShell's plain text made a SecureString: named, positional, after the switches, piped in
         ('$cred = ConvertTo-SecureString "river.falcon42" -AsPlainText -Force', "river.falcon42"),
         ("$pw = ConvertTo-SecureString -String 'Cedar&Maple#7' -AsPlainText -Force", "Cedar&Maple#7"),
         ("$pw = convertto-securestring -asplaintext -force 'tundra.ember.9'", "tundra.ember.9"),
         ('$pw = "Orbit@2291" | ConvertTo-SecureString -AsPlainText -Force', "Orbit@2291"),
         ("bind 127.0.0.1\nrequirepass x9&k2;p0=q\n", "x9&k2;p0=q"), ("masterauth 'k7Yp2mQ9wLz3'\n", "k7Yp2mQ9wLz3"),
         ("echo 'Orbit@2291' | docker login -u ci --password-stdin registry.example.com", "Orbit@2291"),
         ("az login -u ci@example.com -p river.falcon42", "river.falcon42"),
         # a NAME=value argument after a flag is a shell word: a literal, whatever its shape
         ("docker run -e DB_PASSWORD=river.falcon42 postgres:16", "river.falcon42"),
         ("helm upgrade app ./chart --set auth.password=k7Yp2mQ9wLz3", "k7Yp2mQ9wLz3"),
         ("kubectl create secret generic db --from-literal=password=tundra.ember.9", "tundra.ember.9"),
         # other clients' password flags and user:password words
         ("mongosh --host db -u admin -p river.falcon42 --authenticationDatabase admin", "river.falcon42"),
         ("sqlcmd -S localhost -U sa -P 'Orbit@2291' -Q 'SELECT 1'", "Orbit@2291"),
         ('ldapsearch -x -D "cn=admin,dc=example,dc=org" -w tundra.ember.9 -b dc=example,dc=org', "tundra.ember.9"),
         ("xfreerdp /v:10.0.0.5 /u:admin /p:k7Yp2mQ9wLz3 /cert:ignore", "k7Yp2mQ9wLz3"),
         ("htpasswd -bc /etc/nginx/.htpasswd admin river.falcon42", "river.falcon42"),
         ("echo 'deploy:Orbit@2291' | sudo chpasswd", "Orbit@2291"),
         ("smbclient //fs/share -U 'CORP\\backup%tundra.ember.9'", "tundra.ember.9"),
         ('withEnv(["DB_PASSWORD=k7Yp2mQ9wLz3"]) {', "k7Yp2mQ9wLz3"),
         ("aws connect create-user --password Pass@Word1 \\", "Pass@Word1"),
         ("vault-cli --client-secret=Zq8mLp2vXe9Tr login", "Zq8mLp2vXe9Tr"),
         # sudo reading its password from standard input; a PostgreSQL password file's line
         ('echo "Orbit@2291" | sudo -S apt-get update', "Orbit@2291"),
         ("db.example.com:5432:orders:app:river.falcon42\n", "river.falcon42"),
         ("*:*:*:postgres:tundra\\:ember9\n", "tundra\\:ember9"),
         # a second cluster's and PgBouncer's ports in a password file
         ("replica.example.com:5433:orders:app:river.falcon42\n", "river.falcon42"),
         ("10.0.0.5:6432:pool:app:Orbit@2291\n", "Orbit@2291"),
         # Oracle's logon, user/password@connect_identifier
         ("sqlplus scott/river.falcon42@orclpdb", "river.falcon42"),
         ('sqlplus -S "sys/k7Yp2mQ9wLz3@prod as sysdba"', "k7Yp2mQ9wLz3"),
         ('sqlplus app/"Orbit@2291"@prod', "Orbit@2291"),
         ("expdp system/k7Yp2mQ9wLz3@prod schemas=hr directory=dump", "k7Yp2mQ9wLz3"),
         ('url = "jdbc:oracle:thin:app_user/tundra.ember.9@//db01:1521/ORCL"', "tundra.ember.9")]
NOT_FLAG_SECRETS = ["--work-unit-token 'B2fMSdmQXe9umX8Ux8XCo4=' out", "--password-file /run/secrets/pw",
                    "--client-request-token Ab3dE5gH7jK9mN1pQ3", "--next-token eyJ0b2tlbiI6IDEyfQ==",
                    "$pw = ConvertTo-SecureString $env:DB_PASSWORD -AsPlainText -Force",
                    "$pw = ConvertTo-SecureString $encryptedText", "$pw = ConvertTo-SecureString '01000000d08c9ddf0115d1118c7a'",
                    "# requirepass foobared\n", "requirepass ${REDIS_PASSWORD}\n",
                    'echo "$REGISTRY_PASSWORD" | docker login -u ci --password-stdin',
                    "docker run -e DB_PASSWORD=$DB_PASSWORD app", "docker run -e DB_PASSWORD_FILE=/run/secrets/db app",
                    "helm install app ./chart --set auth.existingSecret=db-credentials",
                    "mongosh -u admin -p --authenticationDatabase admin", "sqlcmd -S db -U sa -P $SA_PASSWORD",
                    "ldapsearch -x -W -D cn=admin", "xfreerdp /v:host /u:admin /p:$RDP_PW", "htpasswd -c /etc/nginx/.htpasswd admin",
                    'echo "$DEPLOY_USER:$DEPLOY_PASS" | chpasswd', "smbclient -L fs -U guest%", "grep -w token notes.txt",
                    "fastcgi_param DB_PASSWORD $db_password;", "SetEnv DB_PASSWORD_FILE /run/secrets/db",
                    "fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;",
                    'echo "$PW" | sudo -S true', 'echo "hello world" | sudo -u app tee /tmp/x',
                    "localhost:5432:*:app:${PGPASSWORD}\n", "12:30:00:12:5432:99\n",
                    "sqlplus / as sysdba", "sqlplus $DB_USER/$DB_PASS@orcl", "jdbc:oracle:thin:@db01:1521:ORCL"]


@pytest.mark.parametrize("text,value", FLAGS)
def test_flag_named_for_a_secret_takes_one(text, value):
    assert value in [text[f.start:f.end] for f in detect(text)]


@pytest.mark.parametrize("text", NOT_FLAG_SECRETS)
def test_flag_naming_something_else_does_not(text):
    assert detect(text) == []


@pytest.mark.parametrize("text,value", [
    ("Server=db;Database=orders;User Id=sa;Password=a,=v*gvNr:j1:-2;Encrypt=true;", "a,=v*gvNr:j1:-2"),
    ("jdbc:mysql://db/app?user=root&password=ah9E6r;c4yF&ssl=true", "ah9E6r;c4yF"),
    # a JDBC driver splits its query on '&' alone: '#' is the password's (a web URL's '#' starts a fragment)
    ("jdbc:postgresql://db:5432/app?user=app&password=Tq7#vLm2x9&ssl=true", "Tq7#vLm2x9"),
    ("https://api.example.com/v1?user=app&password=Tq7vLm2x9#section", "Tq7vLm2x9"),
    ("export SESSION_SECRET='c3dar42'\n", "c3dar42"),
])
def test_value_runs_to_what_its_syntax_ends_it_with(text, value):
    assert value in [text[f.start:f.end] for f in detect(text)]


@pytest.mark.parametrize("text,value", [
    ("db: {user: app, password: river.falcon42}\n", "river.falcon42"),
    ("users:\n  - {name: deploy, password: Orbit@2291, groups: wheel}\n", "Orbit@2291"),
    ("const db = {user: app, password: pass};\n", None), ("auth: {type: basic, token: config.token}\n", None),
    ("items.push({ key: k, token: t });\n", None), ('db: {user: app, password: "{{ vault_db_password }}"}\n', None),
])
def test_a_yaml_flow_mappings_values_are_literals_a_javascript_objects_are_not(text, value):
    found = [text[f.start:f.end] for f in detect(text) if f.type in ("KEY", "PASSWORD")]
    assert found == ([value] if value else []), text


@pytest.mark.parametrize("text,value", [
    ("DB_PASSWORD = 'stagingPass'\n", "stagingPass"), ('SMTP_PASSWD = "mailRelay7"\n', "mailRelay7"),
    ("    ADMIN_PASSWORD = 'opsAdmin'\n", "opsAdmin"),
    ('KEY_PASSWORD = "keyPassword"\n', None), ('PASSWORD_FIELD = "passwordField"\n', None),
    ('PASSWORD = "passwordHash"\n', None), ("password: 'userPassword'\n", None), ('SECRET_NAME = "secretName"\n', None),
])
def test_a_constants_camel_case_value_is_a_password_unless_it_restates_or_describes(text, value):
    """A constant (an all-caps name) holding a camelCase word that adds to the constant's own words
    holds a value; restating them, describing something else, or under a field-like name, it names one."""
    found = [text[f.start:f.end] for f in detect(text) if f.type in ("KEY", "PASSWORD")]
    assert found == ([value] if value else []), text


TOKEN_RUN_ON = "sq0atp-" + "Wq8vLk2xZp4rTy6nBm1cHd9sFg3jKe5uMo7iAa0bCw" + "-Xy7Q_vb"   # longer than the shape's 22


@pytest.mark.parametrize("text", [
    f'SQUARE_ACCESS_TOKEN = "{TOKEN_RUN_ON}"\n',
    f"export SQUARE_ACCESS_TOKEN='{TOKEN_RUN_ON}'\n",
    'PLANETSCALE_PASSWORD = "pscale_pw_Tq7mZ2vKx9LpR4wYb8Nc3Hd6Fs1Jg5Ue.0Ao=Ki8Mn2Pq"\n',
])
def test_a_provider_shape_inside_an_assigned_token_takes_the_token_whole(text):
    # the provider's shape reads its documented length; the assignment holds more of the same token
    value = text.split("=", 1)[1].strip().strip("\"'")
    assert [text[f.start:f.end] for f in detect(text)] == [value], text


LOWER_CASE_TOKEN = "vkrtp47wqzn2hbsd08xcjfml"   # letters between digits, and no vowels to make words of


@pytest.mark.parametrize("syntax", ['const vaultToken = "{v}";', 'deployToken := "{v}"', 'self.sessionToken = "{v}"',
                                    'const hvsToken = "s.{v}";'])
def test_a_lower_case_token_under_a_camel_case_name_is_found(syntax):
    text = syntax.format(v=LOWER_CASE_TOKEN) + "\n"
    assert any(LOWER_CASE_TOKEN in text[f.start:f.end] for f in detect(text)), text


# Random base-36 tokens of one letter case (seeded draws): few changes of character class, vowels
# about as often as words have them.
ONE_CASE_TOKENS = ["6uresukqqea0q0adgpbthg9w", "sgi1mr37jnuksbgm3yexzeax", "KBLA7ITJJBSIZK7O3BXCYDH8",
                   "KROPXE0V9XC908BGUQNGYECM"]


@pytest.mark.parametrize("value", ONE_CASE_TOKENS)
@pytest.mark.parametrize("syntax", ['const deployToken = "{v}";', '$vendorToken = "{v}";', 'config.sonarToken = "{v}"'])
def test_a_one_case_token_with_digits_among_its_letters_is_found(syntax, value):
    text = syntax.format(v=value) + "\n"
    assert [text[f.start:f.end] for f in detect(text)] == [value], text


@pytest.mark.parametrize("value", ["x509fingerprint256", "utf8decoderstate16", "PBKDF2HMACSHA256KEY", "avx512vp2intersect",
                                   "AVX512VP2INTERSECT"])
def test_a_one_case_name_with_digits_at_its_words_ends_stays(value):
    text = f'const cacheToken = "{value}";\n'
    assert detect(text) == [], text


@pytest.mark.parametrize("text", [
    "typedef enum {\n    ACMEPKCS7TargetTokenNoCerts,\n    ACMEPKCS7TargetTokenAllCerts\n} ACMETargetTokenMode;\n",
    'token_type = "strncmp2utf8decoder"\n', 'password_hash = "ParseHtml5Node"\n',
])
def test_names_with_acronyms_and_abbreviations_stay_names(text):
    assert detect(text) == [], text


@pytest.mark.parametrize("tag", ["clientSecret", "ACME_API_TOKEN", "accessKey", "signing.key", "STORAGE_ACCOUNT_KEY"])
def test_a_hex_key_in_an_xml_element_named_for_a_secret_is_found(tag):
    # a hex string under a credential's name is a key, not a digest, in an element as in an assignment
    key = "9f2c7b1e04d8a6f35c0e9b7a2d41f8c6e3b5a709"
    text = f"<settings>\n  <{tag}>{key}</{tag}>\n  <{tag}>\n    {key}\n  </{tag}>\n</settings>\n"
    assert [text[f.start:f.end] for f in detect(text)] == [key, key]


@pytest.mark.parametrize("tag", ["monkey", "keyboard", "publicKey", "cacheKey"])
def test_an_element_whose_name_only_holds_key_as_letters_or_names_a_public_one_stays(tag):
    text = f"<item>\n  <{tag}>9f2c7b1e04d8a6f35c0e9b7a2d41f8c6e3b5a709</{tag}>\n</item>\n"
    assert detect(text) == [], text


@pytest.mark.parametrize("text,value", [
    ("machine api.example.com\n  login deploy\n  password river.falcon42\n", "river.falcon42"),
    ("machine api.example.com\n  login deploy\n  password hunterhunter\n", "hunterhunter"),
    ("account default\nhost smtp.example.com\nuser deploy\npassword Orbit@2291\n", "Orbit@2291"),
    ("poll mail.example.com protocol imap user deploy password 'Cedar&Maple#7'\n", "Cedar&Maple#7"),
    ("password protected\n", None), ("Features:\n  password hashing\n", None),
    ("The string is the username and password portion of the URL.\n", None),
    (">>> ftp.login()  # the default: user anonymous, passwd anonymous@\n", None),
    ("user deploy password Orbit@2291\n", "Orbit@2291"), ("    default login anonymous password user@site\n", None),
    ("    # Providing a username and password (default)\n", None),
    ("machine api.example.com\n  login deploy\n  password $NETRC_PASSWORD\n", None),
])
def test_a_login_directives_password(text, value):
    """.netrc, msmtprc, fetchmailrc: a password directive among a login's; a value that looks
    typed anywhere; the same words in prose are not one."""
    found = [text[f.start:f.end] for f in detect(text)]
    assert found == ([value] if value else []), text


@pytest.mark.parametrize("text,value", [
    ("docker run --env API_TOKEN=river.falcon42 app\n", "river.falcon42"),
    ("https://api.example.com/v1/items?user=app&token=tundra.ember.9&page=2\n", "tundra.ember.9"),
    ("CREATE USER app IDENTIFIED BY 'river.falcon42';\n", "river.falcon42"),
    ("ALTER USER app IDENTIFIED BY '${DB_PASSWORD}';\n", None), ("https://example.com/?token=self.token\n", None),
])
def test_a_command_word_a_query_parameter_and_a_sql_identity_are_literals(text, value):
    found = [text[f.start:f.end] for f in detect(text)]
    assert found == ([value] if value else []), text


@pytest.mark.parametrize("text,value", [
    ('ssh-keygen -t ed25519 -N "river.falcon42" -f deploy_key\n', "river.falcon42"),
    ("zip -r -P 'Cedar&Maple#7' backup.zip data/\n", "Cedar&Maple#7"), ("7z a -pOrbit@2291 backup.7z data\n", "Orbit@2291"),
    ('openssl enc -aes-256-cbc -k "tundra.ember.9" -in plain -out sealed\n', "tundra.ember.9"),
    ("vault login -no-print s.k7Yp2mQ9wLz3Tq8vNb4Rx\n", "s.k7Yp2mQ9wLz3Tq8vNb4Rx"),
    ('echo "k7Yp2mQ9wLz3" | gh auth login --with-token\n', "k7Yp2mQ9wLz3"),
    ('curl -H "Authorization: token k7Yp2mQ9wLz3Tq8vNb4Rx2" https://api.example.com\n', "k7Yp2mQ9wLz3Tq8vNb4Rx2"),
    ('headers = {"Authorization": "Token k7Yp2mQ9wLz3Tq8vNb4Rx2"}\n', "k7Yp2mQ9wLz3Tq8vNb4Rx2"),
    ("heroku config:set API_TOKEN=k7Yp2mQ9wLz3Tq8vNb4Rx2\n", "k7Yp2mQ9wLz3Tq8vNb4Rx2"),
    ('ssh-keygen -t ed25519 -N "" -f deploy_key\n', None), ('unzip -P "$ZIP_PASSWORD" backup.zip\n', None),
    ("vault login -method=userpass username=deploy\n", None), ("vault login $VAULT_TOKEN\n", None),
    ("x = f(token=someVariableName)\n", None),
    # a command's environment words, a login's call, git's config
    ("heroku config:set DB_PASSWORD=river.falcon42\n", "river.falcon42"),
    ("fly secrets set DB_PASSWORD=Orbit2291x LOG_LEVEL=debug\n", "Orbit2291x"),
    ("env SMTP_PASSWORD=tundra.ember.9 ./send-report\n", "tundra.ember.9"),
    ('server.login(sender_email, "river.falcon42")\n', "river.falcon42"),
    ("imap.login('reports@example.org', 'Orbit2291x')\n", "Orbit2291x"),
    ('client.login("k7Yp2mQ9wLz3Tq8vNb4Rx2.Xq9.Lm3Nb8Vc2Zx7")\n', "k7Yp2mQ9wLz3Tq8vNb4Rx2.Xq9.Lm3Nb8Vc2Zx7"),
    ("git config --global github.token k7Yp2mQ9wLz3Tq8vNb4Rx2\n", "k7Yp2mQ9wLz3Tq8vNb4Rx2"),
    ("keytool -genkey -alias app -keystore app.jks -storepass river.falcon42\n", "river.falcon42"),
    ("openssl pkcs12 -export -in app.pem -out app.p12 -passout pass:tundra.ember.9\n", "tundra.ember.9"),
    ("result = call(a, API_TOKEN=token)\n", None), ("Set API_TOKEN=xxxxxxxx before the first run.\n", None),
    ("deploy DB_PASSWORD=$DB_PASSWORD\n", None), ("auth.login(user, passwd)\n", None),
    ("$ftp->login(\"anonymous\", '-anonymous@')\n", None),
    ('user.login("alice2024")\n', None), ("git config --global credential.helper store\n", None),
    ("keytool -list -keystore cacerts -storepass changeit\n", None),
])
def test_passphrases_and_tokens_that_commands_and_calls_take(text, value):
    found = [text[f.start:f.end] for f in detect(text)]
    assert found == ([value] if value else []), text

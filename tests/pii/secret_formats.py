"""A labelled secrets set on real files: tokens generated at random in providers' documented
formats, planted in one line of a real source file in one of many assignment syntaxes, beside
plain placeholder lines that must stay. Used by bench/pii.py (``secrets_in_real_files``)."""

from __future__ import annotations

import base64
import random
import string

ALNUM, HEX, UPPER_NUM = string.ascii_letters + string.digits, "0123456789abcdef", string.ascii_uppercase + string.digits


def _r(rnd: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rnd.choice(alphabet) for _ in range(n))


# name -> (a key naming it, a generator) from each provider's documentation of its format
FORMATS = {
    "sourcegraph": ("src_access_token", lambda r: "sgp_" + _r(r, 40, HEX)),
    "sonar": ("sonar_token", lambda r: "sq" + r.choice("apu") + "_" + _r(r, 40, HEX)),
    "flyio": ("fly_api_token", lambda r: "fo1_" + _r(r, 43, ALNUM + "_-")),
    "onepassword": ("op_secret_key", lambda r: "A3-" + "-".join(_r(r, n, UPPER_NUM) for n in (6, 11, 5, 5, 5))),
    "entra_id": ("azure_client_secret", lambda r: _r(r, 3) + r.choice("012345678") + "Q~" + _r(r, 34, ALNUM + "_~.-")),
    "slack_bot": ("slack_token", lambda r: f"xoxb-{_r(r, 12, '0123456789')}-{_r(r, 13, '0123456789')}-{_r(r, 24)}"),
    "slack_webhook": ("slack_webhook_url",
                      lambda r: f"https://hooks.slack.com/services/T{_r(r, 10, UPPER_NUM)}/B{_r(r, 10, UPPER_NUM)}/{_r(r, 24)}"),
    "github": ("github_token", lambda r: "ghp_" + _r(r, 36)),
    "gitlab": ("gitlab_token", lambda r: "glpat-" + _r(r, 20, ALNUM + "_-")),
    "stripe": ("stripe_secret", lambda r: "sk_live_" + _r(r, 24)),
    "npm": ("npm_token", lambda r: "npm_" + _r(r, 36)),
    "doppler": ("doppler_token", lambda r: "dp.st." + _r(r, 43)),
    "clojars": ("clojars_token", lambda r: "CLOJARS_" + _r(r, 60, string.ascii_lowercase + string.digits)),
    "password": ("db_password", lambda r: _r(r, 14, ALNUM + "!#%&*+-")),
    "generic_secret": ("client_secret", lambda r: _r(r, 32)),
}
SYNTAXES = ('{k} = "{v}"', "{k}='{v}'", "{K}={v}", "export {K}={v}", "{k}: {v}", '"{k}": "{v}",', "{K} := {v}",
            "{K} ::= {v}", "{K} ?= {v}", '$cfg["{k}"] .= "{v}";', 'var {c} string = "{v}"', 'val {c}: String = "{v}"',
            "{c} ||= '{v}'", "<{c}>{v}</{c}>", 'curl -s https://api.acme.dev --header "X-Api-Token: {v}"',
            "{k}_b64: {b}")
PLACEHOLDERS = ("- (id)hf_requiredCharacteristicForServiceIdentifier;", 'curl --user "$1:$2" https://api.acme.dev',
                'api_key = "${API_KEY}"', 'token: "{{ vault_token }}"', "SRC_ACCESS_TOKEN=<your-token>",
                'password = "changeme"', "client_secret: xxxxxxxxxxxxxxxxxxxxxxxx", 'printf("%s:%s", user, password)',
                "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}", "api_key = os.environ['API_KEY']",
                "password = getpass.getpass()", "token = request.headers.get('X-Token')")


def _camel(k: str) -> str:
    head, *rest = k.split("_")
    return head + "".join(w.capitalize() for w in rest)


def planted(files: list[str], seed: int = 0) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """(text, secret, format) with one secret planted per file; (text, placeholder line) likewise."""
    rnd = random.Random(seed)
    secrets, placeholders = [], []
    names = sorted(FORMATS)
    for i, text in enumerate(files):
        lines = text.split("\n")
        at = rnd.randrange(len(lines) + 1)
        name = names[i % len(names)]
        key, gen = FORMATS[name]
        value = gen(rnd)
        syntax = SYNTAXES[(i // len(names)) % len(SYNTAXES)]
        b64 = base64.b64encode(value.encode()).decode()
        line = syntax.format(k=key, K=key.upper(), c=_camel(key), v=value, b=b64)
        secrets.append(("\n".join(lines[:at] + [line] + lines[at:]), b64 if "{b}" in syntax else value, name))
        ph = PLACEHOLDERS[i % len(PLACEHOLDERS)]
        placeholders.append(("\n".join(lines[:at] + [ph] + lines[at:]), ph))
    return secrets, placeholders

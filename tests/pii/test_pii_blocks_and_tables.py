"""Secrets whose name is not beside them: YAML block scalars (`password: |` and the value on the
more indented line below, `api_token: >-` a folded one) and delimited tables (a CSV, TSV or
semicolon-separated header naming a credential column, the values in the rows under it)."""

from __future__ import annotations

import pytest

from quarry.curation.pii.redact import redact

TOKEN = "a8F3kLm9Qz2Xv7Np4Rt6Yb1Wc5Hd0Jg"


@pytest.mark.parametrize("text,secret,placeholder", [
    ("db:\n  password: |\n    Zq8vLm2pWx9rTb4k\n  user: app\n", "Zq8vLm2pWx9rTb4k", "<PASSWORD>"),
    (f"auth:\n  api_token: >-\n    {TOKEN}\n", TOKEN, "<KEY>"),
    (f"service:\n  client_secret: |+\n\n    {TOKEN}\n\nother: 1\n", TOKEN, "<KEY>"),
    # a long value wrapped over lines: one value, redacted whole
    (f"creds:\n  signing_key: >\n    {TOKEN[:16]}\n    {TOKEN[16:]}\n", TOKEN[:16], "<KEY>"),
])
def test_a_block_scalar_under_a_credential_name_is_redacted(text, secret, placeholder):
    out, counts = redact(text)
    assert secret not in out and placeholder in out, out
    assert out.splitlines()[0] == text.splitlines()[0]   # the mapping around it stays


@pytest.mark.parametrize("text", [
    "db:\n  password: |\n    ${DB_PASSWORD}\n",                           # a template
    "help:\n  password: >\n    The password of the admin account, at least 12 characters.\n",  # prose
    "db:\n  password: |\nuser: Zq8vLm2pWx9rTb4k\n",                      # the next key, not a block line
    "form:\n  password_field: |\n    Zq8vLm2pWx9rTb4k\n",                 # a name about a password
])
def test_a_block_scalar_that_holds_no_secret_stays(text):
    assert redact(text)[0] == text


@pytest.mark.parametrize("text,secrets,placeholder", [
    ("username,password,email\nalice,Tr0ub4dor&3xQ,al@corp.invalid\nbob,9vLq2mZ8pWk,bo@corp.invalid\n",
     ["Tr0ub4dor&3xQ", "9vLq2mZ8pWk"], "<PASSWORD>"),
    (f"service;api_key;owner\nbilling;{TOKEN};ops\n", [TOKEN], "<KEY>"),
    (f"name\tclient_secret\nweb\t{TOKEN}\n", [TOKEN], "<KEY>"),
    (f'"user","Password"\n"carol","s3cr3t!Pass"\n', ["s3cr3t!Pass"], "<PASSWORD>"),
])
def test_a_credential_column_of_a_delimited_table_is_redacted(text, secrets, placeholder):
    out, _ = redact(text)
    assert not any(secret in out for secret in secrets) and out.count(placeholder) == len(secrets), out
    assert out.splitlines()[0] == text.splitlines()[0]   # the header stays


@pytest.mark.parametrize("text", [
    "token,count\nthe,120\nand,98\nreturn,40\n",                        # a word list, not tokens
    "user,password_hash\nalice,5f4dcc3b5aa765d61d8327deb882cf99\n",     # about a password, not one
    "Enter a password, then press enter\nWhen done, close the window\n",  # prose with commas
    "user,password\nalice,changeme\nbob,\n",                             # a placeholder and nothing
    "key,value\ncolor,blue\nsize,12345678\n",                            # a bare `key` column
])
def test_a_table_without_credentials_stays(text):
    assert redact(text)[0] == text


def test_a_long_table_whose_rows_look_like_headers_is_read_once():
    from quarry.curation.pii.delimited import find_delimited

    rows = "\n".join(f"alpha_token{i},beta,gamma" for i in range(20_000))
    text = f"name,api_token,note\n{rows}\n"
    calls = []
    import quarry.curation.pii.delimited as delimited

    real = delimited._fields
    delimited._fields = lambda *args: calls.append(1) or real(*args)
    try:
        assert list(find_delimited(text)) == []        # words, not tokens
    finally:
        delimited._fields = real
    assert len(calls) < 2 * 20_000 + 10                  # each line split about once, not once per header

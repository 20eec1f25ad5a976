"""A generated-looking token pasted in prose near credential words is found with no key name
next to it; names, digests, flags' values and words near the same words are not."""

import pytest

from quarry.curation.pii import detect

T = "kJ8s9dLq2mZ0xP4vB7nW"
FOUND = [
    f"Here is my API token, please don't share: {T}", f"I rotated it, the new one is {T} (token for the bot)",
    "Your credentials: admin / Zq8mLp2vXe9Tr", f"pasted my token below\n\n{T}\n", f"Log in with {T} as the password.",
    f"Use {T} as your API key", f"> my access token {T} stopped working",
    f"Hi, I can't authenticate with token {T}, any idea?", f"The secret ({T}) is in the vault now",
    f"Token {T} expires tomorrow.", f"after logging in, paste {T} into the token field",
    "the password for the staging box is hunter2-x9", "use password Tr0ub4dor&3 to log in",
]
NOT_FOUND = [
    "the token is stored in Vault", "Each token is a 40-character hex string.",
    "see commit 9f8e7d6c5b4a39281706f5e4d3c2b1a0f1e2d3c4 for the token fix",
    "The tokenizer splits CamelCaseIdentifiersLikeThis into tokens", "the secret is loaded from SECRET_KEY_BASE",
    "Use the API key from the dashboard.", "pass the token via --token-file /run/secrets/tok",
    "aws cognito-idp forgot-password --client-id 38fjsnc484p94kpqsnet7mpld0 --username jane",
    "The following example retrieves the secret MyTestSecret-a1b2c3 and its password.",
    "raised when CreateOAuth2Token fails to return a token", "class StreamEndToken(Token): the end of a token stream",
    "the password hash uses crypto.pbkdf2Sync with 100000 rounds",
    "request id 3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f with token",
]


def _secrets(text: str) -> list[str]:
    return [text[f.start:f.end] for f in detect(text) if f.type in ("KEY", "PASSWORD")]


@pytest.mark.parametrize("text", FOUND)
def test_pasted_credential_is_found(text):
    assert _secrets(text), text


@pytest.mark.parametrize("text", NOT_FOUND)
def test_words_names_and_digests_near_credential_words_stay(text):
    assert _secrets(text) == []

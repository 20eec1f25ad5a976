"""Properties over generated text: offsets survive any multi-byte context, redaction is idempotent."""

from hypothesis import given, settings
from hypothesis import strategies as st

from quarry.curation.pii import PiiConfig, redact

MULTIBYTE = st.text(alphabet=st.sampled_from(list("設定本番環境ÜüÏïçé✓🚀🙂 ,;\n\t—«»")), max_size=40)


@settings(max_examples=150, deadline=None)
@given(before=MULTIBYTE, after=MULTIBYTE)
def test_only_the_value_is_replaced_whatever_surrounds_it(before, after):
    for value, placeholder in (("jane.doe@acme-corp.io", "<EMAIL>"), ("4539 1488 0343 6467", "<CARD>"),
                               ("ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "<KEY>")):
        text, counts = redact(f"{before} {value} {after}", PiiConfig(ip_replacement="placeholder"))
        assert text == f"{before} {placeholder} {after}"
        assert sum(counts.values()) == 1


FRAGMENTS = [
    "jane.doe@acme-corp.io", "ops@example.com", "93.184.216.34", "192.168.0.1", "2606:4700:4700::1111", "::",
    "password = ", '"', "'", "S3cr3t-P@ss!", "token: ", "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "AKIA",
    "Q3EGRT5VWXZ2L7MN", "postgres://app:", "@db.acme-corp.io/x", "4539 1488 0343 6467", "+1 (415) 555-2671",
    "-----BEGIN RSA PRIVATE KEY-----\n", "MIIEowIBAAKCAQEA7bq2m9XzN1vQ8rT5yW3kP6sL0dF4hJ2gC9xB7nM1aZ5eR8uK\n",
    "-----END RSA PRIVATE KEY-----", "Bearer ", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.dozjgNryP4J3jVmNHl0w5N", " ", "\n",
    "=", ":", "設定", "🚀", "<KEY>", "1.2.3.4", "x",
]


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(FRAGMENTS), max_size=14), ip_replacement=st.sampled_from(["fake", "placeholder"]))
def test_redaction_is_idempotent(parts, ip_replacement):
    config = PiiConfig(ip_replacement=ip_replacement)
    once, _ = redact("".join(parts), config)
    twice, counts = redact(once, config)
    assert twice == once and not counts

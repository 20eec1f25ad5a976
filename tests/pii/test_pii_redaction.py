"""Redaction: typed placeholders, fake IPs, idempotence, the stage, and no value ever written."""

import ipaddress
import logging

import orjson
import pytest
import zstandard

from quarry.engine import run_local
from quarry.curation.pii import PiiConfig, detect, redact, redact_shard
from quarry.curation.pii.fake_ips import FAKE_IP_POOL, fake_ip
from labeled import build_labeled_set
from quarry.records import read_json, read_records, write_records
from quarry.stages.pii import PII

SECRETS = {
    "email": "jane.doe@acme-corp.io",
    "key": "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "password": "S3cr3t-P@ssw0rd!",
    "ip": "93.184.216.34",
    "card": "4539 1488 0343 6467",
    "phone": "+1 (415) 555-2671",
}
DOC = (f"# 設定 🚀 owner {SECRETS['email']}\nTOKEN = '{SECRETS['key']}'\npassword = \"{SECRETS['password']}\"\n"
       f"HOST = '{SECRETS['ip']}'\n# card {SECRETS['card']}, phone: {SECRETS['phone']}\n")


def test_typed_placeholders_in_place_after_multibyte_text():
    text, counts = redact(DOC, PiiConfig(ip_replacement="placeholder"))
    assert text == ("# 設定 🚀 owner <EMAIL>\nTOKEN = '<KEY>'\npassword = \"<PASSWORD>\"\n"
                    "HOST = '<IP_ADDRESS>'\n# card <CARD>, phone: <PHONE>\n")
    assert counts == {"EMAIL": 1, "KEY": 1, "PASSWORD": 1, "IP_ADDRESS": 1, "CARD": 1, "PHONE": 1}


def test_fake_ips_are_public_deterministic_and_not_redetected():
    text, _ = redact(f"a = '{SECRETS['ip']}'; b = '{SECRETS['ip']}'; c = '2606:4700:4700::1111'")
    fake4, fake6 = fake_ip(SECRETS["ip"]), fake_ip("2606:4700:4700::1111")
    assert text == f"a = '{fake4}'; b = '{fake4}'; c = '{fake6}'"
    assert fake4 != SECRETS["ip"] and ipaddress.ip_address(fake4).is_global and fake4 in FAKE_IP_POOL
    assert ipaddress.ip_address(fake6).version == 6
    assert detect(text) == []


@pytest.mark.parametrize("ip_replacement", ["fake", "placeholder"])
def test_redacting_twice_changes_nothing_more(ip_replacement):
    config = PiiConfig(ip_replacement=ip_replacement)
    for doc in build_labeled_set(120, seed=3):
        once, _ = redact(doc["text"], config)
        twice, counts = redact(once, config)
        assert twice == once and not counts, doc["id"]


def _shard(tmp_path, name="part-00000.jsonl.zst", n=6):
    records = [{"text": DOC if i % 2 == 0 else f"plain text {i} with nothing to hide\n",
                "meta": {"id": f"swh:1:cnt:{i:040x}", "bytes": 0}} for i in range(n)]
    path = tmp_path / "src" / name
    write_records(path, records)
    return path


def test_redact_shard_counts_types_and_never_drops(tmp_path):
    src = _shard(tmp_path)
    ledger = redact_shard(src, tmp_path / "out" / src.name, PiiConfig())
    assert (ledger.input, ledger.kept, ledger.dropped_total) == (6, 6, 0)
    assert dict(ledger.changed) == {t: 3 for t in ("CARD", "EMAIL", "IP_ADDRESS", "KEY", "PASSWORD", "PHONE")}
    records = list(read_records(tmp_path / "out" / src.name))
    assert records[0]["meta"]["pii"] == {"CARD": 1, "EMAIL": 1, "IP_ADDRESS": 1, "KEY": 1, "PASSWORD": 1, "PHONE": 1}
    assert records[1]["meta"]["pii"] == {} and records[1]["text"] == "plain text 1 with nothing to hide\n"
    assert records[0]["meta"]["bytes"] == len(records[0]["text"].encode())
    # a second pass over the output is a no-op: same text, same counts
    again = redact_shard(tmp_path / "out" / src.name, tmp_path / "again" / src.name, PiiConfig())
    assert not again.changed
    assert list(read_records(tmp_path / "again" / src.name)) == records


def test_run_pii_is_byte_identical_for_any_worker_count(tmp_path):
    for i in range(3):
        _shard(tmp_path, f"part-{i:05d}.jsonl.zst", n=4 + i)
    one = run_local(PII, tmp_path / "src", tmp_path / "w1", {}, workers=1)
    two = run_local(PII, tmp_path / "src", tmp_path / "w2", {}, workers=2)
    assert one == two == read_json(tmp_path / "w1" / "ledger.json")
    assert one["input"] == 15 and one["changed"]["EMAIL"] == 8
    for i in range(3):
        name = f"part-{i:05d}.jsonl.zst"
        assert (tmp_path / "w1" / name).read_bytes() == (tmp_path / "w2" / name).read_bytes()
        assert (tmp_path / "w1" / "rejects" / name).exists()


def test_run_pii_skips_the_upstream_stage_rejects_folder(tmp_path):
    _shard(tmp_path)
    write_records(tmp_path / "src" / "rejects" / "part-00000.jsonl.zst",
                  [{"text": "", "meta": {"id": "x", "reason": "license"}}])
    ledger = run_local(PII, tmp_path / "src", tmp_path / "out", {})
    assert ledger["input"] == 6
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.zst")) == [
        "part-00000.jsonl.zst", "rejects/part-00000.jsonl.zst"]


def _all_bytes(folder):
    out = b""
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name.endswith(".zst"):
            data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
        out += data
    return out


def test_no_secret_value_in_any_output_log_or_report(tmp_path, caplog, capsys):
    from quarry.cli import main

    _shard(tmp_path)
    caplog.set_level(logging.DEBUG)
    assert main(["pii", "redact", str(tmp_path / "src"), str(tmp_path / "out"), "--workers", "1"]) == 0
    assert main(["pii", "scan", str(tmp_path / "src"), "--findings", str(tmp_path / "report" / "f.jsonl")]) == 0
    written = _all_bytes(tmp_path / "out") + _all_bytes(tmp_path / "report")
    shown = capsys.readouterr()
    for value in SECRETS.values():
        for haystack in (written, (shown.out + shown.err + caplog.text).encode()):
            assert value.encode() not in haystack
    findings = [orjson.loads(line) for line in (tmp_path / "report" / "f.jsonl").read_bytes().splitlines()]
    assert len(findings) == 18 and {len(f["sha256"]) for f in findings} == {16}


def test_cli_reports_a_bad_sensitivity_as_one_line(tmp_path, capsys):
    from quarry.cli import main

    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    assert main(["pii", "scan", str(path), "--sensitivity", "extreme"]) == 1
    err = capsys.readouterr().err
    assert "pii.sensitivity" in err and "Traceback" not in err

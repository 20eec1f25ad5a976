"""The pii Prefect tasks in a real flow run: per-shard redaction, cached on the second run and
run again when its output was removed."""

from pathlib import Path

import pytest

from quarry.records import read_records, write_records


@pytest.mark.slow  # starts Prefect's ephemeral API server: up to a minute on a loaded machine
def test_redact_task_in_a_flow_run_is_cached_and_verified(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    from prefect import flow

    from tasks.caching import run_verified
    from tasks.pii import redact_shard_task, scan_shard_task

    src = tmp_path / "src" / "part-00000.jsonl.zst"
    write_records(src, [{"text": "owner jane.doe@acme-corp.io\n", "meta": {"id": "a"}},
                        {"text": "nothing here\n", "meta": {"id": "b"}}])
    dst = tmp_path / "out" / "part-00000.jsonl.zst"
    rejects = tmp_path / "out" / "rejects" / "part-00000.jsonl.zst"
    call = {"src": src, "dst": str(dst), "rejects": str(rejects), "params": {"pii": {"sensitivity": "medium"}}}

    @flow
    def pii_flow(src: Path) -> tuple:
        [ledger] = run_verified(redact_shard_task, [call])
        return ledger, scan_shard_task(src, {"pii": {}})

    ledger, scan = pii_flow(src)
    assert ledger["input"] == 2 and ledger["changed"] == {"EMAIL": 1}
    assert scan == {"shard": src.name, "types": {"EMAIL": 1}, "kinds": {"email": 1}}
    assert [r["text"] for r in read_records(dst)] == ["owner <EMAIL>\n", "nothing here\n"]
    assert rejects.exists()

    dst.unlink()  # a cache hit whose output is gone runs again
    assert pii_flow(src) == (ledger, scan)
    assert [r["text"] for r in read_records(dst)] == ["owner <EMAIL>\n", "nothing here\n"]

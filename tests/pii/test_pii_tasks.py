"""The pii Prefect task in a real flow run: per-shard redaction, cached on the second run."""

from pathlib import Path

import pytest

from quarry.records import read_records, write_records


@pytest.mark.slow  # starts Prefect's ephemeral API server: up to a minute on a loaded machine
def test_redact_task_in_a_flow_run_is_cached_on_rerun(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    from prefect import flow

    from tasks.pii import redact_shard_task, scan_shard_task

    src = tmp_path / "src" / "part-00000.jsonl.zst"
    write_records(src, [{"text": "owner jane.doe@acme-corp.io\n", "meta": {"id": "a"}},
                        {"text": "nothing here\n", "meta": {"id": "b"}}])
    dst = tmp_path / "out" / "part-00000.jsonl.zst"

    @flow
    def pii_flow(src: Path, dst: Path) -> tuple:
        ledger = redact_shard_task(src, dst, {"pii": {"sensitivity": "medium"}})
        scan = scan_shard_task(src, {"pii": {}})
        return ledger, scan

    first = pii_flow(src, dst, return_state=True)
    ledger, scan = first.result()
    assert ledger["input"] == 2 and ledger["changed"] == {"EMAIL": 1}
    assert scan == {"shard": src.name, "types": {"EMAIL": 1}, "kinds": {"email": 1}}
    assert [r["text"] for r in read_records(dst)] == ["owner <EMAIL>\n", "nothing here\n"]
    assert (tmp_path / "out" / "rejects" / src.name).exists()

    second = pii_flow(src, dst, return_state=True)
    assert second.result() == first.result()

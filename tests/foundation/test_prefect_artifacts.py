"""What a stage shows in the Prefect UI: ledgers, the dataset card and BPB as artifacts of its run,
read back through the API of a real (ephemeral) Prefect server."""

import asyncio
import json

from flows.artifacts import publish_bpb, publish_datacard, publish_ledgers  # sets Prefect's project env first
from prefect import flow  # noqa: I001

LEDGERS = {"licenses": {"stage": "licenses", "input": 10, "kept": 7, "dropped": {"license:gpl": 3}, "changed": {}},
           "pii": {"stage": "pii", "input": 7, "kept": 7, "dropped": {}, "changed": {"redacted": 2}}}
MANIFEST = {"name": "tiny-code", "label": "0.1.0", "version": "ab" * 32, "composition": {"total": {"documents": 7}}}
REPORTS = {"pretrain": {"subsets": {"code-python": {"bpb": 2.51234, "docs": 4, "bytes": 900}},
                        "aggregate": {"bpb": 2.51234, "docs": 4, "bytes": 900}}}


def artifacts_of(flow_run_id):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    async def read():
        async with get_client() as client:
            found = await client.read_artifacts(
                artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id])))
            return {a.key: a for a in found if a.key}  # keyless ones: results Prefect records itself

    return asyncio.run(read())


def test_stage_results_become_artifacts_of_the_flow_run(tmp_path):
    (tmp_path / "datacard.md").write_text("# tiny-code\n\n| subset | documents |\n|---|---|\n| code-python | 7 |\n")

    @flow(name="artifacts-under-test")
    def stage():
        from prefect.runtime import flow_run

        publish_ledgers(LEDGERS)
        publish_datacard(tmp_path, MANIFEST)
        publish_bpb(REPORTS)
        return flow_run.id

    run_id = stage()
    found = artifacts_of(run_id)
    assert set(found) == {"ledger-licenses", "ledger-pii", "datacard-tiny-code", "bpb"}

    def table(key):
        data = found[key].data
        return json.loads(data) if isinstance(data, str) else data

    assert {"outcome": "dropped: license:gpl", "documents": 3} in table("ledger-licenses")
    assert {"outcome": "changed: redacted", "documents": 2} in table("ledger-pii")
    assert "| code-python | 7 |" in found["datacard-tiny-code"].data
    assert {"checkpoint": "pretrain", "subset": "code-python", "bpb": 2.5123, "documents": 4, "bytes": 900} in table("bpb")

"""A real Prefect flow run: the second run over unchanged shards hits the task cache."""

import asyncio
import os

from quarry.records import write_records


def _task_states(flow_run_id, expected: int):
    """Final state names of the flow run's task runs; task runs reach the API through events, so
    wait (bounded) until all ``expected`` of them are there in a final state."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    async def read():
        async with get_client() as client:
            for _ in range(120):
                runs = await client.read_task_runs(
                    flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id])))
                if len(runs) >= expected and all(run.state and run.state.is_final() for run in runs):
                    break
                await asyncio.sleep(0.5)
            return sorted(run.state.name for run in runs)

    return asyncio.run(read())


def test_second_run_hits_cache_and_change_misses(tmp_path):
    from flows.inventory import inventory

    assert os.environ["PREFECT_HOME"].startswith(os.environ["QUARRY_HOME"])
    for i in range(3):
        write_records(tmp_path / f"part-{i:05d}.jsonl.zst", [{"text": "x" * (i + 1), "meta": {"id": str(i)}}])

    first = inventory(str(tmp_path), return_state=True)
    assert first.result() == {"shards": 3, "records": 3, "bytes": first.result()["bytes"]}
    assert _task_states(first.state_details.flow_run_id, 3) == ["Completed"] * 3

    second = inventory(str(tmp_path), return_state=True)
    assert second.result() == first.result()
    assert _task_states(second.state_details.flow_run_id, 3) == ["Cached"] * 3

    # Changing one shard's content re-runs that shard only.
    write_records(tmp_path / "part-00001.jsonl.zst", [{"text": "changed", "meta": {"id": "1"}}] * 2)
    third = inventory(str(tmp_path), return_state=True)
    assert third.result()["records"] == 4
    assert _task_states(third.state_details.flow_run_id, 3) == ["Cached", "Cached", "Completed"]


def test_cache_hit_with_deleted_output_runs_again(tmp_path):
    from prefect import flow

    from tasks.caching import cached_task, run_verified

    calls = []

    @cached_task(outputs=("dst",))
    def copy_upper(src, dst: str) -> int:
        calls.append(src)
        text = src.read_text().upper()
        with open(dst, "w") as fh:
            fh.write(text)
        return len(text)

    @flow
    def copy_all(folder: str) -> list[int]:
        srcs = sorted(p for p in tmp_path.glob("in-*.txt"))
        return run_verified(copy_upper, [{"src": s, "dst": str(tmp_path / s.name.replace("in", "out"))} for s in srcs])

    for i in range(2):
        (tmp_path / f"in-{i}.txt").write_text("abc" * (i + 1))
    assert copy_all(str(tmp_path)) == [3, 6]
    assert len(calls) == 2
    assert copy_all(str(tmp_path)) == [3, 6]
    assert len(calls) == 2  # both cached

    (tmp_path / "out-1.txt").unlink()
    (tmp_path / "out-0.txt").write_text("tampered")
    assert copy_all(str(tmp_path)) == [3, 6]
    assert len(calls) == 4  # both re-run: one output deleted, one changed
    assert (tmp_path / "out-0.txt").read_text() == "ABC"
    assert (tmp_path / "out-1.txt").read_text() == "ABCABC"

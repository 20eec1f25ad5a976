import os
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest
import zstandard

from quarry.errors import RecordError
from quarry.records import RecordReader, RecordWriter, read_records, shard_paths, write_records


def make_records(n):
    return [{"text": f"def f{i}():\n    return {i} # é ✓ 𝄞", "meta": {"id": f"doc-{i}", "bytes": i}} for i in range(n)]


@pytest.mark.parametrize("name", ["a.jsonl", "a.jsonl.zst"])
def test_round_trip(tmp_path, name):
    records = make_records(500)
    stats = write_records(tmp_path / name, records)
    assert stats.records == 500
    assert list(read_records(tmp_path / name)) == records


def test_zstd_bytes_do_not_depend_on_thread_count(tmp_path):
    records = make_records(3000)
    write_records(tmp_path / "one.jsonl.zst", records, threads=1)
    write_records(tmp_path / "two.jsonl.zst", records, threads=2)
    assert (tmp_path / "one.jsonl.zst").read_bytes() == (tmp_path / "two.jsonl.zst").read_bytes()


def test_reads_multi_frame_zstd(tmp_path):
    path = tmp_path / "multi.jsonl.zst"
    cctx = zstandard.ZstdCompressor()
    frames = [cctx.compress(orjson.dumps(r) + b"\n") for r in make_records(5)]
    path.write_bytes(b"".join(frames))
    assert [r["meta"]["id"] for r in read_records(path)] == [f"doc-{i}" for i in range(5)]


def test_truncated_zstd_frame_names_file(tmp_path):
    path = tmp_path / "t.jsonl.zst"
    write_records(path, make_records(20000))  # several zstd blocks, so half the file decodes
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(RecordError, match=r"t\.jsonl\.zst.*truncated zstd frame"):
        list(read_records(path))
    reader = RecordReader(path, strict=False, rejects=tmp_path / "rejects.jsonl")
    got = list(reader)
    assert 0 < len(got) < 20000
    assert reader.stats.quarantined == 1
    rejected = list(read_records(tmp_path / "rejects.jsonl", require_text=False))
    assert "truncated" in rejected[0]["reason"]


def test_bad_json_line_strict_and_quarantined(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = [orjson.dumps(r) for r in make_records(3)]
    path.write_bytes(good[0] + b"\n" + b'{"text": "unterminated\n' + good[1] + b"\n" + good[2] + b"\n")
    with pytest.raises(RecordError) as info:
        list(read_records(path))
    assert info.value.line == 2
    assert info.value.offset == len(good[0]) + 1
    assert "bad.jsonl:2" in str(info.value)

    reader = RecordReader(path, strict=False, rejects=tmp_path / "rej.jsonl.zst")
    assert [r["meta"]["id"] for r in reader] == ["doc-0", "doc-1", "doc-2"]
    assert reader.stats.quarantined == 1
    (rej,) = read_records(tmp_path / "rej.jsonl.zst", require_text=False)
    assert rej["line"] == 2 and rej["file"].endswith("bad.jsonl")


def test_non_utf8_line(tmp_path):
    path = tmp_path / "latin.jsonl.zst"
    raw = b'{"text": "caf\xe9"}\n' + orjson.dumps(make_records(1)[0]) + b"\n"
    path.write_bytes(zstandard.ZstdCompressor().compress(raw))
    with pytest.raises(RecordError, match="invalid UTF-8"):
        list(read_records(path))
    reader = RecordReader(path, strict=False)
    assert len(list(reader)) == 1 and reader.stats.quarantined == 1


def test_record_needs_text(tmp_path):
    path = tmp_path / "no_text.jsonl"
    path.write_text('{"meta": {}}\n')
    with pytest.raises(RecordError, match='"text"'):
        list(read_records(path))


def test_failed_write_leaves_nothing(tmp_path):
    target = tmp_path / "shard.jsonl.zst"
    with pytest.raises(RuntimeError):
        with RecordWriter(target) as writer:
            writer.write(make_records(1)[0])
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_existing_shard_untouched_by_failed_rewrite(tmp_path):
    target = tmp_path / "shard.jsonl"
    write_records(target, make_records(3))
    before = target.read_bytes()
    with pytest.raises(RuntimeError):
        with RecordWriter(target) as writer:
            writer.write_all(make_records(10))
            raise RuntimeError("boom")
    assert target.read_bytes() == before


def test_killed_writer_leaves_no_complete_looking_shard(tmp_path):
    """SIGKILL a process in the middle of writing: the final name never appears."""
    target = tmp_path / "shard.jsonl.zst"
    script = textwrap.dedent(f"""
        import os, signal
        from quarry.records import RecordWriter
        with RecordWriter({str(target)!r}) as w:
            for i in range(20000):
                w.write({{"text": "x" * 200, "meta": {{"id": i}}}})
                if i == 10000:
                    os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert proc.returncode == -9
    assert not target.exists()
    leftovers = [p.name for p in tmp_path.iterdir()]
    assert all(name.startswith(".") and name.endswith(".tmp") for name in leftovers)
    assert shard_paths(tmp_path) == []  # readers never pick up the temporary file


def test_reader_streams_without_loading_file(tmp_path):
    path = tmp_path / "big.jsonl.zst"
    write_records(path, ({"text": "y" * 1000, "meta": {"id": i}} for i in range(20000)))
    reader = RecordReader(path)
    it = iter(reader)
    first = next(it)
    assert first["meta"]["id"] == 0
    assert reader.stats.bytes < 2 * (1 << 20)  # one decompressed chunk, not 20 MB
    assert os.path.getsize(path) > 0


def test_json_pairs_written_as_they_come_are_write_json_bytes(tmp_path):
    """repo_licenses.json is streamed from sorted pairs: the bytes write_json gives the whole dict."""
    import json
    import sysconfig

    from quarry.records import write_json, write_json_pairs

    value = {path.name: {"size": path.stat().st_size, "lines": path.read_text(errors="replace").splitlines()[:3],
                         "empty": {}, "none": [], "é": None}
             for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:40]}
    write_json(tmp_path / "whole.json", value)
    write_json_pairs(tmp_path / "pairs.json", iter(sorted(value.items())))
    assert (tmp_path / "pairs.json").read_bytes() == (tmp_path / "whole.json").read_bytes()
    assert json.loads((tmp_path / "pairs.json").read_bytes()) == value
    write_json(tmp_path / "empty-whole.json", {})
    write_json_pairs(tmp_path / "empty-pairs.json", [])
    assert (tmp_path / "empty-pairs.json").read_bytes() == (tmp_path / "empty-whole.json").read_bytes()

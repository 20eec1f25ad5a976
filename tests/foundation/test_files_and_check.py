"""Files people share and check: modes follow the umask, `quarry records check` fails loudly."""

import os
import stat

import pytest

from quarry.cli import main
from quarry.models.checkpoint import save_pretrained
from quarry.models.llama import ModelArgs, Transformer
from quarry.records import read_records, write_json, write_records


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


def test_written_files_follow_the_umask(tmp_path, umask_027):
    write_records(tmp_path / "shard.jsonl.zst", [{"text": "x"}])
    write_json(tmp_path / "manifest.json", {"a": 1})
    model = Transformer(ModelArgs(dim=16, n_layers=1, n_heads=2, n_kv_heads=2, vocab_size=32, max_seq_len=16))
    folder = save_pretrained(model, tmp_path / "ckpt")
    for path in [tmp_path / "shard.jsonl.zst", tmp_path / "manifest.json", folder / "model.safetensors"]:
        assert mode(path) == 0o640, path


def test_records_check_missing_path_fails(tmp_path, capsys):
    assert main(["records", "check", str(tmp_path / "no" / "such.jsonl")]) == 1
    assert "no such file or folder" in capsys.readouterr().err


def test_records_check_flags_empty_files(tmp_path, capsys):
    write_records(tmp_path / "a.jsonl.zst", [{"text": "x"}])
    (tmp_path / "b.jsonl").write_bytes(b"")
    assert main(["records", "check", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "1 of 2 file(s) hold no records" in captured.err
    assert main(["records", "check", str(tmp_path / "a.jsonl.zst")]) == 0


def test_records_check_passes_a_stage_folder_whose_rejects_shard_is_empty(tmp_path, capsys):
    from quarry.engine import run_local
    from quarry.stages.filters import FILTERS

    text = "def greeting(name):\n    return 'hello there, ' + name\n"
    write_records(tmp_path / "src" / "part-00000.jsonl.zst", [{"text": text, "meta": {"id": "a", "language": "Python"}}])
    run_local(FILTERS, tmp_path / "src", tmp_path / "filtered", {})
    assert main(["records", "check", str(tmp_path / "filtered")]) == 0
    assert "no rejects" in capsys.readouterr().out
    (tmp_path / "filtered" / "part-00000.jsonl.zst").unlink()
    write_records(tmp_path / "filtered" / "part-00000.jsonl.zst", [])
    assert main(["records", "check", str(tmp_path / "filtered")]) == 1  # an empty output shard still fails


def test_records_check_rejects_collects_every_shard(tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.jsonl").write_bytes(b'{"text": "ok"}\n{broken\n')
    rejects = tmp_path / "out" / "rejects.jsonl"
    assert main(["records", "check", "--lenient", "--rejects", str(rejects), str(tmp_path)]) == 0
    assert sorted(r["file"].rsplit("/", 1)[-1] for r in read_records(rejects, require_text=False)) == [
        "a.jsonl", "b.jsonl"]

"""file_hash remembers a file it read only while its inode, size and modification time stay."""

import hashlib
import os
import time

from quarry.infra import hashing


def _age(path, seconds: float) -> None:
    stamp = time.time_ns() - int(seconds * 1e9)
    os.utime(path, ns=(stamp, stamp))


def test_an_old_file_is_read_once_and_a_rewrite_is_read_again(tmp_path, monkeypatch):
    shard = tmp_path / "part-00000.jsonl.zst"
    shard.write_bytes(b"a" * 5000)
    _age(shard, 60)
    reads = []
    real_open = open
    monkeypatch.setattr(hashing, "open", lambda *a, **k: reads.append(a[0]) or real_open(*a, **k), raising=False)

    assert hashing.file_hash(shard) == hashlib.sha256(b"a" * 5000).hexdigest()
    assert hashing.file_hash(shard) == hashlib.sha256(b"a" * 5000).hexdigest()
    assert len(reads) == 1

    with open(shard, "r+b") as fh:  # in place: same inode, same size, a new modification time
        fh.write(b"b")
    assert hashing.file_hash(shard) == hashlib.sha256(b"b" + b"a" * 4999).hexdigest()
    assert len(reads) == 2


def test_a_file_written_just_before_it_was_hashed_is_not_remembered(tmp_path):
    shard = tmp_path / "part-00000.jsonl.zst"
    shard.write_bytes(b"a" * 5000)
    written = shard.stat().st_mtime_ns
    assert hashing.file_hash(shard) == hashlib.sha256(b"a" * 5000).hexdigest()

    # a rewrite within the clock's granularity keeps inode, size and time: it must still be read
    with open(shard, "r+b") as fh:
        fh.write(b"b")
    os.utime(shard, ns=(written, written))
    assert hashing.file_hash(shard) == hashlib.sha256(b"b" + b"a" * 4999).hexdigest()


def test_a_replaced_file_is_read_again(tmp_path):
    shard = tmp_path / "part-00000.jsonl.zst"
    shard.write_bytes(b"a" * 5000)
    _age(shard, 60)
    assert hashing.file_hash(shard) == hashlib.sha256(b"a" * 5000).hexdigest()
    replacement = tmp_path / "tmp"
    replacement.write_bytes(b"c" * 5000)
    os.utime(replacement, ns=(shard.stat().st_mtime_ns,) * 2)  # even with the old file's time
    os.replace(replacement, shard)
    assert hashing.file_hash(shard) == hashlib.sha256(b"c" * 5000).hexdigest()

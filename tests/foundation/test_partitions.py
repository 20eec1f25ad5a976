"""Key-range partitions (quarry.engine.partitions): every entry read by exactly one partition, in
key order, whatever the partition count; a partition's output read back shard by shard."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quarry.engine.partitions import SliceWriter, owner, read_part, read_slices, text_key, write_runs


def _stdlib_entries(count: int) -> list[tuple[int, bytes]]:
    """(key of a module's path, its first bytes) for real files of the standard library."""
    files = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:count]
    return [(text_key(path.name), path.read_bytes()[:200]) for path in files]


@pytest.mark.parametrize("parts", [1, 2, 3, 7, 64])
def test_every_entry_is_read_by_exactly_one_partition_in_key_order(tmp_path, parts):
    shards = [_stdlib_entries(120)[i::3] for i in range(3)]
    for i, entries in enumerate(shards):
        write_runs(tmp_path / f"s{i}" / "runs", entries)
    for i, entries in enumerate(shards):
        found = [entry for part in range(parts) for entry in read_part(tmp_path / f"s{i}" / "runs", part, parts)]
        assert found == sorted(entries)
        for part in range(parts):
            keys = np.array([key for key, _ in read_part(tmp_path / f"s{i}" / "runs", part, parts)], dtype=np.uint64)
            assert (owner(keys, parts) == part).all()


@given(st.lists(st.integers(0, 2**64 - 1), max_size=200), st.integers(1, 300))
@settings(max_examples=60, deadline=None)
def test_owner_is_monotone_and_in_range(keys, parts):
    ordered = np.sort(np.array(keys, dtype=np.uint64))
    owners = owner(ordered, parts)
    assert (np.diff(owners.astype(np.int64)) >= 0).all() and (owners < parts).all()


def test_an_empty_shard_has_nothing_for_any_partition(tmp_path):
    write_runs(tmp_path / "runs", [])
    assert read_part(tmp_path / "runs", 0, 4) == []


def test_slices_come_back_shard_by_shard(tmp_path):
    outputs = []
    for part, shards in enumerate(({0: b"a", 3: b"bc"}, {}, {1: b"d", 3: b"e", 4: b"f"})):
        with SliceWriter(tmp_path / f"part{part}", shards=5) as writer:
            for shard, data in shards.items():
                writer.add(shard, data)
            writer.close()
        outputs.append(tmp_path / f"part{part}")
    assert [read_slices(outputs, shard) for shard in range(5)] == [[b"a"], [b"d"], [], [b"bc", b"e"], [b"f"]]


def test_slices_are_written_in_shard_order_and_a_failed_writer_leaves_nothing(tmp_path):
    with pytest.raises(ValueError, match="shard order"):
        with SliceWriter(tmp_path / "part", shards=3) as writer:
            writer.add(2, b"x")
            writer.add(1, b"y")
    assert list(tmp_path.iterdir()) == []


def test_the_digest_covers_what_each_shard_got(tmp_path):
    def digest(name, shards):
        with SliceWriter(tmp_path / name, shards=3) as writer:
            for shard, data in shards:
                writer.add(shard, data)
            return writer.close()

    assert digest("a", [(0, b"xy")]) == digest("b", [(0, b"xy")])
    assert digest("a", [(0, b"xy")]) != digest("c", [(1, b"xy")])

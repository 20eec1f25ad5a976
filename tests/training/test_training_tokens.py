"""Token shards: written once from a dataset version, read back by memory map exactly as the
in-memory packing would, split over ranks without overlap, and enough to resume a killed run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from quarry.errors import ConfigError
from quarry.records import read_records
from quarry.training.data import ByteTokenizer, EpochSampler, PackedSequences, collate
from quarry.recipes.registry import build_recipe
from quarry.training.token_data import TokenShards
from quarry.stages.tokenize import tokenize_dataset
from quarry.training.tokens import TokenizeConfig, read_manifest, token_dtype

from training_helpers import Killed, kill_at, make_docs, tiny_overrides, weights

BYTES = {"_component_": "quarry.training.data.ByteTokenizer"}


@pytest.fixture(scope="module")
def sharded_dataset(tmp_path_factory) -> Path:
    """A dataset version whose train split spans several record shards."""
    from quarry.stages.assemble import assemble
    from quarry.records import write_records

    raw = tmp_path_factory.mktemp("curated-tokens")
    write_records(raw / "part-00000.jsonl.zst", make_docs(160, seed=3))
    version = tmp_path_factory.mktemp("datasets-tokens") / "code-v2"
    assemble(raw, version, {"assemble": {"splits": {"train": 0.9, "validation": 0.1}, "shard_bytes": 4000}},
             register=False)
    return version


@pytest.fixture(scope="module")
def bpe_dir(sharded_dataset, tmp_path_factory) -> Path:
    from quarry.config.training import TokenizerParams
    from quarry.stages.tokenizer import tokenizer_for

    folder = tmp_path_factory.mktemp("bpe")
    tokenizer_for(sharded_dataset, folder, TokenizerParams(vocab_size=400))
    return folder


def _train_records(dataset: Path, split: str = "train") -> list[dict]:
    manifest = json.loads((dataset / "manifest.json").read_text())
    return [r for f in manifest["splits"][split]["files"] for r in read_records(dataset / f["path"])]


def test_shards_round_trip_to_direct_encoding_with_document_boundaries(sharded_dataset, bpe_dir, tmp_path):
    from quarry.tokenizer import Tokenizer

    manifest = tokenize_dataset(sharded_dataset, bpe_dir, tmp_path / "tokens", workers=2)
    tokenizer = Tokenizer.load(bpe_dir)
    records = _train_records(sharded_dataset)
    shards = manifest["splits"]["train"]["shards"]
    assert len(shards) > 1 and manifest["tokenizer"]["dtype"] == "uint16"
    assert manifest["splits"]["train"]["documents"] == len(records)

    tokens, offsets, ids = [], [], []
    for shard in shards:
        base = tmp_path / "tokens" / "train" / shard["name"]
        tokens.append(np.fromfile(f"{base}.bin", dtype="<u2"))
        offsets.append(np.fromfile(f"{base}.idx", dtype="<i8"))
        ids += [json.loads(line)["id"] for line in Path(f"{base}.docs.jsonl").read_text().splitlines()]
    assert ids == [r["meta"]["id"] for r in records]  # boundaries in document order, with source ids
    docs = [t[o[i]:o[i + 1]].tolist() for t, o in zip(tokens, offsets) for i in range(len(o) - 1)]
    assert docs == [tokenizer.encode(r["text"], bos=True, eos=True) for r in records]
    assert [tokenizer.decode(d) for d in docs] == [r["text"] for r in records]


def test_same_bytes_for_any_worker_count_and_a_stale_plan_is_cleared(sharded_dataset, tmp_path):
    one = tokenize_dataset(sharded_dataset, BYTES, tmp_path / "a", workers=1)
    two = tokenize_dataset(sharded_dataset, BYTES, tmp_path / "b", workers=2)
    assert one["key"] == two["key"]
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
               for f in files if f.name != "manifest.json")
    narrower = tokenize_dataset(sharded_dataset, BYTES, tmp_path / "a", TokenizeConfig(splits=("validation",)))
    assert narrower["key"] != one["key"] and list(narrower["splits"]) == ["validation"]
    assert not [p for p in (tmp_path / "a").rglob("*") if p.is_file() and "train" in p.parts]


def test_windows_equal_in_memory_packing_across_shard_edges(sharded_dataset, tmp_path):
    tokenize_dataset(sharded_dataset, BYTES, tmp_path / "tokens")
    texts = [r["text"] for r in _train_records(sharded_dataset)]
    for seq_len, max_docs in ((32, None), (57, 40)):
        mapped = TokenShards(tmp_path / "tokens", "train", seq_len, max_docs=max_docs)
        packed = PackedSequences.from_texts(texts[:max_docs], ByteTokenizer(), seq_len)
        assert len(mapped) == len(packed)
        for i in range(len(packed)):
            a, b = mapped[i], packed[i]
            assert all(torch.equal(a[k], b[k]) for k in b), (seq_len, i)
        some = [len(packed) - 1, 0, 3]
        batch, stacked = mapped.batch(some), collate([packed[i] for i in some])
        assert all(torch.equal(batch[k], stacked[k]) for k in stacked)


def test_record_shards_cut_into_runs_give_the_same_token_stream(sharded_dataset, tmp_path):
    """Token shards of shard_mb's size cut each record shard into runs of its records: more shards,
    each naming its records, and one token stream with the same documents, windows and ids."""
    whole = tokenize_dataset(sharded_dataset, BYTES, tmp_path / "whole", workers=1)
    small = TokenizeConfig(shard_mb=0.0015)  # 1,500 bytes of text: every 4,000-byte record shard is cut
    cut = tokenize_dataset(sharded_dataset, BYTES, tmp_path / "cut", small, workers=2)
    assert cut["key"] != whole["key"]
    for split in ("train", "validation"):
        shards, whole_shards = cut["splits"][split]["shards"], whole["splits"][split]["shards"]
        assert len(shards) > len(whole_shards)
        assert {k: cut["splits"][split][k] for k in ("documents", "tokens", "bytes")} == \
            {k: whole["splits"][split][k] for k in ("documents", "tokens", "bytes")}
        runs: dict[str, list] = {}
        for shard in shards:
            runs.setdefault(shard["source"], []).append(shard["records"])
        for source, ranges in runs.items():  # consecutive, from the first record to the last
            assert ranges[0][0] == 0 and all(a[1] == b[0] for a, b in zip(ranges, ranges[1:])), source

        def stream(folder: Path, entries: list) -> tuple[bytes, list[int], list[str]]:
            data, lengths, ids = b"", [], []
            for entry in entries:
                base = folder / split / entry["name"]
                data += Path(f"{base}.bin").read_bytes()
                lengths += np.diff(np.fromfile(f"{base}.idx", dtype="<i8")).tolist()
                ids += Path(f"{base}.docs.jsonl").read_text().splitlines()
            return data, lengths, ids

        assert stream(tmp_path / "cut", shards) == stream(tmp_path / "whole", whole_shards)
    one = tokenize_dataset(sharded_dataset, BYTES, tmp_path / "cut-1", small, workers=1)
    assert one == cut  # the same shards, counts and key on one worker as on two
    for seq_len in (32, 57):
        mapped, reference = TokenShards(tmp_path / "cut", "train", seq_len), TokenShards(tmp_path / "whole", "train", seq_len)
        assert len(mapped) == len(reference)
        assert all(torch.equal(mapped[i][k], reference[i][k]) for i in range(len(reference)) for k in reference[i])


def test_vocabularies_past_uint16_use_uint32(sharded_dataset, tmp_path):
    assert token_dtype(65536) == np.dtype("<u2") and token_dtype(65537) == np.dtype("<u4")
    manifest = tokenize_dataset(sharded_dataset, {"_component_": "training_helpers.WideByteTokenizer"},
                                tmp_path / "tokens", TokenizeConfig(splits=("validation",)))
    assert manifest["tokenizer"]["dtype"] == "uint32"
    data = TokenShards(tmp_path / "tokens", "validation", 16)
    first = _train_records(sharded_dataset, "validation")[0]["text"]
    assert data[0]["tokens"][:4].tolist() == [70_000, *first.encode()[:3]]


def test_ranks_read_disjoint_samples_that_cover_the_epoch():
    n, batch = 203, 4
    single = EpochSampler(n, batch * 2, seed=5, block_size=16)
    ranks = [EpochSampler(n, batch, world_size=2, rank=r, seed=5, block_size=16) for r in range(2)]
    assert single.steps_per_epoch == ranks[0].steps_per_epoch
    for epoch in range(2):
        order = [single.sample(epoch, p) for p in range(n)]
        assert sorted(order) == list(range(n))  # a permutation of the samples
        seen = {r: [] for r in range(2)}
        for step in range(single.steps_per_epoch):
            both = [ranks[r].indices(epoch, step, 0) for r in range(2)]
            for r in range(2):
                seen[r] += both[r]
            assert both[0] + both[1] == single.indices(epoch, step, 0)
        assert not set(seen[0]) & set(seen[1])
        assert sorted(seen[0] + seen[1]) == sorted(order[:single.steps_per_epoch * batch * 2])
    assert [single.sample(0, p) for p in range(n)] != [single.sample(1, p) for p in range(n)]
    assert [single.sample(0, p) for p in range(n)] == [EpochSampler(n, 8, seed=5, block_size=16).sample(0, p)
                                                        for p in range(n)]


def test_token_shards_of_another_tokenizer_are_refused(dataset_dir, tmp_path):
    tokenize_dataset(dataset_dir, {"_component_": "training_helpers.WideByteTokenizer"}, tmp_path / "tokens")
    recipe = build_recipe("pretrain", "tiny_pretrain",
                          tiny_overrides(dataset_dir, tmp_path / "out", **{"dataset.tokens": tmp_path / "tokens"}))
    with pytest.raises(ConfigError, match="made with tokenizer"):
        recipe.setup()


def test_killed_run_resumes_from_token_shards_without_the_records(dataset_dir, tmp_path):
    """Resume reads the position (epoch, step) and the memory-mapped shards: the dataset's record
    shards can be gone, and the weights still come out bit-identical to an uninterrupted run."""
    dataset = tmp_path / "dataset"
    shutil.copytree(dataset_dir, dataset)
    tokenize_dataset(dataset, BYTES, tmp_path / "tokens", TokenizeConfig(splits=("train",)))
    settings = {"max_steps": 7, "save_every_n_steps": 2, "dataset.tokens": tmp_path / "tokens",
                "dataset.shuffle_block": 8}
    build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset, tmp_path / "straight", **settings)).run()

    out = tmp_path / "killed"
    first = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset, out, **settings))
    first.on_step = kill_at(5)
    with pytest.raises(Killed):
        first.run()
    for entry in json.loads((dataset / "manifest.json").read_text())["splits"]["train"]["files"]:
        (dataset / entry["path"]).unlink()

    second = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset, out, resume="true", **settings))
    second.setup()
    assert second.step == 4
    second.train()
    straight, resumed = weights(tmp_path / "straight" / "final"), weights(out / "final")
    assert all(torch.equal(straight[name], resumed[name]) for name in straight)


def test_a_dataset_version_is_tokenised_once_into_the_cache(dataset_dir, tmp_path):
    first = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, tmp_path / "a", max_steps=1))
    first.setup()
    second = build_recipe("pretrain", "tiny_pretrain", tiny_overrides(dataset_dir, tmp_path / "b", max_steps=1))
    second.setup()
    assert first.tokens_dir == second.tokens_dir
    manifest = read_manifest(first.tokens_dir)
    assert manifest["dataset"]["version"] == first.dataset_hash()
    assert manifest["tokenizer"]["hash"] == ByteTokenizer().hash


def _reference_windows(folder: Path, split: str, seq_len: int, pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    """The split's stream and document ids built in memory, cut into [N, seq_len + 1] windows."""
    manifest = read_manifest(folder)
    tokens, docs, base = [], [], 0
    for shard in manifest["splits"][split]["shards"]:
        stem = folder / split / shard["name"]
        offsets = np.fromfile(f"{stem}.idx", dtype="<i8")
        tokens.append(np.fromfile(f"{stem}.bin", dtype=manifest["tokenizer"]["dtype"]).astype(np.int64))
        docs.append(np.repeat(np.arange(len(offsets) - 1) + base, np.diff(offsets)))
        base += len(offsets) - 1
    stream, doc_ids = np.concatenate(tokens), np.concatenate(docs)
    n = max(1, -(-(len(stream) - 1) // seq_len))
    pad = n * seq_len + 1 - len(stream)
    stream = np.concatenate([stream, np.full(pad, pad_id)])
    doc_ids = np.concatenate([doc_ids, np.full(pad, -1)])
    rows = np.arange(n)[:, None] * seq_len + np.arange(seq_len + 1)
    return stream[rows], doc_ids[rows]


def test_batches_gathered_from_bpe_shards_equal_a_reference_built_in_memory(sharded_dataset, bpe_dir, tmp_path):
    from quarry.training.data import window_batch

    tokenize_dataset(sharded_dataset, bpe_dir, tmp_path / "tokens")
    shards = read_manifest(tmp_path / "tokens")["splits"]["train"]["shards"]
    shortest = min(s["tokens"] for s in shards)
    rng = np.random.default_rng(0)
    for seq_len in (7, 64, 2 * shortest + 3):  # the last: windows that span three shards
        data = TokenShards(tmp_path / "tokens", "train", seq_len)
        tokens, docs = _reference_windows(tmp_path / "tokens", "train", seq_len, data.pad_id)
        assert len(data) == len(tokens)
        for indices in ([0], [len(data) - 1], list(range(len(data))), rng.integers(len(data), size=9).tolist()):
            got = data.batch(indices)
            expected = window_batch(torch.from_numpy(tokens[indices]), torch.from_numpy(docs[indices]), seq_len)
            assert all(torch.equal(got[k], expected[k]) for k in expected), (seq_len, indices)


def _reference_sample(sampler: EpochSampler, epoch: int, position: int) -> int:
    """The block shuffle one position at a time, as EpochSampler documents it."""
    if not sampler.shuffle:
        return position
    rng = np.random.default_rng([sampler.seed, epoch])
    blocks = rng.permutation(sampler.n // sampler.block_size)
    shift = int(rng.integers(sampler.n))
    slot, within = divmod(position, sampler.block_size)
    block = int(blocks[slot]) if slot < len(blocks) else slot
    size = min(sampler.block_size, sampler.n - block * sampler.block_size)
    inner = int(np.random.default_rng([sampler.seed, epoch, block + 1]).permutation(size)[within])
    return (block * sampler.block_size + inner + shift) % sampler.n


@pytest.mark.parametrize("n,block,shuffle", [(203, 16, True), (256, 16, True), (40, 64, True), (50, 8, False)])
def test_sample_indices_equal_the_one_at_a_time_reference(n, block, shuffle):
    for world, rank in ((1, 0), (2, 1)):
        sampler = EpochSampler(n, 3, 2, world_size=world, rank=rank, seed=7, shuffle=shuffle, block_size=block)
        for epoch in (0, 3):
            assert sampler.samples(epoch, np.arange(n)).tolist() == [_reference_sample(sampler, epoch, p)
                                                                     for p in range(n)]
            for step in range(sampler.steps_per_epoch):
                for micro in range(2):
                    start = (step * 2 + micro) * 3 * world + rank * 3
                    assert sampler.indices(epoch, step, micro) == [_reference_sample(sampler, epoch, p)
                                                                   for p in range(start, start + 3)]

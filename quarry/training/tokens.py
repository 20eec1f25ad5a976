"""Token shards: a dataset version tokenised once, then read by memory map (quarry.training.token_data).

Every record shard of a split becomes one token shard, or several (consecutive runs of its
records, ``tokenize.shard_mb`` of text each, so the work spreads over workers and a worker's piece
cache serves more than one), each of three files:

    <split>/<name>.bin          the documents' tokens, each as BOS + ids + EOS, back to back
                                (uint16 when the vocabulary fits, else uint32, little-endian)
    <split>/<name>.idx          int64 token offsets of the document starts, plus the end (n + 1)
    <split>/<name>.docs.jsonl   one line per document: its source id and UTF-8 byte count

``manifest.json`` lists the shards in order with their counts and is keyed by (dataset version,
tokenizer hash, params): a reader checks the key before trusting the folder; the shards of a split,
in order, are one token stream (quarry.training.token_data), however the record shards were cut.
Shards are pure functions of (record shard, record range, tokenizer, params), so every executor of the tokenize stage
(quarry.stages.tokenize) writes the same bytes, and the DAG's flow caches each shard on its own.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import Any

import numpy as np

from quarry.errors import ConfigError
from quarry.infra.hashing import value_hash
from quarry.config import Params, as_params
from quarry.config.training import TokenizeParams
from quarry.datasets.reader import data_shards
from quarry.datasets.versions import locate
from quarry.records import JsonDict, read_json, read_records, write_json
from quarry.training.config import instantiate
from quarry.training.pieces import PieceCache, cacheable

FORMAT = "quarry.tokens/1"
MANIFEST = "manifest.json"
SUFFIXES = (".bin", ".idx", ".docs.jsonl")


class TokenizeConfig(TokenizeParams):
    """The ``tokenize`` section of params.yaml (fields and defaults: quarry.config.training).
    ``batch_size`` only sets how many documents go to the tokenizer at once: it changes no byte,
    so it stays out of the cache key."""

    @classmethod
    def from_params(cls, params: Params | Mapping[str, Any] | None = None) -> TokenizeConfig:
        """From the ``tokenize`` section of the typed params (or of a mapping shaped like params.yaml)."""
        return cls.from_section(as_params(params).tokenize)

    def keyed(self) -> JsonDict:
        return {"splits": list(self.splits), "subset": self.subset, "shard_mb": self.shard_mb}


@dataclass(frozen=True)
class TokenShard:
    """A record shard of one split (or a run of its records) and the token shard it becomes."""

    split: str
    source: Path            # a record shard of the dataset
    name: str               # the token shard's file stem
    split_filter: str | None  # meta.split to keep, for a plain folder of shards (no manifest)
    records: tuple[int, int] | None = None  # [start, stop) of the source's records; None: all


# --- tokenizers, built once per worker process --------------------------------------------------
def tokenizer_spec(tokenizer_cfg: JsonDict | str | os.PathLike) -> str:
    """A picklable, hashable description of a tokenizer: a config node, or a tokenizer folder."""
    if isinstance(tokenizer_cfg, dict):
        return json.dumps(tokenizer_cfg, sort_keys=True)
    return json.dumps({"_component_": "quarry.tokenizer.Tokenizer.load", "path": os.fspath(tokenizer_cfg)})


@functools.lru_cache(maxsize=4)
def load_tokenizer(spec: str) -> Any:
    return instantiate(json.loads(spec))


def token_dtype(vocab_size: int) -> np.dtype:
    return np.dtype("<u2") if vocab_size <= 2 ** 16 else np.dtype("<u4")


def tokenizer_info(tokenizer: Any) -> JsonDict:
    vocab = int(tokenizer.vocab_size)
    return {"hash": str(tokenizer.hash), "vocab_size": vocab, "dtype": token_dtype(vocab).name,
            "bos_id": tokenizer.bos_id, "eos_id": tokenizer.eos_id, "pad_id": getattr(tokenizer, "pad_id", None)}


class ShardEncoder:
    """A worker's encoder: documents -> their tokens (BOS + ids + EOS) as ``dtype`` bytes, back to back.

    A plain byte-level BPE tokenizer goes through a cache of pieces (quarry.training.pieces), any
    other through its batch call (tokenizers' Rust threads) when it has one. Either way the bytes
    are those of ``tokenizer.encode(text, bos=True, eos=True)``."""

    def __init__(self, tokenizer: Any):
        self.tokenizer = tokenizer
        self.dtype = token_dtype(tokenizer.vocab_size)
        backend = getattr(tokenizer, "backend", None)
        plain = (backend is not None and hasattr(tokenizer, "encode_batch") and cacheable(backend)
                 and tokenizer.bos_id is not None and tokenizer.eos_id is not None)
        self.pieces = PieceCache(backend, self.dtype) if plain else None
        if self.pieces is not None:
            self.bos = np.asarray([tokenizer.bos_id], self.dtype).tobytes()
            self.eos = np.asarray([tokenizer.eos_id], self.dtype).tobytes()

    def encode(self, texts: list[str]) -> tuple[bytes, list[int]]:
        """The batch's token bytes and each document's token count."""
        if self.pieces is not None:
            bodies = self.pieces.encode(texts)
            size = self.dtype.itemsize
            return (b"".join(chain.from_iterable((self.bos, body, self.eos) for body in bodies)),
                    [len(body) // size + 2 for body in bodies])
        if hasattr(self.tokenizer, "encode_batch"):
            encoded = self.tokenizer.encode_batch(texts, bos=True, eos=True)
        else:
            encoded = [self.tokenizer.encode(text, bos=True, eos=True) for text in texts]
        lengths = [len(ids) for ids in encoded]
        flat = np.fromiter(chain.from_iterable(encoded), dtype=self.dtype, count=sum(lengths))
        return flat.tobytes(), lengths


@functools.lru_cache(maxsize=4)
def shard_encoder(spec: str) -> ShardEncoder:
    """One encoder per tokenizer and worker process: its piece cache carries over from shard to shard."""
    return ShardEncoder(load_tokenizer(spec))


# --- the plan: which record shards become which token shards -----------------------------------
def plan(dataset: str | os.PathLike, config: TokenizeConfig) -> list[TokenShard]:
    """The token shards of every split the config names, in manifest order: one per record shard,
    or, where the manifest gives a shard's size and record count, one per run of about
    ``shard_mb`` of its text (a plain folder of shards: one per shard)."""
    manifest, data, _ = locate(str(dataset))
    if data is None or not Path(data).exists():
        raise ConfigError(f"{dataset}: no such dataset folder")
    jobs = []
    for split in config.splits:
        if manifest is not None:
            if split not in manifest["splits"]:
                raise ConfigError(f"{data}: no split '{split}'; splits: {', '.join(manifest['splits'])}")
            for i, entry in enumerate(manifest["splits"][split]["files"]):
                source = Path(data) / entry["path"]
                jobs += _parts(split, source, f"{i:05d}-{_stem(source)}", entry, config.shard_mb)
        else:
            jobs += [TokenShard(split, source, f"{i:05d}-{_stem(source)}", split)
                     for i, source in enumerate(data_shards(Path(data)))]
    return jobs


def _parts(split: str, source: Path, name: str, entry: JsonDict, shard_mb: float) -> list[TokenShard]:
    """A record shard's token shards: consecutive, equal runs of its records, as many as its text
    holds ``shard_mb`` (by the manifest's bytes and records; one when it does not give them)."""
    records = entry.get("records") or 0
    parts = min(records, math.ceil((entry.get("bytes") or 0) / (shard_mb * 1e6)))
    if parts <= 1:
        return [TokenShard(split, source, name, None)]
    bounds = [k * records // parts for k in range(parts + 1)]
    return [TokenShard(split, source, f"{name}-{k:03d}", None, (bounds[k], bounds[k + 1])) for k in range(parts)]


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".zst", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name


def cache_key(dataset_version: str | None, tokenizer_hash: str, config: TokenizeConfig) -> str:
    return value_hash({"format": FORMAT, "dataset": dataset_version, "tokenizer": tokenizer_hash,
                       "params": config.keyed()})


# --- one shard ---------------------------------------------------------------------------------
def shard_files(out_dir: str | os.PathLike, job: TokenShard) -> list[Path]:
    """The files the token shard of ``job`` consists of (.bin, .idx, .docs.jsonl)."""
    return [Path(out_dir) / job.split / f"{job.name}{suffix}" for suffix in SUFFIXES]


def tokenize_shard(job: TokenShard, spec: str, out_dir: str | os.PathLike, config: TokenizeConfig) -> JsonDict:
    """Write the token shard of one record shard (or of a run of its records); returns its manifest entry."""
    encoder = shard_encoder(spec)
    files = dict(zip(SUFFIXES, shard_files(out_dir, job)))
    files[".bin"].parent.mkdir(parents=True, exist_ok=True)
    tmp = {suffix: Path(f"{path}.tmp") for suffix, path in files.items()}
    lengths, n_bytes = [], 0
    try:
        with open(tmp[".bin"], "wb") as bin_out, open(tmp[".docs.jsonl"], "wb") as docs_out:
            for batch in _batches(_documents(job, config), config.batch_size):
                texts = [r["text"] for r in batch]
                tokens, counts = encoder.encode(texts)
                bin_out.write(tokens)
                lengths.extend(counts)
                lines = []
                for record, text in zip(batch, texts):
                    size = len(text.encode("utf-8"))
                    n_bytes += size
                    lines.append(json.dumps({"id": (record.get("meta") or {}).get("id"), "bytes": size},
                                            ensure_ascii=False).encode() + b"\n")
                docs_out.write(b"".join(lines))
        offsets = np.concatenate(([0], np.cumsum(lengths, dtype="<i8"))).astype("<i8")
        offsets.tofile(tmp[".idx"])
        for suffix, path in tmp.items():
            os.replace(path, files[suffix])
    except BaseException:
        for path in tmp.values():
            path.unlink(missing_ok=True)
        raise
    run = {"records": list(job.records)} if job.records else {}  # which of the source's records
    return {"name": job.name, "source": job.source.name, **run, "documents": len(lengths),
            "tokens": int(offsets[-1]), "bytes": n_bytes}


def _documents(job: TokenShard, config: TokenizeConfig):
    records = read_records(job.source)
    if job.records is not None:
        records = islice(records, *job.records)
    for record in records:
        meta = record.get("meta") or {}
        if job.split_filter is not None and meta.get("split") != job.split_filter:
            continue
        if config.subset is not None and meta.get("pile_set_name") != config.subset:
            continue
        yield record


def _batches(items, size: int):
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


# --- the manifest --------------------------------------------------------------------------------
def write_manifest(out_dir: str | os.PathLike, dataset: str | os.PathLike, spec: str, config: TokenizeConfig,
                   jobs: list[TokenShard], entries: list[JsonDict]) -> JsonDict:
    """Write manifest.json (last, atomically) and remove files no entry names (an earlier plan's)."""
    from quarry.datasets.reader import dataset_version

    out = Path(out_dir)
    info = tokenizer_info(load_tokenizer(spec))
    version = dataset_version(dataset)
    splits: JsonDict = {}
    for job, entry in zip(jobs, entries):
        split = splits.setdefault(job.split, {"documents": 0, "tokens": 0, "bytes": 0, "shards": []})
        split["shards"].append(entry)
        for key in ("documents", "tokens", "bytes"):
            split[key] += entry[key]
    manifest = {"format": FORMAT, "key": cache_key(version, info["hash"], config),
                "dataset": {"path": os.fspath(dataset), "version": version}, "tokenizer": info,
                "params": config.keyed(), "splits": splits}
    keep = {path for job in jobs for path in shard_files(out, job)}
    for path in sorted(out.rglob("*")):
        if path.is_file() and path.name != MANIFEST and path not in keep:
            path.unlink()
    write_json(out / MANIFEST, manifest)
    return manifest


def read_manifest(folder: str | os.PathLike) -> JsonDict:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise ConfigError(f"{folder}: not a token-shard folder (no {MANIFEST}); `quarry flow tokenize` writes one")
    manifest = read_json(path)
    if manifest.get("format") != FORMAT:
        raise ConfigError(f"{path}: format {manifest.get('format')!r}, expected {FORMAT}")
    return manifest

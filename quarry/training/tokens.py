"""Token shards: a dataset version tokenised once, then read by memory map (quarry.training.token_data).

Every record shard of a split becomes one token shard of three files:

    <split>/<name>.bin          the documents' tokens, each as BOS + ids + EOS, back to back
                                (uint16 when the vocabulary fits, else uint32, little-endian)
    <split>/<name>.idx          int64 token offsets of the document starts, plus the end (n + 1)
    <split>/<name>.docs.jsonl   one line per document: its source id and UTF-8 byte count

``manifest.json`` lists the shards in order with their counts and is keyed by (dataset version,
tokenizer hash, params): a reader checks the key before trusting the folder. Shards are pure
functions of (record shard, tokenizer, params), so every executor of the tokenize stage
(quarry.stages.tokenize) writes the same bytes, and the DAG's flow caches each shard on its own.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from quarry.errors import ConfigError
from quarry.hashing import value_hash
from quarry.config import Params, as_params
from quarry.config.training import TokenizeParams
from quarry.datasets.reader import data_shards
from quarry.datasets.versions import locate
from quarry.records import JsonDict, read_json, read_records, write_json
from quarry.training.config import instantiate

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
        return {"splits": list(self.splits), "subset": self.subset}


@dataclass(frozen=True)
class TokenShard:
    """A record shard of one split and the token shard it becomes."""

    split: str
    source: Path            # a record shard of the dataset
    name: str               # the token shard's file stem
    split_filter: str | None  # meta.split to keep, for a plain folder of shards (no manifest)


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


def encode_documents(tokenizer: Any, texts: list[str]) -> list[list[int]]:
    """BOS + ids + EOS per text, in one batch call when the tokenizer has one (Rust threads)."""
    if hasattr(tokenizer, "encode_batch"):
        return tokenizer.encode_batch(texts, bos=True, eos=True)
    return [tokenizer.encode(text, bos=True, eos=True) for text in texts]


# --- the plan: which record shards become which token shards -----------------------------------
def plan(dataset: str | os.PathLike, config: TokenizeConfig) -> list[TokenShard]:
    """One job per record shard of every split the config names, in manifest order."""
    manifest, data, _ = locate(str(dataset))
    if data is None or not Path(data).exists():
        raise ConfigError(f"{dataset}: no such dataset folder")
    jobs = []
    for split in config.splits:
        if manifest is not None:
            if split not in manifest["splits"]:
                raise ConfigError(f"{data}: no split '{split}'; splits: {', '.join(manifest['splits'])}")
            sources, split_filter = [Path(data) / f["path"] for f in manifest["splits"][split]["files"]], None
        else:
            sources, split_filter = data_shards(Path(data)), split
        for i, source in enumerate(sources):
            jobs.append(TokenShard(split, source, f"{i:05d}-{_stem(source)}", split_filter))
    return jobs


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
    """Write the token shard of one record shard; returns its manifest entry."""
    tokenizer = load_tokenizer(spec)
    dtype = token_dtype(tokenizer.vocab_size)
    files = dict(zip(SUFFIXES, shard_files(out_dir, job)))
    files[".bin"].parent.mkdir(parents=True, exist_ok=True)
    tmp = {suffix: Path(f"{path}.tmp") for suffix, path in files.items()}
    offsets, n_bytes = [0], 0
    try:
        with open(tmp[".bin"], "wb") as bin_out, open(tmp[".docs.jsonl"], "wb") as docs_out:
            for batch in _batches(_documents(job, config), config.batch_size):
                encoded = encode_documents(tokenizer, [r["text"] for r in batch])
                for record, ids in zip(batch, encoded):
                    bin_out.write(np.asarray(ids, dtype=dtype).tobytes())
                    offsets.append(offsets[-1] + len(ids))
                    size = len(record["text"].encode("utf-8"))
                    n_bytes += size
                    docs_out.write(json.dumps({"id": (record.get("meta") or {}).get("id"), "bytes": size},
                                              ensure_ascii=False).encode() + b"\n")
        np.asarray(offsets, dtype="<i8").tofile(tmp[".idx"])
        for suffix, path in tmp.items():
            os.replace(path, files[suffix])
    except BaseException:
        for path in tmp.values():
            path.unlink(missing_ok=True)
        raise
    return {"name": job.name, "source": job.source.name, "documents": len(offsets) - 1,
            "tokens": offsets[-1], "bytes": n_bytes}


def _documents(job: TokenShard, config: TokenizeConfig):
    for record in read_records(job.source):
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
    from quarry.training.data import dataset_version  # torch (quarry.training.data): tokenizing needs no torch until here

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

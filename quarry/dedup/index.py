"""Per-shard dedup index: exact hashes, MinHash signatures, band keys and survival keys.

One pass over a shard writes small numpy files beside each other under an index prefix; the
clustering step reads only these, never the text. Row i of every file is record i of the shard.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from quarry.dedup.config import DedupConfig
from quarry.dedup.minhash import band_keys
from quarry.dedup.shingles import encode, normalized_content_hash
from quarry.records import read_records

SUFFIXES = ("exact.npy", "sig.npy", "has_sig.npy", "bands.npy", "keys.json")


def index_files(prefix: Path) -> dict[str, Path]:
    return {suffix.split(".")[0]: Path(f"{prefix}.{suffix}") for suffix in SUFFIXES}


def survival_key(meta: dict[str, Any], config: DedupConfig) -> list:
    """Sort key of a copy: the smallest survives (permissive first, then origin, path, id)."""
    return [config.license_rank(meta), str(meta.get("origin") or ""), str(meta.get("path") or ""),
            str(meta.get("id") or "")]


def save_scratch(path: Path, data: np.ndarray | bytes) -> None:
    """Atomic (temp + rename) but not fsynced: index files are scratch, rebuilt from the shards."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        if isinstance(data, bytes):
            fh.write(data)
        else:
            np.save(fh, data, allow_pickle=False)
    os.replace(tmp, path)


def index_shard(src: Path, prefix: Path, config: DedupConfig) -> dict[str, int]:
    """Index one shard under ``prefix``; returns its record and byte counts."""
    exact: list[tuple[int, int]] = []
    keys: list[list] = []
    nbytes = 0

    def texts():
        nonlocal nbytes
        for record in read_records(src):
            data = encode(record["text"])
            nbytes += len(data)
            exact.append(normalized_content_hash(data))
            keys.append(survival_key(record.get("meta") or {}, config))
            yield data

    sigs, has_sig = config.hasher().signatures(texts())
    bands, rows = config.band_shape()
    files = index_files(prefix)
    save_scratch(files["exact"], np.array(exact, dtype=np.uint64).reshape(-1, 2))
    save_scratch(files["sig"], sigs)
    save_scratch(files["has_sig"], has_sig)
    save_scratch(files["bands"], band_keys(sigs, bands, rows, config.seed))
    save_scratch(files["keys"], orjson.dumps(keys))
    return {"records": len(keys), "bytes": nbytes}

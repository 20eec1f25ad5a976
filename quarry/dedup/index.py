"""Per-shard dedup index: exact hashes, MinHash signatures, band keys and survival keys.

One pass over a shard writes small numpy files beside each other under an index prefix; the
clustering step reads only these, never the text. Row i of every file is record i of the shard.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import orjson

from quarry.dedup.config import DedupConfig
from quarry.dedup.minhash import band_keys
from quarry.dedup.shingles import normalized_content_hash
from quarry.records import atomic_write_bytes, read_records

SUFFIXES = ("exact.npy", "sig.npy", "has_sig.npy", "bands.npy", "keys.json")


def index_files(prefix: Path) -> dict[str, Path]:
    return {suffix.split(".")[0]: Path(f"{prefix}.{suffix}") for suffix in SUFFIXES}


def survival_key(meta: dict[str, Any], config: DedupConfig) -> list:
    """Sort key of a copy: the smallest survives (permissive first, then origin, path, id)."""
    return [config.license_rank(meta), str(meta.get("origin") or ""), str(meta.get("path") or ""),
            str(meta.get("id") or "")]


def _save_npy(path: Path, array: np.ndarray) -> None:
    import io

    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    atomic_write_bytes(path, buf.getvalue())


def index_shard(src: Path, prefix: Path, config: DedupConfig) -> dict[str, int]:
    """Index one shard under ``prefix``; returns its record and byte counts."""
    exact: list[tuple[int, int]] = []
    keys: list[list] = []
    nbytes = 0

    def texts():
        nonlocal nbytes
        for record in read_records(src):
            text = record["text"]
            nbytes += len(text)
            exact.append(normalized_content_hash(text))
            keys.append(survival_key(record.get("meta") or {}, config))
            yield text

    sigs, has_sig = config.hasher().signatures(texts())
    bands, rows = config.band_shape()
    files = index_files(prefix)
    _save_npy(files["exact"], np.array(exact, dtype=np.uint64).reshape(-1, 2))
    _save_npy(files["sig"], sigs)
    _save_npy(files["has_sig"], has_sig)
    _save_npy(files["bands"], band_keys(sigs, bands, rows, config.seed))
    atomic_write_bytes(files["keys"], orjson.dumps(keys))
    return {"records": len(keys), "chars": nbytes}

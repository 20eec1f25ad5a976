"""Per-shard dedup index: exact hashes, MinHash signatures, band keys and survival keys.

One pass over a shard writes numpy files beside each other under an index prefix; the
clustering step reads only these, never the text. Row i of every file is record i of the shard.
Signatures, band keys and hashes are a few hundred bytes per document; with exact verification
the sorted shingle sets are kept too (8 bytes per distinct word n-gram), memory-mapped later.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import orjson

from quarry.curation.dedup.config import DedupConfig
from quarry.curation.dedup.minhash import band_keys
from quarry.curation.dedup.shingles import encode, normalized_content_hash, shingles, sorted_unique
from quarry.engine.partitions import text_key, write_runs
from quarry.records import JsonDict, json_bytes, read_records

SUFFIXES = ("exact.npy", "exact_sorted.npy", "sig.npy", "has_sig.npy", "bands.npy", "keys.bin", "keys_offsets.npy")
SHINGLE_SUFFIXES = ("shingles.npy", "offsets.npy")  # only when pairs are verified exactly


def index_files(prefix: Path, with_shingles: bool = False) -> dict[str, Path]:
    suffixes = SUFFIXES + (SHINGLE_SUFFIXES if with_shingles else ())
    return {suffix.split(".")[0]: Path(f"{prefix}.{suffix}") for suffix in suffixes}


def origins_prefix(prefix: Path) -> Path:
    """Where a shard's files are listed by origin (sorted by origin key), for repository dedup."""
    return Path(f"{prefix}.origins")


def survival_key(meta: JsonDict, config: DedupConfig) -> list:
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


def origin_entries(keys: list[list], hashes: np.ndarray, has_sig: np.ndarray) -> list[tuple[int, bytes]]:
    """Per origin of the shard: its files (row, path, licence rank, content hash, has a signature),
    keyed by the origin for partitions of repository dedup to read."""
    files: dict[str, list] = {}
    for row, (rank, origin, path, _) in enumerate(keys):
        if origin:
            files.setdefault(origin, []).append([row, path, rank, int(hashes[row, 0]), int(hashes[row, 1]),
                                                 bool(has_sig[row])])
    return [(text_key(origin), json_bytes([origin, listed])) for origin, listed in files.items()]


def index_shard(src: Path, prefix: Path, config: DedupConfig) -> dict[str, int]:
    """Index one shard under ``prefix``; returns its record and byte counts."""
    exact: list[tuple[int, int]] = []
    keys: list[list] = []
    kept_sets: list[np.ndarray] = []
    keep_sets = config.verify == "exact"
    nbytes = 0

    def shingle_sets():
        nonlocal nbytes
        for record in read_records(src):
            data = encode(record["text"])
            nbytes += len(data)
            exact.append(normalized_content_hash(data))
            meta = record.get("meta")
            keys.append(survival_key(meta if isinstance(meta, dict) else {}, config))
            unique = sorted_unique(shingles(data, config.ngram))  # sorted: exact verification intersects
            if keep_sets:
                kept_sets.append(unique)
            yield unique

    sigs, has_sig = config.hasher().signatures_of_sets(shingle_sets())
    bands, rows = config.band_shape()
    files = index_files(prefix, with_shingles=keep_sets)
    save_scratch(files["exact"], np.array(exact, dtype=np.uint64).reshape(-1, 2))
    save_scratch(files["sig"], sigs)
    save_scratch(files["has_sig"], has_sig)
    # band-major, so the clustering step reads one band of a shard as one contiguous run
    save_scratch(files["bands"], np.ascontiguousarray(band_keys(sigs, bands, rows, config.seed).T))
    # sorted by content hash, so a partition of the hash space reads its documents as one run
    rows = np.arange(len(exact), dtype=np.uint64)
    hashes = np.array(exact, dtype=np.uint64).reshape(-1, 2)
    order = np.lexsort((rows, hashes[:, 1], hashes[:, 0]))
    save_scratch(files["exact_sorted"], np.column_stack([hashes[order], rows[order]]))
    encoded = [json_bytes(key) for key in keys]  # one at a time, by offset: a partition reads a few
    key_offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(key) for key in encoded], out=key_offsets[1:])
    save_scratch(files["keys"], b"".join(encoded))
    save_scratch(files["keys_offsets"], key_offsets)
    origin_bytes = write_runs(origins_prefix(prefix), origin_entries(keys, hashes, has_sig))
    if keep_sets:
        offsets = np.zeros(len(kept_sets) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in kept_sets], out=offsets[1:])
        save_scratch(files["offsets"], offsets)
        save_scratch(files["shingles"], np.concatenate(kept_sets) if kept_sets else np.empty(0, np.uint64))
    return {"records": len(keys), "bytes": nbytes, "origin_bytes": origin_bytes}


class ShardIndex:
    """The index files of all shards, addressed by a global document number."""

    def __init__(self, prefixes: list[Path], with_shingles: bool = False, offsets: np.ndarray | None = None):
        """``offsets``: each shard's first document number (and the total), when known already:
        otherwise every shard's size is read."""
        self.prefixes = [Path(p) for p in prefixes]
        self.files = [index_files(p, with_shingles) for p in self.prefixes]
        if offsets is None:
            sizes = [len(np.load(f["has_sig"], mmap_mode="r")) for f in self.files]
            offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self._keys: dict[int, tuple[np.ndarray, bytes]] = {}
        self._sets: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def total(self) -> int:
        return int(self.offsets[-1])

    def concat(self, name: str, row: int | None = None) -> np.ndarray:
        """A per-shard array over all shards (or one row of it: band keys are stored band-major)."""
        parts = []
        for f in self.files:
            array = np.load(f[name], mmap_mode="r")
            parts.append(np.asarray(array if row is None else array[row]))
        return np.concatenate(parts) if parts else np.empty(0)

    def signature_shards(self):
        """(first document number, memory-mapped signatures) of every shard, in order."""
        for first, files in zip(self.offsets.tolist(), self.files, strict=False):
            yield first, np.load(files["sig"], mmap_mode="r")

    def locate(self, doc: int) -> tuple[int, int]:
        shard = int(np.searchsorted(self.offsets, doc, side="right") - 1)
        return shard, int(doc - self.offsets[shard])

    def gather(self, name: str, docs: np.ndarray) -> np.ndarray:
        """Rows of a per-shard array for global document numbers, reading only those rows."""
        shards = np.searchsorted(self.offsets, docs, side="right") - 1
        out = None
        for shard in np.unique(shards):
            mask = shards == shard
            array = np.load(self.files[shard][name], mmap_mode="r")
            rows = array[docs[mask] - self.offsets[shard]]
            if out is None:
                out = np.empty((len(docs),) + rows.shape[1:], dtype=rows.dtype)
            out[mask] = rows
        return out if out is not None else np.empty(0)

    def shingle_set(self, doc: int) -> np.ndarray:
        shard, row = self.locate(doc)
        if shard not in self._sets:
            files = self.files[shard]
            self._sets[shard] = (np.load(files["offsets"]), np.load(files["shingles"], mmap_mode="r"))
        offsets, flat = self._sets[shard]
        return np.asarray(flat[offsets[row]:offsets[row + 1]])

    def key(self, doc: int) -> list:
        """A document's survival key (its shard's keys are read once and kept)."""
        shard, row = self.locate(doc)
        if shard not in self._keys:
            self._keys[shard] = (np.load(self.files[shard]["keys_offsets"]), self.files[shard]["keys"].read_bytes())
        offsets, data = self._keys[shard]
        return orjson.loads(data[offsets[row]:offsets[row + 1]])

    def keys_of(self, docs: np.ndarray) -> list[list]:
        """The survival keys of ``docs`` (ascending), each read alone: nothing is kept."""
        found = []
        shards = np.searchsorted(self.offsets, docs, side="right") - 1
        for shard in np.unique(shards).tolist():
            rows = (docs[shards == shard] - self.offsets[shard]).tolist()
            offsets = np.load(self.files[shard]["keys_offsets"], mmap_mode="r")
            with open(self.files[shard]["keys"], "rb") as fh:
                for row in rows:
                    start, end = int(offsets[row]), int(offsets[row + 1])
                    fh.seek(start)
                    found.append(orjson.loads(fh.read(end - start)))
        return found

    def all_keys(self, shard: int) -> list[list]:
        """Every survival key of one shard, in row order."""
        offsets, data = np.load(self.files[shard]["keys_offsets"]).tolist(), self.files[shard]["keys"].read_bytes()
        return [orjson.loads(data[start:end]) for start, end in zip(offsets, offsets[1:])]


def save_layout(folder: Path, prefixes: list[Path], sizes: list[int]) -> Path:
    """The index's shards and their first document numbers, written once for every partition to
    read (a list of every shard would otherwise travel with each one)."""
    folder.mkdir(parents=True, exist_ok=True)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    save_scratch(folder / "offsets.npy", offsets)
    save_scratch(folder / "layout.json", orjson.dumps([str(p) for p in prefixes]))
    return folder / "layout.json"


def load_index(layout: str | os.PathLike, with_shingles: bool = False) -> ShardIndex:
    layout = Path(layout)
    return ShardIndex(orjson.loads(layout.read_bytes()), with_shingles, offsets=np.load(layout.with_name("offsets.npy")))

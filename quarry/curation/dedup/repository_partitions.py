"""Repository dedup (quarry.curation.dedup.repository) split into partitions, each a task of its own
(quarry.stages.dedup), so that no process holds every repository's files.

1. Repositories, partition p of the origin-key space: each origin's files, from its entries in
   every shard's index (in shard order), its MinHash, and a table of its repositories by origin;
   then what can make a pair: each counted file's (path, content) and each band of the
   repository MinHash, keyed for the next step.
2. Candidates, partition q of that key space: the repositories holding one key pair up (unless so
   many do that it is boilerplate); each pair is keyed for the next step, so a pair found by
   several keys is verified once.
3. Pairs, partition r: each candidate pair verified (``repository.verdict``), both repositories
   read from their tables.
4. Groups (global, per repository, not per file): the verified pairs joined into groups, each
   in canonical order (``Repository.key``), keyed by its canonical repository's origin.
5. Copies, partition p of that origin-key space: each group's copies' files that an earlier
   member holds (``repository.group_decisions``) are dropped, written per shard
   (quarry.curation.dedup.decisions).

Every step decides what ``repository_duplicates`` decides in one process, for any partition counts.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import numpy as np
import orjson

from quarry.config.curation import RepositoryParams
from quarry.curation.dedup.decisions import write_by_shard
from quarry.curation.dedup.index import ShardIndex, origins_prefix
from quarry.curation.dedup.parts import CandidatePairs, CopiesDecided, CopyGroups, RepositoryTable, VerifiedPairs
from quarry.curation.dedup.repository import (LISTED_PAIRS, RepoFile, Repository, band_keys_of,
                                              group_decisions, groups_of, holder_keys, shared_pairs, signature_of,
                                              verdict)
from quarry.engine.partitions import lookup, owner, read_part, text_key, write_runs
from quarry.records import atomic_write_bytes, json_bytes

# What a partition holds, as measured (tracemalloc) on bench/scale.py's 1 GB corpus of real code
ENTRY_BYTES = 8      # per byte of index entries a repositories partition reads: parsed files, keys
KEY_BYTES = 7        # per byte of keys a candidates partition reads: the keys, their holders
PAIR_BYTES = 20_000  # per candidate pair: the repositories read for it (kept while later pairs need them)
READ_REPOSITORIES = 4096   # repositories a partition keeps read (pairs come in origin order)
MB = 1e6


def _gather(index: ShardIndex):
    return lambda docs: index.gather("sig", np.asarray(docs, dtype=np.int64))


def _encode(repo: Repository) -> bytes:
    signature = None if repo.signature is None else repo.signature.tolist()
    return json_bytes([repo.origin, signature, [[f.doc, f.path, f.rank, *f.exact, f.has_sig] for f in repo.files]])


def _decode(data: bytes) -> Repository:
    origin, signature, files = orjson.loads(data)
    return Repository(origin, [RepoFile(doc, path, rank, (e0, e1), has_sig) for doc, path, rank, e0, e1, has_sig in files],
                      None if signature is None else np.array(signature, dtype=np.uint32))


class Tables:
    """Every repository by origin, from the tables the repository partitions wrote; the last
    READ_REPOSITORIES read are kept."""

    def __init__(self, outs: list[str]):
        self.outs = outs
        self._read: OrderedDict[str, Repository] = OrderedDict()

    def __getitem__(self, origin: str) -> Repository:
        if origin in self._read:
            self._read.move_to_end(origin)
            return self._read[origin]
        key = text_key(origin)
        table = f"{self.outs[int(owner(np.uint64(key), len(self.outs)))]}.repos"
        self._read[origin] = next(repo for data in lookup(table, key) if (repo := _decode(data)).origin == origin)
        if len(self._read) > READ_REPOSITORIES:
            self._read.popitem(last=False)
        return self._read[origin]


def repository_partition(index: ShardIndex, part: int, parts: int, out: Path, seed: int) -> RepositoryTable:
    """Step 1 for the origins in partition ``part``: their tables and their keys."""
    files: dict[str, list[RepoFile]] = {}
    read = 0
    for shard, prefix in enumerate(index.prefixes):  # in shard order: a repository's files in document order
        first = int(index.offsets[shard])
        for _, data in read_part(origins_prefix(prefix), part, parts):
            read += len(data)
            origin, listed = orjson.loads(data)
            files.setdefault(origin, []).extend(RepoFile(first + row, path, rank, (e0, e1), has_sig)
                                                for row, path, rank, e0, e1, has_sig in listed)
    table, keys = [], []
    for origin in sorted(files):
        repo = Repository(origin, files.pop(origin))
        repo.signature = signature_of(repo, _gather(index))
        table.append((text_key(origin), _encode(repo)))
        keys.extend((text_key(f"h\0{path}\0{e0}\0{e1}"), json_bytes(["h", path, e0, e1, origin]))
                    for path, e0, e1 in holder_keys(repo))
        keys.extend((text_key(f"b\0{band}\0{key}"), json_bytes(["b", band, key, origin]))
                    for band, key in enumerate(band_keys_of(repo.signature, seed) or ()))
    write_runs(f"{out}.repos", table)
    write_runs(f"{out}.keys", keys)
    return RepositoryTable(out=str(out), repositories=len(table), peak_mb=round(read * ENTRY_BYTES / MB, 3))


def candidate_partition(sources: list[str], part: int, parts: int, out: Path) -> CandidatePairs:
    """Step 2: the pairs of repositories sharing a key in partition ``part``."""
    owners: dict[tuple, list[str]] = {}
    read = 0
    for source in sources:
        for _, data in read_part(f"{source}.keys", part, parts):
            read += len(data)
            *key, origin = orjson.loads(data)
            owners.setdefault(tuple(key), []).append(origin)
    pairs = {pair for holders in owners.values() for pair in shared_pairs(holders)}
    write_runs(f"{out}.pairs", ((text_key(f"{a}\0{b}"), json_bytes([a, b])) for a, b in pairs))
    return CandidatePairs(out=str(out), pairs=len(pairs), peak_mb=round(read * KEY_BYTES / MB, 3))


def pair_partition(index: ShardIndex, sources: list[str], tables: list[str], part: int, parts: int, out: Path,
                   config: RepositoryParams) -> VerifiedPairs:
    """Step 3: the candidate pairs of partition ``part``, each once, verified: the pairs joined
    (with both repositories' canonical keys) in a file, the first LISTED_PAIRS (origin order) for
    the ledger."""
    pairs = sorted({tuple(orjson.loads(data)) for source in sources
                    for _, data in read_part(f"{source}.pairs", part, parts)})
    repos = Tables(tables)
    listed, edges = [], []
    for a, b in pairs:
        if (found := verdict(repos[a], repos[b], _gather(index), config)) is not None:
            edges.append([a, b, repos[a].key(), repos[b].key()])
            if len(listed) < LISTED_PAIRS:
                listed.append(found)
    atomic_write_bytes(Path(f"{out}.edges.json"), orjson.dumps(edges), durable=False)
    return VerifiedPairs(edges=f"{out}.edges.json", verified=len(edges), listed=listed, pairs=len(pairs),
                         peak_mb=round(len(pairs) * PAIR_BYTES / MB, 3))


def group_copies(partitions: list[VerifiedPairs], out: Path) -> CopyGroups:
    """Step 4: the groups the verified pairs make, each in canonical order, as runs by its canonical
    repository's origin; the groups' stats.
    Holds the verified pairs (two origins and their keys each), never a repository's files."""
    edges, key = [], {}
    for found in partitions:
        for a, b, key_a, key_b in orjson.loads(Path(found.edges).read_bytes()):
            edges.append((a, b))
            key[a], key[b] = tuple(key_a), tuple(key_b)
    assigned, groups = [], 0
    for members in groups_of(edges):
        groups += 1
        ordered = sorted(members, key=key.__getitem__)   # canonical order, as Repository.key sorts
        assigned.append((text_key(ordered[0]), json_bytes(ordered)))
    write_runs(out, assigned)
    listed = sorted((pair for found in partitions for pair in found.listed), key=lambda pair: pair["repositories"])
    return CopyGroups(assigned=str(out), repository_groups=groups, repository_pairs_verified=len(edges),
                      repository_pairs=listed[:LISTED_PAIRS])


def copy_partition(index: ShardIndex, assigned: str, tables: list[str], part: int, out: Path,
                   config: RepositoryParams) -> CopiesDecided:
    """Step 5: the files the copies of the groups in partition ``part`` share with earlier members,
    dropped as ``duplicate_repository`` (written per shard), and the documents so removed."""
    repos = Tables(tables)
    decisions: dict[int, list] = {}
    removed = kept = 0
    for _, data in read_part(assigned, part, len(tables)):
        ordered = orjson.loads(data)
        copied, own = group_decisions([repos[origin] for origin in ordered], _gather(index), config)
        decisions.update(copied)
        removed, kept = removed + len(ordered) - 1, kept + own
    digest = write_by_shard(out, decisions, index.offsets)
    dropped = Path(f"{out}.removed.npy")
    np.save(dropped, np.array(sorted(decisions), dtype=np.int64))
    return CopiesDecided(slices=str(out), digest=digest, removed=str(dropped), repositories_removed=removed,
                         fork_files_kept=kept, repository_files_removed=len(decisions))

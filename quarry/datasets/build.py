"""Build dataset versions: the assemble stage's plan and publication (quarry.stages.assemble runs
them: curated shards -> a released version) and `derive_version` (a parent version minus some
documents, e.g. after new opt-outs).

A version is built in a hidden staging folder beside its destination and swapped in at the end,
so an interrupted build leaves the previous version in place. It is then recorded in the local
release registry with its document index and its changelog from the parent.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from quarry.config import Params
from quarry.config.datasets import AssembleParams
from quarry.datasets import attribution, changelog, datacard, versions
from quarry.datasets.attribution import Credits
from quarry.datasets.composition import Composition
from quarry.datasets.manifest import Manifest
from quarry.datasets.manifest import (MANIFEST, SCHEMA, ledger_paths, normalise_ledgers, params_hash, read_manifest,
                                      seal, shard_entries, write_sums)
from quarry.datasets.mixture import Mixture, uses_weights
from quarry.splits import SPLITS_FILE, SplitCensus, document_of, moved_counts, recorded_moves, stratify, subset_of
from quarry.datasets.reader import data_shards, open_dataset
from quarry.datasets.shards import STAGE
from quarry.engine.partitions import partition_count
from quarry.errors import QuarryError
from quarry.infra.hashing import tree_hash, value_hash
from quarry.ledger import Ledger, merge_ledgers
from quarry.records import JsonDict, RecordWriter, read_json, read_records, write_json
from quarry.tracking import git_commit

DERIVE_STAGE = "derive"
log = logging.getLogger(__name__)


@dataclass
class Plan:
    """What a build reads and how it writes: the source shards, the mixture, the shard format."""

    sources: list[Path]
    mixture: Mixture
    section: AssembleParams


@dataclass(frozen=True)
class CensusNeeds:
    """What the plan must learn by reading every input shard: the bytes per subset (weights are
    shares of them) and the split census (not where decontamination recorded the moves for these
    settings: the test split released is then the one it protected)."""

    subset_bytes: bool
    census: bool


@dataclass(frozen=True)
class ShardCensus:
    """One input shard's share of what the plan needs (CensusNeeds)."""

    subset_bytes: dict[str, int]
    census: dict | None      # SplitCensus.to_dict


def census_needs(src_dir: str | os.PathLike, section: AssembleParams) -> CensusNeeds:
    recorded = Path(src_dir) / SPLITS_FILE
    moved = recorded_moves(recorded, section.splits, section.stratify)
    if moved is None and recorded.exists():
        log.warning("%s: recorded for other assemble.splits / assemble.stratify; deciding again", recorded)
    return CensusNeeds(uses_weights(section.as_dict()), moved is None)


def shard_census(source: Path, section: AssembleParams, needs: CensusNeeds) -> ShardCensus:
    """The shard's UTF-8 bytes per subset and split census, as far as ``needs`` asks, in one read."""
    sizes: dict[str, int] = {}
    documents: list[tuple[str, str]] = []
    if needs.subset_bytes or needs.census:
        for record in read_records(source):
            if needs.subset_bytes:
                subset = subset_of(record)
                sizes[subset] = sizes.get(subset, 0) + len(record["text"].encode("utf-8"))
            if needs.census and (document := document_of(record)) is not None:
                documents.append(document)
    census = SplitCensus.of(documents, section.splits, section.stratify, where=str(source)) if needs.census else None
    return ShardCensus(sizes, census.to_dict() if census else None)


def plan(src_dir: str | os.PathLike, section: AssembleParams, censuses: Iterable[ShardCensus]) -> Plan:
    """The version's sources and mixture, from every input shard's census (``shard_census``)."""
    src_dir = Path(src_dir)
    sources = data_shards(src_dir) if src_dir.exists() else []
    if not sources:
        raise QuarryError(f"{src_dir}: no jsonl / jsonl.zst shards to assemble")
    censuses = list(censuses)
    sizes: dict[str, int] = {}
    for shard in censuses:
        for subset, size in shard.subset_bytes.items():
            sizes[subset] = sizes.get(subset, 0) + size
    given = section.as_dict()
    mixture = Mixture.from_params(given, sizes if uses_weights(given) else None)
    moved = recorded_moves(src_dir / SPLITS_FILE, section.splits, section.stratify)
    if moved is None:
        census = SplitCensus.merged(SplitCensus.from_dict(shard.census) for shard in censuses if shard.census)
        moved = stratify(census, section.splits, section.stratify)
    mixture.moved = moved
    return Plan(sources, mixture, section)


def publish(staging: Path, out_dir: Path, params: Params, build: Plan, results: list[JsonDict], *,
            snapshot_manifest=None, ledgers: Iterable = (), optout_registry_hash: str | None = None,
            tokenizer=None, parent: tuple[dict | None, Iterable[dict] | None] = (None, None),
            registry: str | os.PathLike | None = None, register: bool = True,
            bundle: Callable[[Path], JsonDict] | None = None,
            index: Iterable[JsonDict] | None = None) -> JsonDict:
    """Turn a staging folder holding every split's shards into the released version at out_dir
    (``bundle``: writes the attribution bundle into the folder it is given and returns its summary;
    ``index``: the version's document index rows in id order when the build made them, else they are
    read from the version)."""
    ledgers = list(ledgers)
    section = params.assemble
    parent_manifest, parent_index = parent
    composition = Composition(with_tokens=tokenizer is not None)
    for result in results:
        composition.merge(result["composition"])
    own_ledger = merge_ledgers(STAGE, [r["ledger"] for r in results]).to_dict()
    write_json(staging / "ledger.json", own_ledger)
    bundle_summary = release_bundle(staging, bundle)
    explicit_label = section.label
    manifest = seal({
        "schema": SCHEMA,
        "name": section.name,
        "label": str(explicit_label or versions.bump(parent_manifest and parent_manifest["label"], "minor")),
        "parent": parent_manifest["version"] if parent_manifest else None,
        "snapshot_id": _snapshot_id(snapshot_manifest),
        "params_hash": params_hash(params),
        "optout_registry_hash": optout_registry_hash,
        "code_version": _code_version(),
        "tokenizer": tokenizer_id(tokenizer),
        "format": {"codec": "zstd", "level": section.zstd_level, "shard_bytes": section.shard_bytes,
                   "order": "shuffled" if section.shuffle else "source"},
        "mixture": {**build.mixture.to_dict(), "stratify": {**section.stratify.as_dict(),
                                                             "moved": moved_counts(build.mixture.moved)}},
        "splits": {r["split"]: {"fraction": build.mixture.fractions[r["split"]],
                                "files": shard_entries(staging, r["files"])} for r in results},
        "composition": composition.to_dict(),
        "ledger": {**normalise_ledgers(ledgers), STAGE: own_ledger},
        "citation": section.citation.as_dict(),
        "attribution": bundle_summary,
    })
    if register:
        manifest["label"] = versions.assign_label(manifest["name"], manifest["label"], version=manifest["version"],
                                                  explicit=bool(explicit_label), registry=registry)
    _finish(staging, out_dir, manifest)
    if register:
        _register(manifest, out_dir, [out_dir, *ledger_paths(ledgers)], parent_manifest, parent_index, registry,
                  index)
    return manifest


def release_bundle(staging: Path, write: Callable[[Path], JsonDict] | None) -> JsonDict:
    """ATTRIBUTION/ as ``write`` writes it (an empty bundle without one); its summary, with the
    bundle's tree hash so that it is part of the version."""
    folder = staging / attribution.FOLDER
    summary = write(folder) if write else attribution.join_parts(folder, [], lambda ids: {})
    return {**summary, "sha256": tree_hash(folder)}


def derived_bundle(folder: Path, credit_runs: list[str], run_bytes: int, parent_bundle: Path,
                   scratch: Path) -> JsonDict:
    """A derived version's bundle: its credits (runs by origin hash) with the parent bundle's files
    and standard texts, one partition of the origin-hash space at a time."""
    parts = partition_count(run_bytes * attribution.HELD_BYTES, AssembleParams().partition_mb)
    texts_of = attribution.bundle_texts(parent_bundle)
    written = []
    for part in range(parts):
        credits = attribution.partition_credits(credit_runs, part, parts)
        files = attribution.parent_files(parent_bundle, [origin for origin, _ in credits])
        written.append(attribution.write_part(scratch / f"{part:05d}", credits, files, texts_of))
    return attribution.join_parts(folder, written, texts_of)


def derive_version(parent_dir: str | os.PathLike, out_dir: str | os.PathLike,
                   keep: Callable[[JsonDict], bool | str], reason: str, *, tokenizer=None,
                   optout_registry_hash: str | None = None, label: str | None = None, threads: int = 1,
                   registry: str | os.PathLike | None = None, register: bool = True) -> JsonDict:
    """A new version holding the parent's documents for which ``keep`` is True; a document for
    which it returns False is removed for ``reason``, one for which it returns a string for that
    string. Shards keep their names; nothing is re-curated."""
    parent_dir, out_dir = Path(parent_dir), Path(out_dir)
    parent = read_manifest(parent_dir)
    if "tokens" in parent["composition"]["total"] and tokenizer is None:
        raise QuarryError(f"{parent_dir}: its composition counts tokens ({parent.get('tokenizer')}); "
                          "pass a tokenizer to recount them")
    _, parent_index = load_parent(parent_dir, registry)   # before out_dir (maybe parent_dir) is replaced
    level = parent["format"]["level"]
    wanted = label or versions.bump(parent["label"], "patch")
    label = versions.assign_label(parent["name"], wanted, explicit=bool(label), registry=registry) if register else wanted
    staging = staging_dir(out_dir)
    ledger = Ledger(DERIVE_STAGE)
    rejects = staging / "rejects" / f"{DERIVE_STAGE}-{label}.jsonl.zst"  # beside the parent's rejects
    ledger.rejects = RecordWriter(rejects, level=level, validate=False)
    composition = Composition(with_tokens=tokenizer is not None)
    scratch = staging / ".attribution-work"   # the kept documents' credits, by shard; removed below
    credit_runs: list[tuple[str, int]] = []
    splits = {split: {"fraction": info["fraction"],
                      "files": _filter_files(parent_dir, staging, info["files"], keep, reason, ledger, composition,
                                             scratch, credit_runs, tokenizer=tokenizer, level=level, threads=threads)}
              for split, info in parent["splits"].items()}
    bundle = release_bundle(staging, lambda folder: derived_bundle(
        folder, [prefix for prefix, _ in credit_runs], sum(size for _, size in credit_runs),
        parent_dir / attribution.FOLDER, scratch))
    shutil.rmtree(scratch, ignore_errors=True)   # none without a shard
    ledger.rejects.close()
    ledger.rejects = None
    for old in sorted((parent_dir / "rejects").glob("*.jsonl*")):
        if old.name != rejects.name:
            shutil.copyfile(old, staging / "rejects" / old.name)
    write_json(staging / "ledger.json", ledger.to_dict())
    manifest = seal({
        **parent,
        "label": label,
        "parent": parent["version"],
        "optout_registry_hash": optout_registry_hash or parent.get("optout_registry_hash"),
        "code_version": _code_version(),
        "tokenizer": tokenizer_id(tokenizer),
        "splits": splits,
        "composition": composition.to_dict(),
        "ledger": {**parent["ledger"], DERIVE_STAGE: ledger.to_dict()},
        "attribution": bundle,
    })
    _finish(staging, out_dir, manifest)
    if register:
        _register(manifest, out_dir, [out_dir], parent, parent_index, registry)
    return manifest


# ---------------------------------------------------------------------------------------------


def _filter_files(parent_dir: Path, staging: Path, files: list[dict], keep, reason: str, ledger: Ledger,
                  composition: Composition, scratch: Path, credit_runs: list[tuple[str, int]], *, tokenizer,
                  level: int, threads: int) -> list[JsonDict]:
    """Copy the kept records of each shard to the same name in staging; a shard left empty goes.
    Each shard's credits go to runs under ``scratch``, listed in ``credit_runs`` (prefix, bytes)."""
    kept = []
    for entry in files:
        credits = Credits()
        with RecordWriter(staging / entry["path"], level=level, threads=threads) as out:
            for record in read_records(parent_dir / entry["path"]):
                ledger.seen()
                verdict = keep(record)
                if isinstance(verdict, str) or not verdict:
                    ledger.drop(record, verdict if isinstance(verdict, str) else reason)
                    continue
                ledger.keep()
                out.write(record)
                credits.add(record)
                composition.add(record, len(tokenizer.encode(record["text"])) if tokenizer is not None else None)
        prefix = str(scratch / f"{len(credit_runs):06d}")
        credit_runs.append((prefix, credits.write_runs(prefix)))
        if out.stats.records:
            kept.append({"path": entry["path"], "records": out.stats.records, "bytes": out.stats.bytes})
        else:
            (staging / entry["path"]).unlink()
    return shard_entries(staging, kept)


def load_parent(parent: str | os.PathLike | None, registry=None) -> tuple[dict | None, Iterable[dict] | None]:
    """The parent version's manifest and index rows: read from the registry as the changelog is
    written; a parent outside the registry is indexed now (its folder may be the one rebuilt)."""
    if parent is None:
        return None, None
    manifest, data, release = versions.locate(parent, registry)
    if manifest is None:
        raise QuarryError(f"{parent}: the parent must be a dataset version (no manifest.json there)")
    if release is not None:
        return manifest, versions.read_index(release)
    return manifest, changelog.spooled(changelog.index_of(open_dataset(data)))


def _register(manifest: dict, out_dir: Path, reject_folders: list[Path], parent_manifest: dict | None,
              parent_index: Iterable[dict] | None, registry, index: Iterable[JsonDict] | None = None) -> None:
    """Record the version in the registry; its changelog from the parent's index, joined with the
    index just registered (``index``: its rows in id order, else read from the version)."""
    if index is None:
        index = changelog.index_of(open_dataset(out_dir))

    def log_of(release: Path) -> tuple[JsonDict, str]:
        changes = release / versions.CHANGES
        log = {"from": parent_manifest["version"], "from_label": parent_manifest["label"],
               "to": manifest["version"], "to_label": manifest["label"],
               **changelog.diff(parent_index, versions.read_index(release), changelog.rejects_of(reject_folders),
                                changes=changes)}
        return log, changelog.render(log, changes)

    versions.register(manifest, out_dir, index, changelog.rejects_of(reject_folders),
                      changelog=log_of if parent_manifest is not None else None, registry=registry)


def staging_dir(out_dir: Path) -> Path:
    staging = out_dir.parent / f".{out_dir.name}.building"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    return staging


def _finish(staging: Path, out_dir: Path, manifest: Manifest) -> None:
    """Manifest, datacard, plot and SHA256SUMS into the staging folder, then swap it in."""
    write_json(staging / MANIFEST, manifest)
    datacard.plot(manifest, staging / "composition.png")
    (staging / "datacard.md").write_text(datacard.render(manifest), encoding="utf-8")
    write_sums(staging)
    old = out_dir.parent / f".{out_dir.name}.old"
    shutil.rmtree(old, ignore_errors=True)
    if out_dir.exists():
        out_dir.rename(old)
    staging.rename(out_dir)
    shutil.rmtree(old, ignore_errors=True)


def _snapshot_id(snapshot: str | os.PathLike | dict | None) -> str | None:
    if snapshot is None:
        return None
    data = snapshot if isinstance(snapshot, dict) else read_json(snapshot)
    for key in ("snapshot_id", "id", "version", "hash"):
        if isinstance(data.get(key), str):
            return data[key]
    return value_hash(data)


def tokenizer_id(tokenizer) -> str | None:
    if tokenizer is None:
        return None
    for attr in ("version", "fingerprint", "hash", "name"):
        value = getattr(tokenizer, attr, None)
        if isinstance(value, str) and value:
            return f"sha256:{value}" if attr == "hash" else value
    return type(tokenizer).__name__


def _code_version() -> str:
    return git_commit()

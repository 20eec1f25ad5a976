"""Source kinds → origins to snapshot: directories, archives and corpora here; git repositories in
git.py; Parquet and saved Hugging Face datasets in tables.py; the standard library and installed
distributions in pyenv.py.

Planning is cheap (listings, sizes, path rules): it names every candidate file of every origin
and the reason each refused one is refused, so the caps can be applied in one deterministic pass
before anything is decoded.
"""

from __future__ import annotations

from pathlib import Path

from quarry.config.snapshot import SnapshotParams
from quarry.errors import QuarryError
from quarry.infra.hashing import file_hash
from quarry.records import read_records, shard_paths
from quarry.snapshot import archives
from quarry.snapshot.git import plan_git
from quarry.snapshot.plan import Candidate, OriginPlan, Refused, link_digest, plan_tree
from quarry.snapshot.pyenv import plan_installed, plan_stdlib
from quarry.snapshot.swhid import FILE_MODE, LINK_MODE
from quarry.snapshot.tables import plan_table, source_files


def plan_dir(source: dict, cfg: SnapshotParams) -> list[OriginPlan]:
    root = Path(source["path"]).expanduser()
    if not root.is_dir():
        raise QuarryError(f"snapshot source {source.get('name')!r}: {root} is not a directory")
    origin = source.get("origin") or source["path"]  # as written: the same id on every machine
    plan = OriginPlan(source["name"], "dir", origin, subset=source.get("subset"))
    return [plan_tree(plan, root, cfg, source.get("exclude", ()))]


# ---------------------------------------------------------------------------------------------
# Archives


def plan_archive(source: dict, cfg: SnapshotParams, staging: Path) -> list[OriginPlan]:
    if "://" in str(source["path"]):
        raise QuarryError(f"snapshot source {source.get('name')!r}: {source['path']} is a URL; an archive source "
                          "takes a local file (snapshots never download): fetch it first, then give its path")
    archive = Path(source["path"]).expanduser()
    if not archive.is_file():
        raise QuarryError(f"snapshot source {source.get('name')!r}: {archive} is not a file")
    digest = file_hash(archive)
    dest = staging / digest[:16]
    limits = cfg.archive
    result = archives.extract(archive, dest, max_members=limits.max_members, max_bytes=limits.max_bytes,
                              max_ratio=limits.max_ratio)
    root = dest
    entries = list(dest.iterdir())
    if (limits.strip_root and len(entries) == 1 and entries[0].is_dir()
            and all(link.startswith(entries[0].name + "/") for link in result.links)):
        root = entries[0]  # the usual `project-1.0/` folder of a release archive
    origin = source.get("origin") or source["path"]
    plan = OriginPlan(source["name"], "archive", origin, subset=source.get("subset"),
                      info={"archive_sha256": digest, "extracted_files": result.files,
                            "extracted_bytes": result.bytes})
    for refusal in result.refusals:
        reason = refusal.reason.split(":", 1)[0]
        plan.refused.append(Refused(refusal.member, f"archive_{reason}", {"archive": refusal.archive,
                                                                            "problem": refusal.reason}))
    prefix = "" if root == dest else root.name + "/"
    for rel, target in sorted(result.links.items()):
        rel = rel[len(prefix):] if prefix and rel.startswith(prefix) else rel
        plan.links.append((rel, LINK_MODE, link_digest(target)))
        plan.refused.append(Refused(rel, "symlink", {"target": target}))
    return [plan_tree(plan, root, cfg, source.get("exclude", ()))]


# ---------------------------------------------------------------------------------------------
# Existing corpora (Pile-style jsonl / jsonl.zst)


def corpus_shards(source: dict) -> list[Path]:
    location = Path(source["path"]).expanduser()
    shards = shard_paths(location)
    if not shards:
        raise QuarryError(f"snapshot source {source.get('name')!r}: no jsonl / jsonl.zst files at {location}")
    return shards


def plan_corpus(source: dict, cfg: SnapshotParams, shards: list[Path] | None = None) -> list[OriginPlan]:
    """A corpus's shards (``shards``, default all) as origins of documents: each record's place and size."""
    location = Path(source["path"]).expanduser()
    shards = shards if shards is not None else corpus_shards(source)
    mapping = source.get("subset_map", {})
    plans = []
    for shard in shards:
        rel_shard = shard.relative_to(location).as_posix() if location.is_dir() else shard.name
        origin = source.get("origin") or (f"{source['path']}/{rel_shard}" if location.is_dir() else source["path"])
        plan = OriginPlan(source["name"], "corpus", origin,
                          subset=source.get("subset"), info={"file": rel_shard}, documents=True)
        for line, record in enumerate(read_records(shard), start=1):
            meta = record.get("meta") or {}
            text = record["text"]
            subset = mapping.get(meta.get("pile_set_name"), source.get("subset") or meta.get("pile_set_name"))
            path = meta.get("path") or f"{line:08d}"
            size = len(text.encode("utf-8"))
            # standalone: a corpus record is a document of its own, not a file of a repository whose
            # other files' licences could govern it
            upstream = {"subset": subset, "upstream_id": meta.get("id"), "upstream_origin": meta.get("origin"),
                        "standalone": True}
            if size > cfg.max_document_bytes:  # a document's cap: a book is no oversized source file
                known = {k: v for k, v in upstream.items() if k in ("upstream_id", "subset") and v is not None}
                plan.refused.append(Refused(path, "too_large", {"bytes": size, **known}, kind="document"))
                continue
            # the plan keeps the record's place, not its text: the map reads it back from the shard
            plan.candidates.append(Candidate(path, size, FILE_MODE, ("line", str(shard), line, upstream)))
        plans.append(plan)
    return plans


PLANNERS = {"dir": plan_dir, "stdlib": plan_stdlib, "installed": plan_installed, "git": plan_git}
TABLES = ("parquet", "hfdisk")   # planned per file, as a corpus per shard; archive: plan_archive


def planning_units(source: dict) -> list[str | None]:
    """The parts of a source planned apart: each shard of a corpus and each file of a table (their
    planning reads them), else the source whole (None)."""
    if source["kind"] == "corpus":
        return [str(shard) for shard in corpus_shards(source)]
    if source["kind"] in TABLES:
        return [str(file) for file in source_files(source)]
    return [None]


def plan_unit(source: dict, unit: str | None, cfg: SnapshotParams, staging: Path) -> list[OriginPlan]:
    """The origins of one planning unit of ``source`` (``planning_units``)."""
    source = {"name": source.get("name") or source["kind"], **source}
    if source["kind"] == "archive":
        plans = plan_archive(source, cfg, staging)
    elif source["kind"] == "corpus":
        plans = plan_corpus(source, cfg, [Path(unit)])
    elif source["kind"] in TABLES:
        plans = plan_table(source, cfg, [Path(unit)])
    else:
        plans = PLANNERS[source["kind"]](source, cfg)
    for plan in plans:
        plan.candidates.sort(key=lambda c: c.path)
    return plans

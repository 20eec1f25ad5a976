"""The licenses stage: a survey map, one decision over all shards, an assigning map.

The survey reads each shard once (in parallel across workers): it collects the shard's
license-bearing repository files and sends them and the file-level statements to ScanCode
through the shared content-hash cache. The global step merges the repository files in shard
order (one origin may span shards) and decides each repository's license, finding every answer
in the cache; the assigning map gives each record its license and applies the policy.
"""

from __future__ import annotations

import atexit
import shutil
from pathlib import Path
from typing import Any

from quarry.engine import Global, GlobalJob, Map, ShardJob, Stage, per_process
from quarry.hashing import file_hash
from quarry.licenses.cache import CachedDetector, default_cache_dir
from quarry.licenses.repository import RepoFiles, add_repo_file, detect_repo_licenses
from quarry.licenses.stage import STAGE, file_statement, license_shard, section
from quarry.records import read_json, read_records, write_json

REPO_LICENSES = "repo_licenses.json"


def licenses_config(params: dict[str, Any]) -> dict[str, Any]:
    return section({STAGE: (params or {}).get(STAGE) or {}})


def detector(config: dict[str, Any]) -> CachedDetector:
    """This process's detector: one ScanCode worker (and index) per process, started on a miss."""
    def build() -> CachedDetector:
        opened = CachedDetector(default_cache_dir(), batch_size=int(config["batch_size"]))
        atexit.register(opened.close)
        return opened

    return per_process(("scancode", str(default_cache_dir()), int(config["batch_size"])), build)


def survey_shard_phase(job: ShardJob, config: dict[str, Any]) -> RepoFiles:
    files: RepoFiles = {}
    statements: set[str] = set()
    for record in read_records(job.src):
        add_repo_file(files, record)
        if statement := file_statement(record["text"], int(config["header_lines"])):
            statements.add(statement)
    found = detector(config)
    found.detect(sorted(statements))
    detect_repo_licenses(files, found)  # warms the cache; the decision waits for every shard
    return files


def decide_phase(job: GlobalJob, config: dict[str, Any]) -> dict:
    files: RepoFiles = {}
    for shard_files in job.results["survey"]:  # in shard order: a later file of an origin wins, as in one pass
        for origin, paths in shard_files.items():
            files.setdefault(origin, {}).update(paths)
    target = Path(job.work) / REPO_LICENSES
    write_json(target, detect_repo_licenses(files, detector(config)))
    return {"repo_licenses": target}


def assign_shard_phase(job: ShardJob, config: dict[str, Any]) -> dict:
    path = job.inputs["decide"]["repo_licenses"]
    repo_licenses = per_process(("repo-licenses", str(path), file_hash(path)), lambda: read_json(path))
    return {"ledger": license_shard(job.src, Path(job.dst), config, repo_licenses, rejects=Path(job.rejects),
                                    detector=detector(config)).to_dict()}


def licenses_finish(config: dict[str, Any], results: dict, out: Path) -> dict:
    shutil.copyfile(results["decide"]["repo_licenses"], out / REPO_LICENSES)
    return {}


LICENSES = Stage(STAGE, folder="licensed", config=licenses_config, finish=licenses_finish, phases=(
    Map("survey", survey_shard_phase),
    Global("decide", decide_phase),
    Map("assign", assign_shard_phase, writes=True),
))

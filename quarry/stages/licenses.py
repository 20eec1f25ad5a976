"""The licenses stage: a survey map, one decision over all shards, an assigning map.

The survey reads each shard once (in parallel across workers): it collects each origin's
license-bearing files at any depth (quarry.licenses.governance) and sends the shard's texts
(file-level statements, license files, manifests, notices) to ScanCode through the shared
content-hash cache. The global step merges the surveys in shard order (one origin may span
shards) and decides every origin's governance, its texts already answered; the assigning map
gives each record the license of its nearest governing scope and applies the policy.
"""

from __future__ import annotations

import atexit
import shutil
from pathlib import Path

from quarry.config.curation import LicensesParams
from quarry.engine import Global, GlobalJob, Map, ShardJob, Stage, per_process
from quarry.engine.state import provide
from quarry.hashing import file_hash
from quarry.licenses.cache import CachedDetector, default_cache_dir
from quarry.licenses.governance import OriginSurvey
from quarry.licenses.repository import Surveys, add_record, detect_repo_licenses
from quarry.licenses.stage import STAGE, file_statement, license_shard
from quarry.records import read_json, read_records, write_json

REPO_LICENSES = "repo_licenses.json"


def _detector_key(batch_size: int) -> tuple:
    return ("scancode", str(default_cache_dir()), int(batch_size))


def detector(config: LicensesParams) -> CachedDetector:
    """This process's detector: one ScanCode worker (and index) per process, started on a miss."""
    def build() -> CachedDetector:
        opened = CachedDetector(default_cache_dir(), batch_size=config.batch_size)
        atexit.register(opened.close)
        return opened

    return per_process(_detector_key(config.batch_size), build)


def use_detector(found: CachedDetector, batch_size: int) -> None:
    """Serve the license phases that run in this process from ``found`` (left open)."""
    provide(_detector_key(batch_size), found)


def survey_shard_phase(job: ShardJob, config: LicensesParams) -> Path:
    """One shard's part of every origin's survey (license-bearing files at any depth, folders,
    reserved-rights markings). ScanCode reads its texts here, in parallel across shards: the
    file-level statements, and the license files, manifests and notices of the shard's part of each
    origin (the decision then finds them in the cache; a notice read here may turn out moot when the
    origin's license file lies in another shard). The survey is written to the shard's work folder:
    it holds license texts, too large to travel as a result."""
    surveys: Surveys = {}
    statements: set[str] = set()
    for record in read_records(job.src):
        statement = file_statement(record["text"], config.header_lines)
        add_record(surveys, record, statement)
        if statement:
            statements.add(statement)
    detector(config).detect(sorted(statements))
    detect_repo_licenses(surveys, detector(config))
    target = Path(job.work) / "survey.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_json(target, {origin: survey.to_dict() for origin, survey in sorted(surveys.items())})
    return target


def decide_phase(job: GlobalJob, config: LicensesParams) -> dict:
    surveys: Surveys = {}
    for shard_survey in job.results["survey"]:  # in shard order: one origin may span shards
        for origin, data in read_json(shard_survey).items():
            part = OriginSurvey.from_dict(data)
            if origin in surveys:
                surveys[origin].merge(part)
            else:
                surveys[origin] = part
    target = Path(job.work) / REPO_LICENSES
    write_json(target, detect_repo_licenses(surveys, detector(config)))
    return {"repo_licenses": target}


def assign_shard_phase(job: ShardJob, config: LicensesParams) -> dict:
    path = job.inputs["decide"]["repo_licenses"]
    repo_licenses = per_process(("repo-licenses", str(path), file_hash(path)), lambda: read_json(path))
    return {"ledger": license_shard(job.src, Path(job.dst), config, repo_licenses, rejects=Path(job.rejects),
                                    detector=detector(config)).to_dict()}


def licenses_finish(job: GlobalJob, config: LicensesParams) -> dict:
    shutil.copyfile(job.results["decide"]["repo_licenses"], Path(job.dst) / REPO_LICENSES)
    return {}


LICENSES = Stage(STAGE, folder="licensed", config=lambda params: params.licenses, finish=licenses_finish, phases=(
    Map("survey", survey_shard_phase),
    Global("decide", decide_phase),
    Map("assign", assign_shard_phase, writes=True),
))

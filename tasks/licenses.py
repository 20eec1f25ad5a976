"""Prefect tasks of the licenses stage: a survey of all shards, then one task per shard.

Shard tasks are cached on the content of their input shard, of repo_licenses.json and of the
``licenses`` params (plus the task code); output paths are keyed by name only, so writing them
does not invalidate the cache. ScanCode's own answers are cached by text hash underneath.
"""

from __future__ import annotations

from pathlib import Path

from quarry.licenses.cache import CachedDetector
from quarry.licenses.repository import detect_repo_licenses
from quarry.licenses.stage import STAGE, license_shard, section, stage_shards, survey
from quarry.records import read_json, write_json
from tasks.caching import cached_task, run_verified
from tasks.shards import map_shard_stage


@cached_task(outputs=("out",), task_run_name="survey licenses {src_dir.name}")
def survey_task(src_dir: Path, out: str, params: dict) -> str:
    """Decide every repository's license from all shards (writes ``out``, repo_licenses.json) and
    send every file-level statement to ScanCode once, so the shard tasks find all in the cache."""
    conf = section(params)
    with CachedDetector(batch_size=int(conf["batch_size"])) as detector:
        surveys, statements = survey(stage_shards(src_dir), int(conf["header_lines"]))
        write_json(out, detect_repo_licenses(surveys, detector))
        detector.detect(statements)
    return out


@cached_task(outputs=("dst", "rejects"), task_run_name="licenses {src.name}")
def license_shard_task(src: Path, dst: str, rejects: str, params: dict, repo_licenses: Path) -> dict:
    return license_shard(src, Path(dst), params, read_json(repo_licenses), rejects=Path(rejects)).to_dict()


def licenses_with_tasks(src_dir: Path, dst_dir: Path, params: dict) -> dict:
    """The stage as tasks, for a flow to call: the survey (repository licenses), then one task per shard.
    Writes ledger.json and returns the ledger dict."""
    src_dir, dst_dir = Path(src_dir), Path(dst_dir)
    conf = section(params)
    dst_dir.mkdir(parents=True, exist_ok=True)
    (repo_licenses,) = run_verified(survey_task, [{"src_dir": src_dir, "out": str(dst_dir / "repo_licenses.json"),
                                                   "params": conf}])
    repo_licenses = Path(repo_licenses)
    ledger, _ = map_shard_stage(license_shard_task, STAGE, src_dir, dst_dir, params=conf, repo_licenses=repo_licenses)
    return ledger

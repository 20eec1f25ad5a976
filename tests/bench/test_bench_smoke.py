"""Every bench at its smallest size: it exits 0 and states the quality floors it guards
(bench/floors.py), each met. Never a time. A peer that is not installed (the `bench` extra) is
left out of its bench; a bench that needs one, or psutil, is skipped. The benches that need
ScanCode, a Dask cluster or minutes even at their smallest (and the GPU bench's CPU dry run) are
marked slow: `pytest -m slow tests/bench`."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def needs(*modules: str):
    missing = [m for m in modules if not installed(m)]
    return pytest.mark.skipif(bool(missing), reason=f"not installed: {', '.join(missing)} (setup.sh --bench)")


def run_bench(script: str, *args: str, timeout: int = 600) -> dict:
    """Run a bench; assert it exited 0 and met every floor; return its floors statement."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(BENCH / script), *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, f"{script} exited {done.returncode}:\n{done.stderr[-3000:]}"
    floors = json.loads(done.stdout[done.stdout.rindex('{\n  "floors"'):])["floors"]
    assert floors["met"] and all(check["ok"] for check in floors["checks"]), floors
    return floors


def assert_guards(floors: dict, *figures: str) -> None:
    """The bench still checks these figures (a floor dropped from a bench fails here)."""
    stated = {check["figure"] for check in floors["checks"]}
    assert set(figures) <= stated, f"not guarded: {sorted(set(figures) - stated)}"


@needs("psutil")
def test_dedup():
    peer = installed("datatrove")
    floors = run_bench("dedup.py", "--mb", "1", "--pairs", "40", "--shards", "2",
                       *([] if peer else ["--skip-datatrove"]))
    assert_guards(floors, "quarry.recall_at_0.7", "quarry.false_merge_rate_below_0.7", "quarry.links.unjoined",
                  "quarry_verify_estimate.recall_at_0.7", "quarry_with_repositories.recall_at_0.7",
                  "quarry_with_repositories.links.unjoined", *(["datatrove.recall_at_0.7"] if peer else []))


def test_clustering():
    floors = run_bench("clustering.py", "--docs", "20000", "--shard-docs", "5000")
    assert_guards(floors, *(f"partitions_{n}.{figure}" for n in (2, 4, 8) for figure in ("same_clusters", "same_pairs")))


def test_dedup_repositories():
    floors = run_bench("dedup_repositories.py", "--repos", "20", "--workers", "1")
    assert_guards(floors, "forks_collapsed", "fork_only_dropped", "fork_recall", "distinct_repositories_merged",
                  "large_edits_kept")


def test_pii():
    floors = run_bench("pii.py", "--docs", "400", "--mb", "0.3", "--ds-mb", "0.1")
    assert_guards(floors, "quarry.CREDENTIAL.precision", "quarry.CREDENTIAL.recall", "quarry.EMAIL.recall",
                  "quarry.survival_rate", "quarry.held_back.leak_rate", "quarry.held_back.hard_negatives_intact",
                  "quarry.real_text.precision", *(["detect_secrets.CREDENTIAL.recall"] if installed("detect_secrets") else []),
                  *(["datatrove.EMAIL.recall"] if installed("datatrove") else []))


def test_decontaminate():
    floors = run_bench("decontaminate.py", "--mb", "5", "--workers", "1")
    assert_guards(floors, "quarry.planted_recall", "single_ngram.planted_recall")


def test_records():
    floors = run_bench("records.py", "--mb", "1", "--shards", "2")
    assert_guards(floors, "quarry_read.records", "hf_datasets_load_and_iterate.records", "quarry_round_trip_identical")


def test_snapshot():
    floors = run_bench("snapshot.py", "--workers", "1", "--max-total-mb", "1", "--peer-files", "500")
    assert_guards(floors, "swhid.identical", "language.agreement", "snapshot.distinct_snapshot_ids")


def test_snapshot_fidelity():
    floors = run_bench("snapshot_fidelity.py", "--repositories", "10", "--documents", "10")
    assert_guards(floors, "corpus.prose_refused_by_code_rules", "parquet.prose_refused_by_code_rules",
                  "corpus.minified.refused_as_minified", "stack_v2_repositories.files_read",
                  "stack_v2_repositories.file_level_identical", "stack_v2_repositories.folders_identical")


def test_assemble():
    floors = run_bench("assemble.py", "--mb", "1", "--levels", "3")
    assert_guards(floors, "same_bytes_for_1_and_n_threads", "assemble_zstd10.every_record_once")


def test_registry_scale():
    floors = run_bench("registry_scale.py", "--docs", "300", "1200")
    assert sum(check["figure"].endswith(".changelog_counts") for check in floors["checks"]) == 2


@pytest.mark.slow
def test_assemble_scale(tmp_path):
    floors = run_bench("assemble_scale.py", "--mb", "2", "6", "--shard-mb", "1", "--scratch", str(tmp_path))
    assert_guards(floors, "same_version_for_1_and_2_workers")


def test_generate():
    floors = run_bench("generate.py", "--batch", "2", "--prompt-len", "8", "--new-tokens", "8", "--repeats", "1")
    assert_guards(floors, "identical_rows.kv_cache_vs_recompute", "identical_rows.kv_cache_vs_transformers")


def test_eval():
    floors = run_bench("eval.py", "--docs", "4", "--max-chars", "1500", "--vocab", "512", "--dim", "64",
                       "--layers", "2", "--heads", "4", "--context", "128", "--stride", "64", "--batch-size", "8",
                       "--device", "cpu")
    assert_guards(floors, "transformers.tokens", "bpb_abs_diff")


@needs("psutil")
def test_tokens():
    floors = run_bench("tokens.py", "--small-mb", "0.5", "--large-mb", "1", "--tokenize-mb", "0.5", "--vocab", "512",
                       "--train-steps", "2", "--loader-steps", "10", "--workers", "1")
    assert_guards(floors, "tokenize_one_core.same_tokens", "tokenize_stage_one_worker.same_tokens",
                  "training_peak_rss.large_over_small")


def test_train():
    floors = run_bench("train.py", "--methods", "lora", "--repeats", "1", "--warmup", "0", "--steps", "1",
                       "--batch", "2", "--seq", "32")
    assert floors["none"]
    assert_guards(floors, "runs_failed")


# --- slow: ScanCode, a Dask cluster, a whole DAG, or the GPU bench's CPU dry run --------------


@pytest.mark.slow
def test_licenses():
    floors = run_bench("licenses.py", "--corpus-mb", "2", "--plain-sample", "20", "--workers", "1", timeout=1800)
    assert_guards(floors, "answers_differ.share", "resolved_without_scancode.differ")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/usr/lib/python3/dist-packages").is_dir() or not Path("/usr/bin/dpkg").exists(),
                    reason="no Debian system Python folder")
def test_licenses_debian():
    floors = run_bench("licenses_debian.py", "--layouts", "site", timeout=1800)
    assert_guards(floors, "site.with_evidence.must_drop_kept", "site.all.must_keep_dropped_share",
                  "site.with_evidence.category")


@pytest.mark.slow
@needs("psutil")
def test_pipeline():
    floors = run_bench("pipeline.py", "--workers", "1", timeout=1800)
    assert_guards(floors, "warm_noop.stages_run", "train_param_change.upstream_rerun")


@pytest.mark.slow
@needs("psutil")
def test_scale(tmp_path):
    floors = run_bench("scale.py", "--mb", "2", "--scratch", str(tmp_path), timeout=1800)
    assert_guards(floors, "same_hash")


@pytest.mark.slow
@needs("psutil")
def test_dag_scale(tmp_path):
    floors = run_bench("dag_scale.py", "--mb", "2", "--format", "parquet", "--runs", "local-1", "local-2",
                       "--scratch", str(tmp_path), timeout=1800)
    assert_guards(floors, "2.same_version", "2.same_tokens")


@pytest.mark.slow
def test_train_gpu_dry_run():
    floors = run_bench("gpu/train_gpu.py", "--dry-run", timeout=1800)
    assert floors["none"]
    assert_guards(floors, "runs_failed")


@pytest.mark.slow
def test_train_gpu_dry_run_covers_every_family():
    floors = run_bench("gpu/train_gpu.py", "--dry-run", "--families", "all", "--plan", "", timeout=1800)
    assert_guards(floors, "runs_failed")


def test_a_figure_below_its_floor_exits_nonzero_naming_it():
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from floors import Floors; f = Floors(); "
              "f.at_least('recall', 0.5, 0.95); f.at_most('false_merges', 0.0, 0.1); f.emit({'seconds': 1})")
    done = subprocess.run([sys.executable, "-c", script, str(BENCH)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "recall = 0.5 (floor >= 0.95)" in done.stderr and "false_merges" not in done.stderr
    report = json.loads(done.stdout)
    assert list(report) == ["floors", "seconds"] and report["floors"]["met"] is False


@needs("psutil")
def test_orchestration():
    floors = run_bench("orchestration.py", "--tasks", "20")
    assert_guards(floors, "same_bytes")


def test_language():
    floors = run_bench("language.py", "--per-language", "20")
    assert_guards(floors, "overall_accuracy", "named_precision", "natural_language_accuracy", "Python.accuracy",
                  "Perl.accuracy", "C.accuracy", "Groff.accuracy")


@pytest.mark.slow   # downloads Debian source tarballs (a package registry; cached in ~/.cache/quarry-bench)
def test_language_sources():
    floors = run_bench("language_sources.py", "--packages-per-toolchain", "1", "--per-language", "20", timeout=1200)
    assert_guards(floors, "named_precision", "accuracy")


@pytest.mark.slow   # plain ScanCode on whole files
def test_license_statements():
    floors = run_bench("license_statements.py", "--files", "60", timeout=1200)
    assert_guards(floors, "agreement", "stage_found_nothing_share")

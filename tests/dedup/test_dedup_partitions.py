"""Dedup in partitions (repository copies, exact groups, near-duplicate clusters and their
survivors) decides exactly what the one-process path decides, for any number of partitions and
workers and with each step switched off, on mutated copies of real source files spread over shards."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import orjson
import pytest

from dedup_corpus import STDLIB, record
from quarry.config import Params
from quarry.datasets.manifest import params_hash
from quarry.curation.dedup.cluster import cluster_index, decisions_file
from quarry.curation.dedup.components import forest, min_labels
from quarry.curation.dedup.config import DedupConfig
from quarry.curation.dedup.partition import BUCKET_BYTES
from quarry.engine.partitions import partition_count
from quarry.curation.dedup.unionfind import UnionFind
from quarry.engine import run_local
from quarry.infra.hashing import file_hashes
from quarry.records import input_shards, relative_name, write_records
from quarry.stages.dedup import DEDUP, decided

REPO = Path(__file__).resolve().parents[2]


def _mutate(text: str, rng: random.Random, rate: float) -> str:
    lines = text.splitlines()
    out = []
    for line in lines:
        roll = rng.random()
        if roll < rate:
            continue  # dropped
        out.append(line)
        if roll > 1 - rate:
            out.append(f"# note {rng.randrange(1000)}")
    return "\n".join(out) + "\n"


def _corpus() -> list[list[dict]]:
    """Five shards: real modules, copies at several distances (chains among them), exact copies,
    one repository forked whole under another origin, and one forked with an edit and a file of
    its own, then copied again."""
    rng = random.Random(26)
    files = [p for p in sorted(STDLIB.glob("*.py")) if 3_000 < p.stat().st_size < 40_000][:90]
    docs = []
    for i, path in enumerate(files):
        text = path.read_text(encoding="utf-8", errors="replace")
        origin = f"https://example.org/r{i % 30}"
        docs.append(record(f"m{i}", text, origin=origin, path=path.name))
        copies = rng.randrange(4)
        previous = text
        for c in range(copies):
            previous = _mutate(previous if rng.random() < 0.5 else text, rng, rng.choice([0.02, 0.05, 0.12]))
            docs.append(record(f"m{i}-c{c}", previous, origin=f"https://example.org/c{rng.randrange(40)}",
                               path=path.name, category=rng.choice(["permissive", "copyleft"])))
        if i % 11 == 0:
            docs.append(record(f"m{i}-x", text, origin="https://example.org/x", path=path.name))
    fork = [record(f"{d['meta']['id']}-fork", d["text"], origin="https://example.org/zz-fork", path=d["meta"]["path"])
            for d in docs if d["meta"]["origin"] == "https://example.org/r3"]
    # one group of three whose canonical repository is the permissive mirror of the fork (the most
    # files: the upstream's and the fork's own); the others' files are all held by it
    upstream = [d for d in docs if d["meta"]["origin"] == "https://example.org/r5"]
    edited = [record(f"{d['meta']['id']}-edited", _mutate(d["text"], rng, 0.02) if k == 0 else d["text"],
                     origin="https://example.org/e-fork", path=d["meta"]["path"], category="copyleft")
              for k, d in enumerate(upstream)]
    edited.append(record("e-own", (STDLIB / "colorsys.py").read_text(), origin="https://example.org/e-fork",
                         path="own.py", category="copyleft"))
    mirror = [record(f"{d['meta']['id']}-mirror", d["text"], origin="https://example.org/e-mirror",
                     path=d["meta"]["path"]) for d in edited]
    docs += fork + edited + mirror
    rng.shuffle(docs)
    return [docs[i::5] for i in range(5)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("partitions")
    for i, shard in enumerate(_corpus()):
        write_records(root / "src" / f"part-{i:05d}.jsonl.zst", shard)
    out = {}
    for parts, workers in ((1, 1), (2, 1), (4, 2), (8, 1)):
        ledger = run_local(DEDUP, root / "src", root / f"out{parts}", {"dedup": {"partitions": parts}},
                           workers=workers, work_dir=root / f"work{parts}")
        out[parts] = ledger
    return root, out


def _files(folder):
    return {name: digest for name, digest in file_hashes(folder).items() if name not in ("provenance.json",)}


def test_same_bytes_for_1_2_4_8_partitions(runs):
    root, ledgers = runs
    reference = _files(root / "out1")
    stats = ledgers[1]["clusters"]
    assert stats["near_clusters"] >= 20 and stats["largest_cluster"] >= 3 and stats["repository_groups"] >= 1
    assert stats["exact_groups"] >= 1 and stats["candidate_pairs"] > stats["verified_pairs"] > 0
    for parts, ledger in ledgers.items():
        assert ledger["partitions"]["count"] == parts
        assert {k: v for k, v in ledger.items() if k != "partitions"} == \
            {k: v for k, v in ledgers[1].items() if k != "partitions"}
        files = _files(root / f"out{parts}")
        if parts != 1:  # the ledger names its partitions; shards and rejects are the same bytes
            assert files.pop("ledger.json") != reference["ledger.json"]
        assert files == {k: v for k, v in reference.items() if parts == 1 or k != "ledger.json"}


def _one_process(root: Path, work: Path, tmp_path: Path, params: dict) -> tuple[dict, list[dict]]:
    """cluster_index (everything in one process) on a copy of a run's index: stats, decisions per shard."""
    src = root / "src"
    prefixes = []
    for shard in input_shards(src):
        safe = relative_name(shard, src).replace("/", "__")
        shutil.copytree(work / "index" / safe, tmp_path / safe)
        prefixes.append(tmp_path / safe / "index")
    stats = cluster_index(prefixes, DedupConfig.from_params(params).resolved())
    return stats, [orjson.loads(decisions_file(prefix).read_bytes()) for prefix in prefixes]


def test_partitions_decide_as_one_process(runs, tmp_path):
    """cluster_index on the same index: same decisions, same stats, on a corpus that spreads every
    kind of copy over several shards."""
    root, ledgers = runs
    stats, one = _one_process(root, root / "work1", tmp_path, {})
    assert stats == ledgers[1]["clusters"]
    assert sum(map(len, one)) > 100
    for parts in ledgers:
        assert decided(root / f"work{parts}") == one
    shards_of, actions_of = {}, {}
    for shard, decisions in enumerate(one):
        for action, cluster, _ in decisions.values():
            shards_of.setdefault(cluster, set()).add(shard)
            actions_of.setdefault(cluster, set()).add(action)
    spread = {action: max(len(shards_of[c]) for c, actions in actions_of.items() if action in actions)
              for action in ("duplicate_repository", "exact_duplicate", "near_duplicate")}
    assert min(spread.values()) >= 2, spread
    assert stats["repository_groups"] >= 2 and stats["repositories_removed"] >= 3
    assert {tuple(p["repositories"]) for p in stats["repository_pairs"]} >= {
        ("https://example.org/e-fork", "https://example.org/e-mirror"),
        ("https://example.org/e-fork", "https://example.org/r5")}


@pytest.mark.parametrize("switch", [{"repository": {"enabled": False}}, {"exact": False}, {"near": False},
                                    {"repository": {"threshold": 0.5, "file_similarity": 0.3}, "verify": "estimate"}])
def test_each_step_switched_decides_as_one_process(runs, tmp_path, switch):
    root, _ = runs
    ledger = run_local(DEDUP, root / "src", tmp_path / "out", {"dedup": {"partitions": 3, **switch}},
                       work_dir=tmp_path / "work")
    stats, one = _one_process(root, tmp_path / "work", tmp_path / "one", {"dedup": switch})
    assert ledger["clusters"] == stats
    assert decided(tmp_path / "work") == one


def test_min_labels_match_union_find_in_any_order():
    rng = np.random.default_rng(5)
    edges = rng.integers(0, 400, size=(300, 2))
    uf = UnionFind(400)
    uf.union_pairs(edges)
    roots = uf.roots()
    labels = min_labels(400, edges)
    for doc in range(400):
        members = np.flatnonzero(roots == roots[doc])
        assert labels[doc] == members.min()
    shuffled = edges[rng.permutation(len(edges))][:, ::-1]
    assert np.array_equal(min_labels(400, shuffled), labels)
    tree = forest(edges)
    assert len(tree) <= len(np.unique(edges)) and np.all(tree[:, 1] < tree[:, 0])
    assert np.array_equal(min_labels(400, tree), labels)


def test_partition_count_follows_the_memory_bound():
    assert partition_count(10_000_000 * BUCKET_BYTES, 1024) == 1
    assert partition_count(100_000_000 * BUCKET_BYTES, 1024) == 5
    assert partition_count(100_000_000 * BUCKET_BYTES, 1024, partitions=3) == 3


def test_partition_settings_leave_the_params_hash():
    assert params_hash(Params()) == params_hash(Params.model_validate({"dedup": {"partitions": 8, "partition_mb": 64}}))
    assert params_hash(Params()) != params_hash(Params.model_validate({"dedup": {"threshold": 0.8}}))


FLOW = textwrap.dedent("""
    import sys
    from pathlib import Path
    from prefect import flow
    from prefect.task_runners import ThreadPoolTaskRunner
    from quarry.engine import run_stage
    from quarry.stages.dedup import DEDUP, decided
    from tasks.executor import PrefectExecutor

    @flow(task_runner=ThreadPoolTaskRunner(max_workers=2))
    def dedup(src, dst):
        return run_stage(DEDUP, Path(src), Path(dst), {"dedup": {"partitions": 4}}, PrefectExecutor()).result

    dedup(sys.argv[1], sys.argv[2])
""")


def test_partitions_on_prefect_tasks_write_the_same_bytes(runs, tmp_path):
    root, _ = runs
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}, "PYTHONPATH": str(REPO),
           "QUARRY_HOME": str(tmp_path), "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "300"}
    done = subprocess.run([sys.executable, "-c", FLOW, str(root / "src"), str(tmp_path / "out")], cwd=tmp_path,
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _files(tmp_path / "out") == _files(root / "out4")


def test_a_corpus_without_near_duplicates_has_no_near_cluster(tmp_path):
    """Distinct documents only: the partitioned path decides nothing and says so."""
    from dedup_corpus import MODULES, record, source
    from quarry.engine import run_local
    from quarry.records import write_records
    from quarry.stages.dedup import DEDUP, decided

    docs = [record(f"d{i}", source(name), origin=f"https://example.org/r{i}", path=f"m{i}.py")
            for i, name in enumerate(MODULES[:6])]
    write_records(tmp_path / "src" / "part-00000.jsonl.zst", docs)
    ledger = run_local(DEDUP, tmp_path / "src", tmp_path / "out", {"dedup": {"partitions": 2}})
    assert ledger["kept"] == len(docs) and ledger["clusters"]["near_clusters"] == 0

"""Repository dedup on real git forks that grew, rewrote and were forked twice: an upstream, a fork
that renamed its package folder and added as many modules of its own as it kept, and a second
fork that moved the package down a folder; both forks edited one short file, each its own way."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from dedup_corpus import kept_records, source
from quarry.engine import run_local
from quarry.records import read_folder
from quarry.stages.dedup import DEDUP
from quarry.stages.snapshot import run_snapshot
from test_dedup_repository import _new_repo, commit_all, git, project

MODULES = ["textwrap.py", "difflib.py", "shlex.py", "calendar.py", "fractions.py", "heapq.py", "colorsys.py",
           "sched.py", "graphlib.py", "tomllib/_types.py"]
OWN = ["csv.py", "tokenize.py", "queue.py", "numbers.py", "base64.py", "pprint.py", "zipapp.py", "gettext.py"]


def _edited(text: str, line: int, note: str) -> str:
    """A one-line fix and one line added: a fork's bug fix."""
    lines = text.splitlines()
    lines[line] += f"  # {note}"
    lines.insert(line + 1, "    pass  # fork")
    return "\n".join(lines) + "\n"


def _half_rewritten(text: str, other: str) -> str:
    lines = text.splitlines()
    return "\n".join(lines[:len(lines) // 2] + other.splitlines()[:len(lines) // 2]) + "\n"


@pytest.fixture(scope="module")
def forks(tmp_path_factory):
    root = tmp_path_factory.mktemp("forks")
    upstream = _new_repo(root, "lam", project("lam", MODULES))
    grown, moved = root / "lam-ng", root / "lam-moved"
    for clone in (grown, moved):
        subprocess.run(["git", "clone", "-q", str(upstream), str(clone)], check=True, capture_output=True)
    git(grown, "mv", "src/lam", "src/lam_ng")
    commit_all(grown, {"src/lam_ng/_types.py": _edited(source("tomllib/_types.py"), 2, "fixed in lam-ng"),
                       "src/lam_ng/difflib.py": _half_rewritten(source("difflib.py"), source("gettext.py")),
                       **{f"src/lam_ng/own_{Path(name).stem}.py": source(name) for name in OWN[:7]}},
               "renamed, a rewrite and modules of its own")
    git(moved, "mv", "src/lam", "src/impl")
    (moved / "src" / "lam").mkdir()
    git(moved, "mv", "src/impl", "src/lam/impl")   # two steps from lam-ng's paths: related through lam's alone
    commit_all(moved, {"src/lam/impl/_types.py": _edited(source("tomllib/_types.py"), 5, "fixed in lam-moved")},
               "its own fix")
    # a distinct project with a module of the same name as one of lam's (its own text)
    other = _new_repo(root, "omega", {**project("omega", ["string.py", "stringprep.py", "bisect.py"]),
                                      "src/omega/shlex.py": source("shlex.py").replace("shlex", "omega_lexer")[:4000]})
    sources = [{"kind": "git", "path": str(path), "name": path.name} for path in (upstream, grown, moved, other)]
    run_snapshot(sources, root / "snap", {}, cache_dir=root / "cache")
    return root / "snap" / "shards"


def test_grown_and_twice_forked_repositories_collapse_to_one(forks, tmp_path):
    ledger = run_local(DEDUP, forks, tmp_path / "out", {}, workers=2)
    rejects = [r["meta"] for r in read_folder(tmp_path / "out" / "rejects")]
    kept = {(Path(r["meta"]["origin"]).name, r["meta"]["path"]) for r in kept_records(tmp_path / "out")}
    merged = {(Path(m["origin"]).name, Path(m["kept"]).name) for m in rejects if m["reason"] == "duplicate_repository"}
    # the fork that renamed its package and added seven modules to ten shares no path with the
    # upstream and holds too few of its own files in return for the old mutual rule: one group now
    assert merged == {("lam", "lam-ng"), ("lam-moved", "lam-ng")}
    assert ledger["clusters"]["repository_groups"] == 1 and ledger["clusters"]["repositories_removed"] == 2
    # the short file edited by both forks, each its own way, stays once: the canonical fork's
    versions = {("lam", "src/lam/_types.py"), ("lam-ng", "src/lam_ng/_types.py"),
                ("lam-moved", "src/lam/impl/_types.py")}
    assert versions & kept == {("lam-ng", "src/lam_ng/_types.py")}
    # no upstream module stays twice in the group (difflib.py, rewritten, below)
    for name in (name for name in MODULES if name != "difflib.py"):
        stem = Path(name).name
        copies = {(repo, f"src/{folder}/{stem}") for repo, folder in
                  (("lam", "lam"), ("lam-ng", "lam_ng"), ("lam-moved", "lam/impl"))} & kept
        assert len(copies) == 1, (name, copies)
    # what a fork made its own stays: its modules, and a long module half rewritten (the upstream's
    # copy, held by no earlier member, stays beside it)
    assert {("lam-ng", f"src/lam_ng/own_{Path(name).stem}.py") for name in OWN[:7]} <= kept
    assert ("lam-ng", "src/lam_ng/difflib.py") in kept
    assert ("lam", "src/lam/difflib.py") in kept or ("lam-moved", "src/lam/impl/difflib.py") in kept
    assert {("omega", "src/omega/shlex.py"), ("omega", "src/omega/string.py")} <= kept


def test_grown_forks_collapse_alike_in_any_number_of_partitions(forks, tmp_path):
    outputs = {}
    for parts, workers in ((1, 1), (3, 2)):
        run_local(DEDUP, forks, tmp_path / f"p{parts}", {"dedup": {"partitions": parts}}, workers=workers)
        out = tmp_path / f"p{parts}"
        outputs[parts] = {p.relative_to(out): p.read_bytes() for p in out.rglob("*")
                          if p.is_file() and p.name not in ("ledger.json", "provenance.json")}
    assert outputs[1] == outputs[3]

"""Repository-level dedup on real git repositories: clones with a few edits, a plain copy under
another origin, a distinct project from the same template, and one that vendors the original."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from dedup_corpus import kept_records, source
from quarry.engine import run_local
from quarry.records import read_folder
from quarry.stages.dedup import DEDUP
from quarry.stages.snapshot import run_snapshot

UPSTREAM_MODULES = ["textwrap.py", "difflib.py", "shlex.py", "calendar.py", "fractions.py", "heapq.py",
                    "colorsys.py", "sched.py", "graphlib.py", "fnmatch.py"]
OTHER_MODULES = ["csv.py", "tokenize.py", "queue.py", "numbers.py", "bisect.py", "string.py", "stringprep.py"]
MIT = """MIT License

Copyright (c) 2024 Example Authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions: The above copyright notice and this
permission notice shall be included in all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED.
"""
CI = """name: tests
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with: {python-version: "3.11"}
      - run: pip install -e .[test] && pytest -q
"""


def _pyproject(name: str) -> str:
    return (f'[project]\nname = "{name}"\nversion = "0.1.0"\nrequires-python = ">=3.9"\n'
            '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n')


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.org",
           "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def commit_all(repo: Path, files: dict[str, str | None], message: str) -> None:
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def project(package: str, modules: list[str]) -> dict[str, str]:
    files = {f"src/{package}/{Path(name).name}": source(name) for name in modules}
    files.update({"LICENSE": MIT, ".github/workflows/ci.yml": CI, "pyproject.toml": _pyproject(package),
                  f"src/{package}/__init__.py": f'"""The {package} package."""\n', ".gitignore": "*.pyc\nbuild/\n",
                  "README.md": f"# {package}\n\nUtilities of the {package} project.\n"})
    return files


def _edited(text: str, marker: str) -> str:
    lines = text.splitlines()
    lines[len(lines) // 3] += f"  # {marker}"
    return "\n".join(lines[:-5]) + f"\n\ndef {marker}():\n    return {marker!r}\n"


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    root = tmp_path_factory.mktemp("repos")
    upstream = root / "upstream"
    upstream.mkdir()
    git(upstream, "init", "-q", "-b", "main")
    commit_all(upstream, project("alpha", UPSTREAM_MODULES), "alpha")
    clones = {}
    for name in ("fork-edits", "fork-more", "mirror"):
        subprocess.run(["git", "clone", "-q", str(upstream), str(root / name)], check=True, capture_output=True)
        clones[name] = root / name
    pkg = "src/alpha"
    commit_all(clones["fork-edits"], {f"{pkg}/shlex.py": _edited(source("shlex.py"), "fork_a"),
                                      "README.md": "# alpha (fork)\n\nMaintained fork.\n"}, "a few edits")
    commit_all(clones["fork-more"], {f"{pkg}/sched.py": _edited(source("sched.py"), "fork_b"),
                                     f"{pkg}/heapq.py": None, f"{pkg}/extra.py": source("bisect.py"),
                                     f"{pkg}/codec.py": source("base64.py")}, "more edits")
    # a distinct project from the same template: licence, CI, packaging, .gitignore alike
    beta = root / "beta"
    beta.mkdir()
    git(beta, "init", "-q", "-b", "main")
    commit_all(beta, project("beta", OTHER_MODULES), "beta")
    # a project that vendors alpha inside a subfolder (one the snapshot keeps)
    gamma = root / "gamma"
    gamma.mkdir()
    git(gamma, "init", "-q", "-b", "main")
    vendored = {f"ext/alpha/{rel}": text for rel, text in project("alpha", UPSTREAM_MODULES).items()
                if not rel.startswith(".")}
    commit_all(gamma, {**project("gamma", OTHER_MODULES[:4]), **vendored}, "gamma vendors alpha")
    sources = [{"kind": "git", "path": str(path), "name": path.name}
               for path in [upstream, *clones.values(), beta, gamma]]
    run_snapshot(sources, root / "snap", {}, cache_dir=root / "cache")
    return root


def _rejects(folder: Path) -> list[dict]:
    return [r["meta"] for r in read_folder(folder / "rejects")]


def test_forks_and_copies_collapse_to_one_repository(repos, tmp_path):
    ledger = run_local(DEDUP, repos / "snap" / "shards", tmp_path / "out", {}, workers=2)
    removed = Counter(meta["origin"] for meta in _rejects(tmp_path / "out") if meta["reason"] == "duplicate_repository")
    origins = {r["meta"]["origin"] for r in read_folder(repos / "snap" / "shards")}
    family = {o for o in origins if Path(o).name in ("upstream", "fork-edits", "fork-more", "mirror")}
    assert len(family) == 4
    canonical = next(o for o in family if Path(o).name == "fork-more")   # the most files (two added, one deleted)
    assert set(removed) | {canonical} == family and len(removed) == 3  # recall 1.0, one survivor
    assert not {o for o in removed if Path(o).name in ("beta", "gamma")}  # no distinct repository merged
    kept_origins = {r["meta"]["origin"] for r in kept_records(tmp_path / "out")}
    assert {Path(o).name for o in kept_origins} >= {"beta", "gamma"}
    clusters = ledger["clusters"]
    assert clusters["repository_groups"] == 1 and clusters["repositories_removed"] == 3
    assert clusters["repository_files_removed"] == sum(removed.values())
    assert ledger["dropped"]["duplicate_repository"] == sum(removed.values())
    pairs = clusters["repository_pairs"]
    assert all(p["share"] >= 0.7 for p in pairs) and len(pairs) >= 3
    # file-level dedup still runs after: gamma's vendored copies of alpha's files are exact duplicates
    vendored = [m for m in _rejects(tmp_path / "out") if m["path"].startswith("ext/alpha/src/")]
    assert len(vendored) >= len(UPSTREAM_MODULES) - 1
    assert {m["reason"] for m in vendored} <= {"exact_duplicate", "near_duplicate"}
    # a collapsed fork keeps what only it has (fork-more's codec.py); a file it added that another
    # repository holds (extra.py, beta's bisect.py) is left to file-level dedup
    kept = {(Path(r["meta"]["origin"]).name, r["meta"]["path"]): r for r in kept_records(tmp_path / "out")}
    assert ("fork-more", "src/alpha/codec.py") in kept
    reasons = {(Path(m["origin"]).name, m["path"]): m["reason"] for m in _rejects(tmp_path / "out")}
    assert reasons.get(("fork-more", "src/alpha/extra.py")) in (None, "exact_duplicate")
    assert clusters["fork_files_kept"] >= 1
    survivor = Path(canonical).name
    texts = {path: r["text"] for (origin, path), r in kept.items() if origin == survivor}
    for (origin, path), record in kept.items():
        if origin in {Path(o).name for o in removed}:
            assert texts.get(path) != record["text"], (origin, path)   # no copy of the survivor's file stays


def test_forks_collapse_alike_in_any_number_of_partitions(repos, tmp_path):
    """The repository steps in 1, 3 and 5 partitions of their key spaces (a group's copies and its
    survivor in different partitions) write the same bytes and count the same."""
    ledgers = {parts: run_local(DEDUP, repos / "snap" / "shards", tmp_path / f"p{parts}",
                                {"dedup": {"partitions": parts}}, workers=2 if parts == 3 else 1)
               for parts in (1, 3, 5)}
    for parts, ledger in ledgers.items():
        assert ledger.pop("partitions")["counts"]["repositories"] == parts
    assert ledgers[1] == ledgers[3] == ledgers[5] and ledgers[1]["clusters"]["repositories_removed"] == 3
    shards = {parts: {p.relative_to(tmp_path / f"p{parts}"): p.read_bytes() for p in (tmp_path / f"p{parts}").rglob("*")
                      if p.is_file() and p.name not in ("ledger.json", "provenance.json")} for parts in ledgers}
    assert shards[1] == shards[3] == shards[5]


def test_repository_threshold_and_switch(repos, tmp_path):
    strict = run_local(DEDUP, repos / "snap" / "shards", tmp_path / "strict", {"dedup": {"repository": {"threshold": 1.0}}})
    # a full match holds every file, edited or not: the mirror and fork-edits, not fork-more (it deleted one)
    assert strict["clusters"]["repositories_removed"] == 2
    merged = {Path(name).name for pair in strict["clusters"]["repository_pairs"] for name in pair["repositories"]}
    assert merged == {"upstream", "mirror", "fork-edits"}
    off = run_local(DEDUP, repos / "snap" / "shards", tmp_path / "off", {"dedup": {"repository": {"enabled": False}}})
    assert "duplicate_repository" not in off["dropped"] and "repository_groups" not in off["clusters"]


def test_unknown_repository_key_is_reported():
    from quarry.curation.dedup.config import DedupConfig
    from quarry.errors import ConfigError

    with pytest.raises(ConfigError, match="dedup.repository"):
        DedupConfig.from_params({"dedup": {"repository": {"treshold": 0.5}}})


KAPPA_MODULES = ["textwrap.py", "difflib.py", "shlex.py", "calendar.py", "fractions.py", "heapq.py", "colorsys.py",
                 "sched.py", "asyncio/threads.py", "tomllib/_types.py"]


def _small_edit(text: str) -> str:
    """A one-line fix and one line added: a fork's bug fix."""
    lines = text.splitlines()
    lines[len(lines) // 2] += "  # fixed: keep the order stable when keys repeat"
    lines.insert(len(lines) // 3, "    pass  # fork")
    return "\n".join(lines) + "\n"


def _new_repo(root: Path, name: str, files: dict[str, str]) -> Path:
    repo = root / name
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, files, name)
    return repo


@pytest.fixture(scope="module")
def moved(tmp_path_factory):
    """A fork that renamed its package folder, edited a short file a little, re-indented one file,
    changed another's line endings, deleted one and added its own (a module, a short file under
    the name of an upstream file, one rewritten); distinct projects vendoring the same library
    under vendor/ (and with the same one-line stubs in many folders), and one holding the
    upstream's package in a folder of its own."""
    root = tmp_path_factory.mktemp("moved")
    upstream = _new_repo(root, "kappa", project("kappa", KAPPA_MODULES))
    fork = root / "kappa-fork"
    subprocess.run(["git", "clone", "-q", str(upstream), str(fork)], check=True, capture_output=True)
    git(fork, "mv", "src/kappa", "src/kappa_ng")
    pkg = "src/kappa_ng"
    commit_all(fork, {f"{pkg}/_types.py": _small_edit(source("tomllib/_types.py")),   # 250 bytes: half its 5-grams change
                      f"{pkg}/threads.py": _small_edit(source("asyncio/threads.py")),
                      f"{pkg}/shlex.py": source("shlex.py").replace("    ", "\t"),
                      f"{pkg}/heapq.py": source("heapq.py").replace("\n", "\r\n"),
                      f"{pkg}/sched.py": None,
                      f"{pkg}/own_module.py": source("graphlib.py"),
                      f"{pkg}/contrib/threads.py": source("importlib/metadata/_collections.py"),
                      f"{pkg}/colorsys.py": source("queue.py")}, "the fork's changes")
    package = {rel.removeprefix("src/"): text for rel, text in project("kappa", KAPPA_MODULES).items()
               if rel.startswith("src/")}
    for name, own in (("mu", ["csv.py", "bisect.py"]), ("nu", ["tokenize.py", "string.py"])):
        stubs = {f"src/{name}/part{i}/__init__.py": "__all__ = []\n" for i in range(12)}   # too short to compare
        _new_repo(root, name, {**project(name, own), **stubs, **{f"vendor/{rel}": text for rel, text in package.items()}})
    _new_repo(root, "xi", {**project("xi", ["numbers.py", "stringprep.py"]),
                           **{f"src/xi/ext/{rel}": text for rel, text in package.items()}})
    sources = [{"kind": "git", "path": str(root / name), "name": name} for name in ("kappa", "kappa-fork", "mu", "nu", "xi")]
    run_snapshot(sources, root / "snap", {}, cache_dir=root / "cache")
    return root / "snap" / "shards"


def test_a_fork_that_moved_its_files_collapses_and_keeps_its_own(moved, tmp_path):
    run_local(DEDUP, moved, tmp_path / "out", {}, workers=2)
    kept = {(Path(r["meta"]["origin"]).name, r["meta"]["path"]) for r in kept_records(tmp_path / "out")}
    rejects = _rejects(tmp_path / "out")
    merged = {(Path(m["origin"]).name, Path(m["kept"]).name) for m in rejects if m["reason"] == "duplicate_repository"}
    assert merged in ({("kappa", "kappa-fork")}, {("kappa-fork", "kappa")})   # one group, nothing else merged
    # collapsed: no file of the upstream is kept both in it and, derived, in the fork
    derived = {f"src/kappa/{Path(name).name}" for name in KAPPA_MODULES} - {"src/kappa/sched.py", "src/kappa/colorsys.py"}
    assert len(derived) == 8
    for path in derived:
        assert not {("kappa", path), ("kappa-fork", path.replace("src/kappa/", "src/kappa_ng/"))} <= kept, path
    # what only the fork has stays: a module it added, a short file under an upstream file's name, a rewrite
    for path in ("own_module.py", "contrib/threads.py", "colorsys.py"):
        assert ("kappa-fork", f"src/kappa_ng/{path}") in kept, path
    assert ("kappa", "src/kappa/sched.py") in kept      # the file the fork deleted
    # distinct projects sharing a vendored library, or holding the upstream in a folder, keep their own files
    for name, own in (("mu", "csv.py"), ("mu", "bisect.py"), ("nu", "tokenize.py"), ("nu", "string.py"),
                      ("xi", "numbers.py")):
        assert (name, f"src/{name}/{own}") in kept, (name, own)


def test_a_moved_fork_collapses_alike_in_any_number_of_partitions(moved, tmp_path):
    outputs = {}
    for parts, workers in ((1, 1), (4, 2)):
        run_local(DEDUP, moved, tmp_path / f"p{parts}", {"dedup": {"partitions": parts}}, workers=workers)
        outputs[parts] = {p.relative_to(tmp_path / f"p{parts}"): p.read_bytes() for p in (tmp_path / f"p{parts}").rglob("*")
                          if p.is_file() and p.name not in ("ledger.json", "provenance.json")}
    assert outputs[1] == outputs[4]

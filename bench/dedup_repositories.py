"""Repository-level dedup on a labeled set built from real packages: forks, vendoring, templates.

Each installed distribution's top-level package (site-packages, sorted, deterministic) is a
repository. Every repository gets the same licence, CI workflow, packaging and .gitignore
template (distinct projects from one template). Half of them get a fork under another origin
(a few files edited, one deleted, one added); some distinct repositories vendor another one
inside a subfolder. The dedup stage runs on all of it; the report gives the recall of forks
(each fork and its original end as one repository), the distinct repositories merged (must be
none), the files removed as duplicate repositories, the share of the files only a fork has (a
standard-library module it added, one it rewrote) that stay, and the time. Floors: fork recall >=
0.95, no distinct repository merged, fork-only files kept >= 0.9 (bench/floors.py).

    python bench/dedup_repositories.py                 # 80 repositories
    python bench/dedup_repositories.py --repos 200
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import site
import sys
import tempfile
import time
from pathlib import Path

from floors import Floors
from peers import peer_versions

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TEMPLATE = {
    "LICENSE": "MIT License\n\nCopyright (c) 2024 The Authors\n\nPermission is hereby granted, free of charge, "
               "to any person obtaining a copy of this software, to deal in the Software without restriction.\n",
    ".github/workflows/ci.yml": "name: tests\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
                                "    steps:\n      - uses: actions/checkout@v4\n      - run: pip install -e . && pytest\n",
    "pyproject.toml": '[project]\nname = "NAME"\nversion = "0.1.0"\n[build-system]\nrequires = ["setuptools"]\n',
    ".gitignore": "*.pyc\nbuild/\ndist/\n",
}


def packages(count: int, min_files: int = 4, max_files: int = 120) -> list[tuple[str, dict[str, str]]]:
    out = []
    for root in (Path(p) for p in site.getsitepackages()):
        for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name.isidentifier()):
            files = {}
            for path in sorted(folder.rglob("*.py")):
                try:
                    text = path.read_text(encoding="utf-8")
                except (UnicodeDecodeError, OSError):
                    continue
                if 200 <= len(text) <= 100_000:
                    files[path.relative_to(root).as_posix()] = text
            if min_files <= len(files) <= max_files:
                out.append((folder.name, files))
            if len(out) == count:
                return out
    return out


def templated(name: str, files: dict[str, str]) -> dict[str, str]:
    return {**files, **{k: v.replace("NAME", name) for k, v in TEMPLATE.items()}}


def stdlib_modules() -> list[str]:
    """Texts of the standard library's top-level modules (sorted): what forks add or rewrite with."""
    import sysconfig

    texts = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if 2_000 <= len(text) <= 60_000:
            texts.append(text)
    return texts


def forked(files: dict[str, str], rng: random.Random, own: tuple[str, str]) -> tuple[dict[str, str], list[str]]:
    """A few edits: two files changed, one deleted, one added; and what only the fork has: a module
    it added and one it rewrote (``own``: their texts). Returns the fork and the paths of its own files."""
    fork = dict(files)
    code = sorted(k for k in files if k.endswith(".py"))
    for path in rng.sample(code, min(2, len(code))):
        lines = fork[path].splitlines()
        at = rng.randrange(len(lines))
        lines.insert(at, "    # patched in the fork")
        fork[path] = "\n".join(lines) + "\n\ndef fork_helper():\n    return None\n"
    if len(code) > 4:
        del fork[rng.choice(code)]
    fork[f"{code[0].split('/')[0]}/fork_extra.py"] = "def extra():\n    return 'fork'\n"
    added, rewritten = f"{code[0].split('/')[0]}/fork_module.py", sorted(k for k in fork if k.endswith(".py"))[-1]
    fork[added], fork[rewritten] = own
    return fork, [added, rewritten]


def build(folder: Path, count: int, seed: int) -> dict:
    from quarry.records import RecordWriter

    rng = random.Random(seed)
    repos = packages(count)
    origins: dict[str, dict[str, str]] = {}
    family: dict[str, str] = {}           # origin -> the repository it is a copy of (itself if original)
    own: dict[str, list[str]] = {}        # fork -> paths of the files only it has
    modules = stdlib_modules()
    for i, (name, files) in enumerate(repos):
        origin = f"https://example.org/{name}"
        origins[origin] = templated(name, files)
        family[origin] = origin
        if i % 2 == 0:
            fork = f"https://mirror.example.net/someone/{name}"
            k = len(own) % (len(modules) // 2)
            origins[fork], own[fork] = forked(origins[origin], rng, (modules[2 * k], modules[2 * k + 1]))
            family[fork] = origin
    for i in range(1, len(repos), 6):  # distinct repositories vendoring another one in a subfolder
        host, guest = repos[i], repos[(i + 3) % len(repos)]
        origin = f"https://example.org/{host[0]}-with-vendored-{guest[0]}"
        vendored = {f"{host[0]}/_vendor/{path}": text for path, text in guest[1].items()}
        origins[origin] = templated(host[0] + "-v", {**{f"{host[0]}/v_{k.split('/')[-1]}": t for k, t in
                                                         list(host[1].items())[:3]}, **vendored})
        family[origin] = origin
    folder.mkdir(parents=True, exist_ok=True)
    docs = 0
    with RecordWriter(folder / "part-00000.jsonl.zst", level=1) as writer:
        for origin in sorted(origins):
            for path, text in sorted(origins[origin].items()):
                blob = text.encode()
                sha1 = hashlib.sha1(b"blob %d\0" % len(blob) + blob).hexdigest()
                writer.write({"text": text, "meta": {"id": f"swh:1:cnt:{sha1}", "origin": origin, "path": path,
                                                     "license": {"spdx": "MIT", "category": "permissive"}}})
                docs += 1
    return {"family": family, "own": own, "repositories": len(origins),
            "forks": sum(o != f for o, f in family.items()), "documents": docs}


def score(out: Path, family: dict[str, str], own: dict[str, list[str]]) -> dict:
    from quarry.records import read_folder

    survivor, rejected = {}, set()
    for meta in (r["meta"] for r in read_folder(out / "rejects")):
        rejected.add((meta["origin"], meta["path"]))
        if meta["reason"] == "duplicate_repository":
            survivor[meta["origin"]] = meta["kept"]
    fork_only = [(origin, path) for origin, paths in own.items() for path in paths]
    fork_only_kept = sum(key not in rejected for key in fork_only)
    group = {origin: survivor.get(origin, origin) for origin in family}
    forks = [o for o, f in family.items() if o != f]
    missed = sorted(o for o in forks if group[o] != group[family[o]])
    found = len(forks) - len(missed)
    merged_distinct = sorted({(a, b) for a in family for b in family if a < b and group[a] == group[b]
                              and family[a] != family[b]})
    return {"fork_recall": round(found / max(len(forks), 1), 4), "forks_found": found,
            "forks_missed": missed[:5], "distinct_repositories_merged": len(merged_distinct),
            "merged_examples": merged_distinct[:5],
            "repositories_removed": len(survivor),
            "fork_only_files": len(fork_only), "fork_only_kept": round(fork_only_kept / max(len(fork_only), 1), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=80)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from quarry.engine import run_local
    from quarry.stages.dedup import DEDUP

    work = Path(tempfile.mkdtemp(prefix="bench-dedup-repos-"))
    try:
        corpus = build(work / "src", args.repos, args.seed)
        start = time.perf_counter()
        ledger = run_local(DEDUP, work / "src", work / "out", {}, workers=args.workers)
        seconds = time.perf_counter() - start
        result = {"repositories": corpus["repositories"], "forks": corpus["forks"], "documents": corpus["documents"],
                  "seconds": round(seconds, 1), **score(work / "out", corpus["family"], corpus["own"]),
                  "dropped": ledger["dropped"],
                  "clusters": {k: v for k, v in ledger["clusters"].items() if k != "repository_pairs"},
                  "versions": peer_versions("numpy")}
        floors = Floors()  # measured: every fork found, no distinct repository merged (20 and 80 repositories)
        floors.at_least("fork_recall", result["fork_recall"], 0.95)
        floors.equals("distinct_repositories_merged", result["distinct_repositories_merged"], 0)
        floors.at_least("fork_only_kept", result["fork_only_kept"], 0.9)
        floors.emit(result)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

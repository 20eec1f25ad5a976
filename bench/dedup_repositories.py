"""Repository-level dedup on a labeled set built from real packages: forks, vendoring, templates.

Each installed distribution's top-level package (site-packages, sorted, deterministic) is a
repository. Every repository gets the same licence, CI workflow, packaging and .gitignore
template (distinct projects from one template). Half of them get a fork under another origin
(a quarter of them two, each changed its own way), changed as forks are: files copied, some
edited a little (one a short file), one edited a lot, one re-indented with tabs, one with CRLF
line endings, one deleted, a directory moved or the package folder renamed, and files only the
fork has (a module and a short file it added, a file it rewrote: standard-library texts no other
repository holds, nor one like it). Distinct repositories share files without being copies: some
vendor another repository in a subfolder (under ``_vendor/`` or mounted under a folder of
another name), pairs vendor one library at the same path beside a few files of their own.

The dedup stage runs on all of it. The report gives: forks collapsed (a fork counts when it keeps
no file derived from its upstream's file that its family also keeps elsewhere), the share of
fork-only files dropped, the distinct repositories merged (must be none), the recall of forks
(each fork and its original end as one repository), the large edits kept, and the time. Floors:
forks collapsed >= 0.95, fork-only files dropped <= 0.1, no distinct repository merged, fork
recall >= 0.95, large edits kept >= 0.9 (a file half rewritten is the fork's own; bench/floors.py).

With ``--installed`` it also runs on every top-level package of the machine's site-packages trees
(this environment's, the ScanCode one's, Debian's) as a repository, as installed: the same project
at other versions, real forks beside their upstream, distinct projects. It reports how many of
the projects installed more than once end as one repository, and lists every group joining two
names (no floor: a newer version can differ beyond a fork's edits, and two one-file plugins from
one template are near copies).

    python bench/dedup_repositories.py                 # 80 repositories
    python bench/dedup_repositories.py --repos 200
    python bench/dedup_repositories.py --installed
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import site
import sys
import sysconfig
import tempfile
import time
from collections import Counter
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
SKIPPED_STDLIB = ("test", "tests", "idlelib", "encodings", "lib2to3", "site-packages", "turtledemo", "__pycache__")


def packages(count: int, min_files: int = 6, max_files: int = 120) -> list[tuple[str, dict[str, str]]]:
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


def stdlib_texts(low: int, high: int) -> list[str]:
    """Distinct texts of standard-library modules of ``low`` to ``high`` characters (path order),
    leaving out tests and families of near-identical modules: what forks add or rewrite with."""
    stdlib, seen, texts = Path(sysconfig.get_paths()["stdlib"]), set(), []
    for path in sorted(stdlib.rglob("*.py")):
        if set(path.relative_to(stdlib).parts) & set(SKIPPED_STDLIB) or path.name.startswith("test"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if low <= len(text) <= high and text.strip() not in seen:
            seen.add(text.strip())
            texts.append(text)
    return texts


def unlike(texts: list[str], taken: list[str], bar: float = 0.3) -> list[str]:
    """The texts (in order) that share less than ``bar`` of their word 5-grams (MinHash estimate)
    with any of ``taken`` and any text kept before them: a fork's own file must be no copy of a
    package's (``multiprocess`` ships the standard library's ``multiprocessing``, edited) nor of
    another fork's own."""
    import numpy as np

    from quarry.curation.dedup.config import DedupConfig

    hasher = DedupConfig.from_params({}).hasher()
    seen, _ = hasher.signatures(taken)
    out, kept = [], []
    for text, signature in zip(texts, hasher.signatures(texts)[0], strict=True):
        against = np.vstack([seen, *kept]) if kept else seen
        if (against == signature).mean(axis=1).max(initial=0.0) < bar:
            out.append(text)
            kept.append(signature[None])
    return out


def small_edit(text: str, rng: random.Random) -> str:
    """One line changed and one added: what a fork's bug fix looks like."""
    lines = text.splitlines()
    at = rng.randrange(len(lines))
    lines[at] = lines[at] + "  # fixed in the fork"
    lines.insert(rng.randrange(len(lines)), "    pass  # fork")
    return "\n".join(lines) + "\n"


def large_edit(text: str, other: str) -> str:
    """The second half of the file replaced with other code."""
    lines = text.splitlines()
    return "\n".join(lines[:len(lines) // 2] + other.splitlines()[:len(lines) - len(lines) // 2]) + "\n"


def forked(files: dict[str, str], rng: random.Random, own: list[str], variant: int
           ) -> tuple[dict[str, str], dict[str, str]]:
    """A fork of ``files`` and each of its files' label: the upstream path it derives from
    (copied, moved, edited a little, re-indented, CRLF), ``own`` (only the fork has it: ``own``'s
    texts, added or rewriting a file) or ``large`` (edited a lot)."""
    code = sorted(k for k in files if k.endswith(".py"))
    package = code[0].split("/")[0]
    fork, label = dict(files), {path: path for path in files}
    touched = rng.sample(code, 6)
    short = min(code, key=lambda path: (len(files[path]), path))
    for path in sorted({touched[0], short}):
        fork[path] = small_edit(files[path], rng)
    fork[touched[1]], label[touched[1]] = large_edit(files[touched[1]], own[3]), "large"
    fork[touched[2]] = files[touched[2]].replace("    ", "\t")
    fork[touched[3]] = files[touched[3]].replace("\n", "\r\n")
    if touched[4] != short:
        del fork[touched[4]], label[touched[4]]
    fork[touched[5]], label[touched[5]] = own[0], "own"
    # a short file of its own under the name of one of the upstream's, in a folder of its own
    for path, text in ((f"{package}/fork_module.py", own[1]), (f"{package}/contrib/{touched[0].rsplit('/', 1)[1]}", own[2])):
        fork[path], label[path] = text, "own"
    subfolders = sorted({k.rsplit("/", 1)[0] for k in code if k.count("/") >= 2})
    if variant % 3 == 0:       # the package folder renamed
        moved = {k: f"{package}_ng/{k.split('/', 1)[1]}" for k in fork if k.startswith(f"{package}/")}
    elif variant % 3 == 1 and subfolders:   # one directory moved into another
        sub = subfolders[0]
        moved = {k: f"{package}/moved/{k[len(package) + 1:]}" for k in fork if k.startswith(f"{sub}/")}
    else:
        moved = {}
    fork = {moved.get(k, k): v for k, v in fork.items()}
    label = {moved.get(k, k): v for k, v in label.items()}
    return fork, label


def build(folder: Path, count: int, seed: int) -> dict:
    from quarry.records import RecordWriter

    rng = random.Random(seed)
    repos = packages(count)
    origins: dict[str, dict[str, str]] = {}
    family: dict[str, str] = {}           # origin -> the repository it is a copy of (itself if original)
    labels: dict[str, dict[str, str]] = {}  # fork -> its files' labels (forked)
    taken = [text for _, files in repos for text in files.values()]
    long_texts = unlike(stdlib_texts(2_000, 60_000), taken)  # modules from the front; short files: small
    modules = iter(long_texts)                               # modules, then the first lines of modules from the back
    shorts = iter(unlike([*stdlib_texts(200, 1_500), *("\n".join(t.splitlines()[:15]) + "\n"
                                                        for t in reversed(long_texts))], taken))
    for i, (name, files) in enumerate(repos):
        origin = f"https://example.org/{name}"
        origins[origin] = templated(name, files)
        family[origin] = origin
        if i % 2 == 0 and sum(k.endswith(".py") for k in files) >= 12:
            # every other forked repository is forked twice, by people who do not know each other
            for copy, owner in enumerate(("someone", "another")[:1 + (i % 4 == 0)]):
                fork = f"https://mirror.example.net/{owner}/{name}"
                own = [next(modules), next(modules), next(shorts), next(modules)]
                origins[fork], labels[fork] = forked(origins[origin], rng, own, i // 2 + copy)
                family[fork] = origin
    for i in range(1, len(repos), 6):  # distinct repositories vendoring another one in a subfolder
        host, guest = repos[i], repos[(i + 3) % len(repos)]
        folder_name = "_vendor" if i % 12 == 1 else "ext"
        origin = f"https://example.org/{host[0]}-with-vendored-{guest[0]}"
        vendored = {f"{host[0]}/{folder_name}/{path}": text for path, text in guest[1].items()}
        origins[origin] = templated(host[0] + "-v", {**{f"{host[0]}/v_{k.split('/')[-1]}": t for k, t in
                                                         list(host[1].items())[:3]}, **vendored})
        family[origin] = origin
    for i in range(2, len(repos) - 1, 10):  # two distinct projects vendoring one library at the same path
        library = repos[(i + 5) % len(repos)]
        for host in (repos[i], repos[i + 1]):
            origin = f"https://example.org/{host[0]}-app"
            origins[origin] = templated(host[0] + "-app", {
                **{f"app/{k.split('/')[-1]}": t for k, t in list(host[1].items())[-3:]},
                **{f"vendor/{path}": text for path, text in library[1].items()}})
            family[origin] = origin
    for origin in origins:  # real forks installed side by side: a package renamed with a number (httpcore2)
        name = origin.rsplit("/", 1)[1]
        upstream = f"https://example.org/{name.rstrip('0123456789')}"
        if origin.startswith("https://example.org/") and upstream != origin and upstream in origins:
            family[origin] = upstream
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
    return {"family": family, "labels": labels, "paths": {origin: sorted(files) for origin, files in origins.items()},
            "repositories": len(origins),
            "forks": sum(o != f for o, f in family.items()), "documents": docs}


def score(out: Path, family: dict[str, str], labels: dict[str, dict[str, str]], paths: dict[str, list[str]]) -> dict:
    from quarry.records import read_folder

    survivor, rejected = {}, {}
    for meta in (r["meta"] for r in read_folder(out / "rejects")):
        rejected[(meta["origin"], meta["path"])] = meta["reason"]
        if meta["reason"] == "duplicate_repository":
            survivor[meta["origin"]] = meta["kept"]
    # how many copies of each upstream file its family keeps: the upstream's own, its forks' derived
    kept_lineage = Counter()
    for upstream in sorted({family[fork] for fork in labels}):
        kept_lineage.update((upstream, path) for path in paths[upstream] if (upstream, path) not in rejected)
    for fork, label in labels.items():
        kept_lineage.update((family[fork], src) for path, src in label.items() if src not in ("own", "large")
                            and (fork, path) not in rejected)
    not_collapsed = []
    for fork, label in sorted(labels.items()):
        doubled = sorted(path for path, src in label.items() if src not in ("own", "large")
                         and (fork, path) not in rejected and kept_lineage[(family[fork], src)] > 1)
        if doubled:
            not_collapsed.append((fork, doubled[:3]))
    fork_only = [(fork, path) for fork, label in labels.items() for path, src in label.items() if src == "own"]
    dropped_own = Counter(rejected[key] for key in fork_only if key in rejected)
    large = [(fork, path) for fork, label in labels.items() for path, src in label.items() if src == "large"]
    group = {origin: survivor.get(origin, origin) for origin in family}
    forks = [o for o, f in family.items() if o != f]
    missed = sorted(o for o in forks if group[o] != group[family[o]])
    merged_distinct = sorted({(a, b) for a in family for b in family if a < b and group[a] == group[b]
                              and family[a] != family[b]})
    return {"forks_collapsed": round(1 - len(not_collapsed) / max(len(labels), 1), 4),
            "forks_not_collapsed": not_collapsed[:5],
            "fork_only_files": len(fork_only),
            "fork_only_dropped": round(sum(dropped_own.values()) / max(len(fork_only), 1), 4),
            "fork_only_dropped_by": dict(sorted(dropped_own.items())),
            "fork_only_dropped_examples": sorted(key for key in fork_only if key in rejected)[:5],
            "distinct_repositories_merged": len(merged_distinct), "merged_examples": merged_distinct[:5],
            "fork_recall": round(1 - len(missed) / max(len(forks), 1), 4), "forks_missed": missed[:5],
            "large_edits_kept": round(sum(key not in rejected for key in large) / max(len(large), 1), 4),
            "repositories_removed": len(survivor)}


def installed_trees() -> dict[str, Path]:
    """The machine's site-packages trees: this interpreter's, the ScanCode environment's, Debian's."""
    trees = {"project": Path(site.getsitepackages()[0]),
             "scancode": ROOT / ".venv-scancode" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
             / "site-packages",
             "debian": Path("/usr/lib/python3/dist-packages")}
    return {label: tree for label, tree in trees.items() if tree.is_dir()}


def build_installed(folder: Path) -> dict[str, str]:
    """Every top-level package of every installed tree as a repository, as it is installed: the
    same project at other versions in other trees, real forks beside their upstream (httpx2),
    distinct projects side by side. Returns each origin's family: its package name, trailing
    digits dropped where that names another installed package (httpx2: httpx; h11 stays h11)."""
    from quarry.records import RecordWriter

    family = {}
    folder.mkdir(parents=True, exist_ok=True)
    with RecordWriter(folder / "part-00000.jsonl.zst", level=1) as writer:
        for label, tree in installed_trees().items():
            for package in sorted(p for p in tree.iterdir() if p.is_dir() and p.name.isidentifier()):
                origin = f"https://{label}.example/{package.name}"
                for path in sorted(package.rglob("*.py")):
                    try:
                        text = path.read_text(encoding="utf-8")
                    except (UnicodeDecodeError, OSError):
                        continue
                    if len(text) <= 300_000:
                        rel = path.relative_to(tree).as_posix()
                        writer.write({"text": text, "meta": {"id": f"{label}:{rel}", "origin": origin, "path": rel,
                                                             "license": {"spdx": "MIT", "category": "permissive"}}})
                        family[origin] = package.name.lower()
    names = set(family.values())
    return {origin: name.rstrip("0123456789") if name.rstrip("0123456789") in names else name
            for origin, name in family.items()}


def score_installed(ledger: dict, family: dict[str, str]) -> dict:
    """Families installed more than once (versions, forks) joined into one group, and groups
    joining different families (distinct projects merged, or siblings from one template)."""
    from quarry.curation.dedup.repository import groups_of

    edges = [tuple(pair["repositories"]) for pair in ledger["clusters"].get("repository_pairs", [])]
    group = {origin: origin for origin in family} | {origin: members[0] for members in groups_of(edges)
                                                      for origin in members}
    members = Counter(family.values())
    repeated = sorted(name for name, count in members.items() if count > 1)
    joined = [name for name in repeated if len({group[o] for o in family if family[o] == name}) == 1]
    across = sorted({tuple(sorted({family[a], family[b]})) for a, b in edges if family[a] != family[b]})
    return {"repositories": len(family), "families_installed_twice": len(repeated),
            "families_joined": len(joined), "families_apart": sorted(set(repeated) - set(joined)),
            "groups_across_families": across, "pairs_listed": len(edges),
            "pairs_verified": ledger["clusters"].get("repository_pairs_verified")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=80)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--installed", action="store_true",
                        help="also every package of the machine's site-packages trees as a repository (about 20 s)")
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
                  "seconds": round(seconds, 1), **score(work / "out", corpus["family"], corpus["labels"], corpus["paths"]),
                  "dropped": ledger["dropped"],
                  "clusters": {k: v for k, v in ledger["clusters"].items()
                               if k not in ("repository_pairs", "largest_clusters")},
                  "versions": peer_versions("numpy")}
        if args.installed:
            family = build_installed(work / "installed")
            start = time.perf_counter()
            installed = run_local(DEDUP, work / "installed", work / "installed-out", {}, workers=args.workers)
            result["installed"] = {"seconds": round(time.perf_counter() - start, 1),
                                   **score_installed(installed, family), "dropped": installed["dropped"]}
        floors = Floors()
        floors.at_least("forks_collapsed", result["forks_collapsed"], 0.95)
        floors.at_most("fork_only_dropped", result["fork_only_dropped"], 0.1)
        floors.equals("distinct_repositories_merged", result["distinct_repositories_merged"], 0)
        floors.at_least("fork_recall", result["fork_recall"], 0.95)
        floors.at_least("large_edits_kept", result["large_edits_kept"], 0.9)
        floors.emit(result)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

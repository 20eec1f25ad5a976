"""Your own Pile through the whole DAG, as a user would run it: a Pile-style corpus (one jsonl.zst
shard, ``meta.pile_set_name`` per record, no file names) of the machine's own documentation
(prose), man pages (roff) and Perl modules, set as the only snapshot source of a fresh copy of the
project, then `dvc repro`. Prints JSON: the corpus, the cap report, the composition by subset and
by language, bits per byte per subset and checkpoint, and the wall time.

    .venv/bin/python bench/pile_dag.py --mb 9 [--keep DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from quarry.records import read_json, read_records, write_records  # noqa: E402

BIN = Path(sys.executable).parent
MIN_CHARS, MAX_CHARS = 1_000, 200_000


def _read(path: Path) -> str | None:
    try:
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile):
        return None


def _take(paths, budget: int) -> list[str]:
    texts, used = [], 0
    for path in paths:
        text = _read(path)
        if text is None or not MIN_CHARS <= len(text) <= MAX_CHARS:
            continue
        texts.append(text)
        used += len(text.encode("utf-8"))
        if used >= budget:
            break
    return texts


def machine_subsets(budget: int) -> dict[str, list[str]]:
    docs = sorted(p for p in Path("/usr/share/doc").rglob("*") if p.is_file()
                  and p.name.split(".")[0].upper() in ("README", "NEWS", "FAQ", "TODO", "USAGE"))
    man = sorted(Path("/usr/share/man/man1").glob("*.1.gz")) + sorted(Path("/usr/share/man/man3").glob("*.3*.gz"))
    perl = sorted(Path("/usr/share/perl").rglob("*.pm")) + sorted(Path("/usr/lib/x86_64-linux-gnu/perl").rglob("*.pm"))
    return {"DebianDocs": _take(docs, budget), "ManPages": _take(man, budget), "PerlModules": _take(perl, budget)}


def make_project(root: Path, corpus: Path) -> None:
    for name in ("dvc.yaml", "requirements.lock", "pyproject.toml", "params.yaml"):
        shutil.copyfile(REPO / name, root / name)
    for folder in ("quarry", "tasks", "flows"):
        shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (root / "data" / "optout").mkdir(parents=True)
    shutil.copyfile(REPO / "data" / "optout" / "registry.tsv", root / "data" / "optout" / "registry.tsv")
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["snapshot"]["sources"] = [{"name": "pile", "kind": "corpus", "path": str(corpus)}]
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    (root / ".gitignore").write_text(".quarry/\nmlflow.db\nmlartifacts/\n")
    for args in (["git", "init", "-q", "-b", "main"], [str(BIN / "dvc"), "init", "-q"], ["git", "add", "-A"],
                 ["git", "-c", "user.name=q", "-c", "user.email=q@example.org", "commit", "-qm", "pile"]):
        subprocess.run(args, cwd=root, check=True, env=_env(root))


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLFLOW_"))}
    env.update(QUARRY_HOME=str(root), PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", DVC_NO_ANALYTICS="1")
    return env


def languages_by_subset(dataset: Path) -> dict[str, dict[str, int]]:
    found: dict[str, dict[str, int]] = {}
    for shard in sorted(dataset.rglob("part-*.jsonl.zst")):
        if "rejects" in shard.parts:
            continue
        for record in read_records(shard):
            meta = record["meta"]
            key = meta["language"] + (f" ({meta['natural_language']})" if meta.get("natural_language") else "")
            counts = found.setdefault(meta["pile_set_name"], {})
            counts[key] = counts.get(key, 0) + 1
    return {s: dict(sorted(c.items(), key=lambda kv: -kv[1])) for s, c in sorted(found.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=9.0, help="corpus size (MB, split evenly over 3 subsets)")
    parser.add_argument("--keep", type=Path, help="build the project here and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="quarry-pile-"))
    root.mkdir(parents=True, exist_ok=True)
    subsets = machine_subsets(int(args.mb * 1e6 / 3))
    corpus = root / "corpus" / "pile.jsonl.zst"
    write_records(corpus, [{"text": t, "meta": {"pile_set_name": n}} for n, texts in subsets.items() for t in texts])
    make_project(root, corpus.parent)
    start = time.perf_counter()
    done = subprocess.run([str(BIN / "dvc"), "repro"], cwd=root, env=_env(root), capture_output=True, text=True)
    wall = time.perf_counter() - start
    subprocess.run([str(BIN / "quarry"), "server", "stop"], cwd=root, env=_env(root), capture_output=True)
    if done.returncode:
        sys.exit(f"dvc repro failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    manifest = read_json(root / "data" / "datasets" / "default" / "manifest.json")
    bpb = {}
    for checkpoint in ("pretrain", "lora"):
        report = read_json(root / "reports" / "eval" / checkpoint / "bpb.json")
        bpb[checkpoint] = {"all": round(report["bpb"], 4),
                           **{s: round(v["bpb"], 4) for s, v in sorted(report["subsets"].items())},
                           "unscored": report.get("unscored", {})}
    ledger = {stage: {"input": entry["input"], "kept": entry["kept"], "dropped": entry["dropped"]}
              for stage, entry in manifest["ledger"].items()}
    print(json.dumps({
        "corpus": {name: {"records": len(texts), "mb": round(sum(len(t.encode()) for t in texts) / 1e6, 2)}
                   for name, texts in subsets.items()},
        "snapshot": {k: v for k, v in read_json(root / "data" / "snapshot" / "ledger.json").items() if k != "stage"},
        "ledger": ledger,
        "version": manifest["version"],
        "composition_by_subset": manifest["composition"]["by_subset"],
        "by_split_and_subset": manifest["composition"]["by_split_and_subset"],
        "languages_by_subset": languages_by_subset(root / "data" / "datasets" / "default"),
        "stratify": manifest["mixture"]["stratify"],
        "bpb": bpb,
        "dvc_repro_s": round(wall, 1),
        "project": str(root),
    }, indent=1))


if __name__ == "__main__":
    main()

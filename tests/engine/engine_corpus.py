"""A small snapshot-style corpus on which every curation stage has work to do: repositories with
real license texts and standard-library modules, a GPL file, a copy and a near copy, a generated
file, an e-mail address, an opted-out origin and a document that leaks an evaluation item."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import orjson

from quarry.records import write_records

STDLIB = Path(sysconfig.get_paths()["stdlib"])
MODULES = ["json/decoder.py", "json/encoder.py", "csv.py", "textwrap.py", "fractions.py", "difflib.py",
           "shlex.py", "calendar.py", "bisect.py", "heapq.py", "sched.py", "graphlib.py", "queue.py", "fnmatch.py"]
OPTED_OUT = "https://example.org/opted-out"


def _record(origin: str, path: str, text: str, language: str = "Python") -> dict:
    return {"text": text, "meta": {"id": f"{origin}:{path}", "origin": origin, "path": path, "language": language,
                                   "pile_set_name": "code", "bytes": len(text.encode())}}


def make_corpus(root: Path, license_text, shards: int = 4) -> dict[str, Path]:
    """Writes root/snapshot/shards, the opt-out registry, an evaluation file and params.yaml."""
    def source(name: str) -> str:
        return (STDLIB / name).read_text(encoding="utf-8")

    records = []
    for n, origin in enumerate(["https://example.org/alpha", "https://example.org/beta", OPTED_OUT]):
        records.append(_record(origin, "LICENSE", license_text("mit" if n != 1 else "apache-2.0"), "Text"))
        for name in MODULES[n::3]:
            records.append(_record(origin, f"src/{Path(name).name}", source(name)))
    records.append(_record("https://example.org/alpha", "src/gpl.c",
                           "/* SPDX-License-Identifier: GPL-2.0-only */\nint gpl(void) { return 0; }\n", "C"))
    records.append(_record("https://example.org/beta", "src/copy_of_fractions.py", source("fractions.py")))
    records.append(_record("https://example.org/beta", "src/near_textwrap.py",
                           source("textwrap.py").replace("width", "columns", 3)))
    records.append(_record("https://example.org/alpha", "src/generated.py",
                           "# auto-generated, do not edit\n" + source("colorsys.py")))
    records.append(_record("https://example.org/beta", "src/contact.py",
                           "# maintainer: jane.doe@acme-corp.io\n" + source("numbers.py")))
    snapshot = root / "snapshot" / "shards"
    for n in range(shards):
        write_records(snapshot / f"part-{n:05d}.jsonl.zst", records[n::shards])
    registry = root / "registry.tsv"
    registry.write_text(f"origin\t{OPTED_OUT}\t2026-01-01\ttest\n", encoding="utf-8")
    leaked = " ".join(source("heapq.py").split()[200:260])
    evaluation = root / "eval.jsonl"
    evaluation.write_bytes(orjson.dumps({"text": leaked}) + b"\n")
    params = root / "params.yaml"
    params.write_text(f"optout: {{registry: {registry}}}\n"
                      f"decontaminate: {{test_split: null, eval_files: [{evaluation}]}}\n", encoding="utf-8")
    return {"snapshot": snapshot.parent, "shards": snapshot, "registry": registry, "params": params}


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (hidden scratch folders aside) by relative path; provenance.json
    as what it says of the output (its input's path is relative to where the run wrote)."""
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
             if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)}
    if "provenance.json" in files:
        made = orjson.loads(files["provenance.json"])
        files["provenance.json"] = orjson.dumps({**made, "input": made["input"] and made["input"]["hash"]},
                                                option=orjson.OPT_SORT_KEYS)
    return files

"""Train the token model of nameless records' languages (quarry/snapshot/language_tokens.json.gz)
on public code in many languages, read from local git clones:

- Rosetta Code solutions as RosettaGit keeps them (github.com/ad-si/RosettaGit, GFDL 1.3): the
  files of content/tasks/<task>/<language>.<ext> and the fenced, language-tagged blocks of the
  pages in content/drafts;
- The Renegade Coder's Sample Programs (github.com/TheRenegadeCoder/sample-programs, MIT):
  archive/<letter>/<language>/<program>.<ext>.

A file's language is the Pygments name its language folder or file name gives (else, on
RosettaGit, its extension, or its fence's tag); one with no Pygments name is left out. Each document falls in a split by a hash
of its source and path: `test` (20 %, only measured), `tune` (10 %, where the thresholds were
chosen) and `train` (the rest, the only part the shipped model counts). The output is
deterministic: the same clones give the same bytes.

    python scripts/train_language_model.py --rosettagit DIR --sample-programs DIR
    python scripts/train_language_model.py ... --evaluate test     # JSON: held-out precision and accuracy
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from quarry.snapshot import language, token_model  # noqa: E402

OUTPUT = REPO / "quarry" / "snapshot" / token_model.MODEL
FENCE = re.compile(r"^```([\w+#.-]+)[ \t]*\n(.*?)^```", re.M | re.S)
MIN_DOCUMENTS = 3          # a language with fewer training documents is not modelled
MIN_DOCUMENT_FREQUENCY = 2  # a token seen in fewer documents is not kept
MAX_BYTES = 100_000


def blobs(clone: Path, under: str) -> list[tuple[str, bytes]]:
    """(path, content) of every file under ``under`` at the clone's HEAD, in path order."""
    listing = subprocess.run(["git", "-C", str(clone), "ls-tree", "-r", "-z", "HEAD", under],
                             check=True, capture_output=True).stdout.decode().strip("\0").split("\0")
    entries = sorted((line.split("\t", 1)[1], line.split()[2]) for line in listing if line and " blob " in line)
    batch = subprocess.run(["git", "-C", str(clone), "cat-file", "--batch"], check=True, capture_output=True,
                           input="".join(sha + "\n" for _, sha in entries).encode()).stdout
    found, at = [], 0
    for path, _ in entries:
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        found.append((path, batch[header_end + 1: header_end + 1 + size]))
        at = header_end + 1 + size + 1
    return found


# Language folder names that are no Pygments alias, or the alias of another language (C2, V).
FOLDER_NAMES = {"c-plus-plus": "C++", "commodore-basic": "CBM BASIC V2", "gnu-make": "Makefile",
                "vimscript": "VimL", "x86-64": "NASM", "c2": None, "v": None}


def name_language(name: str) -> str | None:
    """A language folder or file name (`common_lisp`, `6502_assembly_2`, `f-sharp`) as a Pygments name."""
    name = re.sub(r"_\d+$", "", name)
    if name in FOLDER_NAMES:
        return FOLDER_NAMES[name]
    return language.by_alias(name) or language.by_alias(re.sub(r"[-_]", "", name)) or \
        language.by_alias(re.sub(r"[-_]", " ", name))


def documents(rosettagit: Path | None, sample_programs: Path | None) -> list[tuple[str, str, str]]:
    """(source/path, language, text) of every usable document."""
    found = []
    if rosettagit:
        for path, data in blobs(rosettagit, "content/tasks"):
            stem, _, extension = path.rsplit("/", 1)[-1].rpartition(".")
            lang = name_language(stem) or (language.from_name(path) if extension != "txt" else None)
            found.append((f"rosettagit/{path}", lang, data))
        for path, data in blobs(rosettagit, "content/drafts"):
            text = data.decode("utf-8", "replace")
            for index, (tag, body) in enumerate(FENCE.findall(text)):
                found.append((f"rosettagit/{path}#{index}", language.by_alias(tag), body.encode()))
    if sample_programs:
        for path, data in blobs(sample_programs, "archive"):
            if not path.endswith((".md", ".yml", ".txt")):   # the folder is the language, not the extension
                found.append((f"sample-programs/{path}", name_language(path.split("/")[2]), data))
    return [(key, lang, data[:MAX_BYTES].decode("utf-8", "replace")) for key, lang, data in found
            if lang and lang not in ("Text only", "Markdown") and len(data.strip()) >= 20]


def split_of(key: str) -> str:
    bucket = int(hashlib.sha256(key.encode()).hexdigest(), 16) % 10
    return "test" if bucket < 2 else "tune" if bucket == 2 else "train"


def train(docs: list[tuple[str, str, str]]) -> dict:
    per_language: dict[str, Counter] = defaultdict(Counter)
    document_count: Counter = Counter()
    document_frequency: Counter = Counter()
    doc_tokens = []
    for _, lang, text in docs:
        found = token_model.tokens(text)
        doc_tokens.append((lang, found))
        document_count[lang] += 1
        document_frequency.update(set(found))
    kept = {token for token, n in document_frequency.items() if n >= MIN_DOCUMENT_FREQUENCY}
    for lang, found in doc_tokens:
        if document_count[lang] >= MIN_DOCUMENTS:
            per_language[lang].update(token for token in found if token in kept)
    languages = sorted(per_language)
    return {"languages": languages, "vocabulary": len(kept),
            "counts": [dict(sorted(per_language[lang].items())) for lang in languages]}


def evaluate(docs: list[tuple[str, str, str]], model: token_model.TokenModel) -> dict:
    """The snapshot's reading of each held-out document with its name hidden."""
    known = set(model.languages)
    begun = time.perf_counter()
    answers = [language.detect("00000001", text.encode()[:512], text) for _, _, text in docs]
    seconds = time.perf_counter() - begun
    right = sum(answer == lang for answer, (_, lang, _) in zip(answers, docs))
    named = sum(answer != language.UNKNOWN for answer in answers)
    modelled = [(answer, lang) for answer, (_, lang, _) in zip(answers, docs) if lang in known]
    return {"documents": len(docs), "languages": len({lang for _, lang, _ in docs}), "named": named,
            "named_precision": round(right / named, 4) if named else None,
            "accuracy": round(right / len(docs), 4),
            "accuracy_modelled_languages": round(sum(a == t for a, t in modelled) / len(modelled), 4),
            "text_only": sum(answer == "Text only" for answer in answers),
            "files_per_second": round(len(docs) / seconds, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rosettagit", type=Path)
    parser.add_argument("--sample-programs", type=Path)
    parser.add_argument("--evaluate", choices=["tune", "test"], help="measure the shipped model on a held-out split")
    args = parser.parse_args(argv)
    docs = documents(args.rosettagit, args.sample_programs)
    if args.evaluate:
        print(json.dumps(evaluate([d for d in docs if split_of(d[0]) == args.evaluate], token_model.model()), indent=1))
        return 0
    model = train([d for d in docs if split_of(d[0]) == "train"])
    OUTPUT.write_bytes(gzip.compress(json.dumps(model, separators=(",", ":")).encode(), mtime=0))
    print(json.dumps({"documents": len(docs), "languages": len(model["languages"]), "vocabulary": model["vocabulary"],
                      "bytes": OUTPUT.stat().st_size}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

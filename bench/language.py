"""Language from content, where a name says nothing: the snapshot's detection on this machine's own
files with their names hidden (as a corpus record without a path is), scored per language against
the language their real name gives. The files are sampled deterministically from the installed
packages: Python modules, Perl modules, C headers, shell scripts, man pages (roff), Markdown and
plain-text documentation.

Then the natural language of this machine's translated messages (the gettext catalogs in
/usr/share/locale/<locale>/, the locale is the truth; not the iso-codes name lists), read by
lingua among `snapshot.natural_languages`.

Prints JSON: accuracy per language and overall, the precision of a named language (an `unknown`
answer is no error there), files per second; the natural languages' accuracy, texts per second
and the memory the detector takes; its floors (bench/floors.py).

    python bench/language.py                # 120 files per language
    python bench/language.py --per-language 20
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import struct
import sys
import sysconfig
import time
from pathlib import Path

from floors import Floors

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from quarry.config.snapshot import SnapshotParams  # noqa: E402
from quarry.snapshot.language import UNKNOWN, detect, natural_language  # noqa: E402

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# language -> (folders, glob, what the files are): the truth is the language the real name gives
SAMPLES = {
    "Python": ([STDLIB], "*.py"),
    "Perl": ([Path("/usr/share/perl5"), Path("/usr/share/perl"), Path("/usr/lib/x86_64-linux-gnu/perl-base")], "*.pm"),
    "C": ([Path("/usr/include")], "*.h"),
    "Bash": ([Path("/usr/bin"), Path("/usr/sbin"), Path("/usr/share/debconf")], "*"),
    "Groff": ([Path("/usr/share/man/man1"), Path("/usr/share/man/man5"), Path("/usr/share/man/man8")], "*.gz"),
    "Markdown": ([Path(sysconfig.get_paths()["purelib"]), Path("/usr/share/doc")], "*.md"),
    "Text only": ([Path("/usr/share/doc"), Path("/usr/share/common-licenses")], "*"),
}
MAX_BYTES = 200_000
PROSE_NAMES = {"copyright", "README", "NEWS", "AUTHORS", "THANKS", "TODO"}
# Markup a reader sees at once: a Markdown heading, fence, list item or link; a reStructuredText
# underline or directive. A `.md` licence with none of it is plain text, and a README with it is
# not: such files are left out of the sample, since their name says nothing certain of them.
MARKUP = re.compile(r"^(#{1,6} \S|```|~~~|[-*+] \S|\d+\. \S|={3,}\s*$|-{3,}\s*$|\.\. \w+::)|\[[^]\n]+\]\([^)\s]+\)",
                    re.MULTILINE)
# No C++ lexer claims `*.h`, so the registry calls every header C; one that declares a namespace, a
# template or a class with access specifiers (llvm's, node's, ncurses' C++ binding) is C++ and is
# left out of the C sample, as a `.md` file without markup is left out of Markdown's.
CPP_HEADER = re.compile(r"^[ \t]*(?:namespace[ \t]+\w+[ \t]*\{|template[ \t]*<|(?:public|private|protected)[ \t]*:)",
                        re.MULTILINE)


def read(path: Path) -> bytes | None:
    try:
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    return data if 64 <= len(data) <= MAX_BYTES else None


def truth_of(language: str, path: Path, data: bytes) -> bool:
    """Whether the file is what its sample says: its real name (or, for scripts and docs, its
    first line) gives that language."""
    text = data.decode("utf-8", "replace")
    if language == "Bash":
        return data.startswith((b"#!/bin/sh", b"#!/bin/bash", b"#! /bin/sh", b"#!/usr/bin/env bash"))
    if language == "Text only":  # prose without an extension: Debian copyright files, licence texts, READMEs
        return (path.name in PROSE_NAMES or path.parent.name == "common-licenses") and not MARKUP.search(text)
    if language == "Markdown" and not MARKUP.search(text):
        return False
    if language == "C" and CPP_HEADER.search(text):
        return False
    name = path.name.removesuffix(".gz")
    return detect(name, data[:512], text) == language


def sample(language: str, count: int) -> list[tuple[Path, bytes]]:
    folders, pattern = SAMPLES[language]
    paths = sorted({p for folder in folders if folder.is_dir() for p in folder.rglob(pattern) if p.is_file()})
    step = max(1, len(paths) // (count * 4))
    found = []
    for path in paths[::step]:
        data = read(path)
        if data is not None and truth_of(language, path, data):
            found.append((path, data))
        if len(found) >= count:
            break
    return found


LOCALE = Path("/usr/share/locale")


def catalog_text(path: Path) -> str:
    """The translated strings of a compiled gettext catalog (.mo), one after another."""
    data = path.read_bytes()
    order = "<" if data[:4] == b"\xde\x12\x04\x95" else ">"
    count, _, translations = struct.unpack(order + "3I", data[8:20])
    pieces = []
    for index in range(1, count):   # entry 0 is the catalog's header
        length, offset = struct.unpack(order + "2I", data[translations + 8 * index: translations + 8 * index + 8])
        pieces.append(data[offset: offset + length].replace(b"\0", b" ").decode("utf-8", "replace"))
    return " ".join(" ".join(pieces).split())


def rss_bytes() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def catalog_texts(per_language: int) -> list[tuple[str, str]]:
    """(ISO 639-1 code, translated text) from this machine's gettext catalogs, for every locale
    whose language lingua knows: the locale folder is the truth."""
    from lingua import Language

    known = {language.iso_code_639_1.name.lower() for language in Language.all()}
    found = []
    for folder in sorted(p for p in LOCALE.iterdir() if p.is_dir()):
        code = re.split(r"[_@.]", folder.name)[0]
        if code not in known or code == "en":  # an English catalog holds the source strings
            continue
        # not the iso-codes package's catalogs: lists of country, language, script and currency names,
        # the same proper nouns in every language, are no text in one
        catalogs = sorted(p for p in folder.rglob("*.mo") if not p.name.startswith("iso_"))
        texts = [text[:3000] for text in map(catalog_text, catalogs) if len(text) >= 200]
        found += [(code, text) for text in texts[:: max(1, len(texts) // per_language)][:per_language]]
    return found


def natural_languages(per_language: int) -> dict:
    languages = SnapshotParams().natural_languages
    texts = catalog_texts(per_language)
    before = rss_bytes()
    begun = time.perf_counter()
    natural_language("A first text loads the detector.", languages)
    load_seconds = time.perf_counter() - begun
    begun = time.perf_counter()
    guesses = [natural_language(text, languages) for _, text in texts]
    seconds = time.perf_counter() - begun
    grown = rss_bytes() - before   # lingua reads a language's models when a text first needs them
    by_code: dict[str, list[int]] = {}
    for (code, _), guess in zip(texts, guesses):
        by_code.setdefault(code, [0, 0])[0] += 1
        by_code[code][1] += guess == code
    return {"configured": len(languages), "texts": len(texts), "languages": len(by_code),
            "accuracy": round(sum(r for _, r in by_code.values()) / len(texts), 4) if texts else None,
            "texts_per_second": round(len(texts) / seconds, 1) if seconds else None,
            "load_seconds": round(load_seconds, 2), "detector_rss_mb": round(grown / 2**20, 1),
            "rss_mb": round(rss_bytes() / 2**20, 1),
            "by_language": {code: round(r / n, 3) for code, (n, r) in sorted(by_code.items())}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-language", type=int, default=120)
    parser.add_argument("--catalogs", type=int, default=10, help="gettext catalogs per locale")
    args = parser.parse_args(argv)
    results, total, right, named, seconds = {}, 0, 0, 0, 0.0
    for language in SAMPLES:
        files = sample(language, args.per_language)
        begun = time.perf_counter()
        guesses = [detect("00000001", data[:512], data.decode("utf-8", "replace")) for _, data in files]
        seconds += time.perf_counter() - begun
        hits = sum(guess == language for guess in guesses)
        named += sum(guess != UNKNOWN for guess in guesses)
        wrong: dict[str, int] = {}
        for guess in guesses:
            if guess != language:
                wrong[guess] = wrong.get(guess, 0) + 1
        results[language] = {"files": len(files), "accuracy": round(hits / len(files), 4) if files else None,
                             "read_as": dict(sorted(wrong.items(), key=lambda kv: -kv[1])[:5])}
        total, right = total + len(files), right + hits
    prose = natural_languages(args.catalogs)
    floors = Floors()
    # measured 0.964 (this machine's project venv; 0.989 before doubtful answers became unknown)
    floors.at_least("overall_accuracy", round(right / total, 4) if total else None, 0.9)
    # a named language is right 0.996 of the time here (`unknown` where neither model is sure); a
    # fresh machine with fewer packages gave 0.948 on 20 files per language, its misses Markdown
    # licences and notes with little markup read as plain text (the goal is 0.90)
    floors.at_least("named_precision", round(right / named, 4) if named else None, 0.93)
    # measured 0.879 over 69 locales: the misses are mostly Bosnian / Serbian / Croatian read as one
    # another, Latin-script Belarusian and short catalogs of Maori, Malay, Xhosa, Zulu, Swahili
    floors.at_least("natural_language_accuracy", prose["accuracy"], 0.85)
    for language, row in results.items():
        if row["files"]:
            # Markdown that is mostly prose reads as plain text: 0.65-1.0 across environments
            floors.at_least(f"{language}.accuracy", row["accuracy"], 0.6)
    floors.emit({"files": total, "files_per_second": round(total / seconds, 1) if seconds else None,
                 "names_hidden": True, "named": named, "by_language": results, "natural_language": prose})
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The exact-match fast path (scancode_worker.settled) gives the full matching's answer on source
files whose headers hold ScanCode's shipped BSD and MIT texts with a clause added, dropped, moved or
renamed: a clause that sets a neighbouring licence apart (BSD-3's no-endorsement clause beside
BSD-2, BSD-4's advertising clause, MIT's conditions beside MIT-0) is never left unmatched."""

from __future__ import annotations

import sysconfig
from pathlib import Path

from licenses_helpers import license_text, needs_scancode

from quarry.curation.licenses.cache import CachedDetector
from quarry.curation.licenses.normalize import license_part, normalize
from quarry.curation.licenses.shards import file_statement

HEADER_LINES = 40  # the stage's default (params.yaml licenses.header_lines)


def _paragraphs(key: str) -> list[str]:
    return [p.strip() for p in license_text(key).split("\n\n") if p.strip()]


def _variants() -> dict[str, str]:
    """Licence texts as headers hold them, built from the shipped texts' paragraphs."""
    preamble, source, binary, endorse, disclaimer = _paragraphs("bsd-new")
    simplified = _paragraphs("bsd-simplified")
    original = _paragraphs("bsd-original")  # preamble, 1. source, 2. binary, 3. advertising, 4. endorse, disclaimer
    mit, mit0 = _paragraphs("mit"), _paragraphs("mit-0")
    named = endorse.replace("the ORGANIZATION", "the Frobnitz Widget Company")
    numbered = [preamble] + [f"{n}. {p}" for n, p in enumerate((source, binary, named), 1)] + [disclaimer]
    about = ("This file implements the ring buffer the scheduler uses to hand work between threads;\n"
             "see ring.h for the interface and the notes on locking there.")
    variants = {
        "bsd-3": [preamble, source, binary, endorse, disclaimer],
        "bsd-3 numbered, named": numbered,
        "bsd-3 without clause 1": [preamble, binary, endorse, disclaimer],
        "bsd-3 without clause 2": [preamble, source, endorse, disclaimer],
        "bsd-3 without clause 3": [preamble, source, binary, disclaimer],
        "bsd-3 without its disclaimer": [preamble, source, binary, endorse],
        "bsd-3, clause 3 after the disclaimer": [preamble, source, binary, disclaimer, endorse],
        "bsd-3 numbered, clause 3 after the disclaimer": numbered[:3] + [disclaimer, numbered[3]],
        "bsd-2": simplified,
        "bsd-2 and what the file does": [about] + simplified,
        "bsd-2, then what the file does": simplified + [about],
        "bsd-2, then the endorsement clause": simplified + [named],
        "bsd-4": original,
        "bsd-4 without the advertising clause": original[:3] + original[4:],
        "bsd-4 without the endorsement clause": original[:4] + original[5:],
        "bsd-2, then the advertising clause": simplified + [original[3]],
        "mit": mit,
        "mit-0": mit0,
        "mit without its conditions": [mit[0].replace(", subject to\nthe following conditions:", "."), mit[2]],
        "mit-0 with mit's conditions": [mit0[0].replace("to do so.", "to do so, subject to the following "
                                                        "conditions:"), mit[1], mit0[1]],
        "mit and the file's description": [about] + mit,
        "mit and a no-advertising clause": mit + [_paragraphs("x11")[-1]],
    }
    return {name: "\n\n".join(paragraphs) for name, paragraphs in variants.items()}


def _c_file(header: str) -> str:
    body = "\n".join(f" * {line}".rstrip() for line in header.splitlines())
    return (f"/*\n * Copyright (c) 2011 The Widget Authors\n *\n{body}\n */\n\n#include <stddef.h>\n\n"
            "size_t ring_free(const struct ring *r)\n{\n\treturn r->size - (r->head - r->tail);\n}\n")


def _python_file(header: str) -> str:
    """The header above a real module of this interpreter's standard library."""
    module = Path(sysconfig.get_paths()["stdlib"]) / "colorsys.py"
    body = "\n".join(f"# {line}".rstrip() for line in header.splitlines())
    return f"# Copyright 2019 Someone Else\n#\n{body}\n\n{module.read_text(encoding='utf-8')}"


@needs_scancode
def test_the_fast_path_answers_as_the_full_matching_on_licence_clauses(detector, tmp_path):
    from quarry.curation.licenses.engine import ScanCodeWorker

    files = {f"{name} ({kind})": make(header) for name, header in _variants().items()
             for kind, make in (("C", _c_file), ("Python", _python_file))}
    statements = {name: file_statement(text, HEADER_LINES) for name, text in files.items()}
    assert all(statements.values())
    shown = {name: license_part(normalize(statement)) for name, statement in statements.items()}
    with CachedDetector(tmp_path / "cache", worker=detector.worker) as stage:
        ours = dict(zip(statements, stage.detect(list(statements.values()))))
    with ScanCodeWorker(plain=True) as full_matching:
        full = dict(zip(shown, full_matching.detect(list(shown.values()))))
        settled = dict(zip(shown, full_matching.settles(list(shown.values()))))
    differ = {name: (ours[name]["expression"], full[name]["expression"]) for name in files
              if (ours[name]["expression"], ours[name]["spdx"]) != (full[name]["expression"], full[name]["spdx"])}
    assert not differ
    # the fast path is taken where nothing sets another licence apart, and refused where a clause does
    for name in ("bsd-3", "bsd-2", "bsd-2, then what the file does", "bsd-4", "mit", "mit-0"):
        assert settled[f"{name} (C)"] and settled[f"{name} (Python)"], name
    assert not settled["bsd-3, clause 3 after the disclaimer (C)"]
    assert {full[f"{name} (C)"]["spdx"] for name in ("bsd-3", "bsd-2", "mit", "mit-0")} == \
        {"BSD-3-Clause", "BSD-2-Clause", "MIT", "MIT-0"}

"""License detection without needless ScanCode calls: normalised cache keys, answers read from
ScanCode's own license data (checked against ScanCode), and the same answer whatever came first."""

from __future__ import annotations

from licenses_helpers import license_text, needs_scancode

from quarry.curation.licenses.cache import CachedDetector, text_key
from quarry.curation.licenses.normalize import normalize


def _commented(text: str, marker: str) -> str:
    return "\n".join(f"{marker} {line}".rstrip() for line in text.splitlines())


@needs_scancode
def test_holders_years_comment_markers_and_spacing_share_one_normal_form():
    mit = license_text("mit")
    variants = [f"Copyright (c) {2000 + i % 25} Holder {i} <h{i}@example.org>\n\n{mit}" for i in range(1000)]
    variants += [_commented(f"Copyright 2019 Someone Else\n{mit}", marker) for marker in ("#", "//", " *", ";;")]
    variants.append("/*\n" + mit.replace(" ", "   ") + "\n */")
    assert len({text_key(v) for v in variants}) == 1
    # what is part of the grant stays: a copyright line naming the license, "All rights reserved"
    assert normalize("Copyright 2020 X. Licensed under the MIT license.") != normalize("Copyright 2020 Y.")
    assert normalize("# Copyright 2020 Acme Corp. All rights reserved.\n# Confidential") == \
        "All rights reserved.\nConfidential"
    assert normalize("SPDX-License-Identifier: GPL-2.0+ */") == "SPDX-License-Identifier: GPL-2.0+"
    # a header's title and the docstring after it are not part of what ScanCode is shown
    assert text_key("# tool.py: parse things\n#\n# Licensed under the MIT license.\n#\n# Parses YAML.") == \
        text_key('// Licensed under the MIT license.\n\n"""Reads TOML files."""') != text_key("Parses YAML.")
    assert text_key("Confidential\n\nParses YAML.") != text_key("Parses YAML.")


def test_a_thousand_holders_of_one_license_cost_one_scancode_call(detector, tmp_path):
    mit = "MIT License\n\n{copyright}\n\n" + license_text("mit")  # titled: not a shipped text as is
    texts = [mit.format(copyright=f"Copyright (c) {2000 + i % 20} Holder {i}") for i in range(1000)]
    texts.append(_commented(mit.format(copyright="Copyright 2024 The Authors"), "#"))
    with CachedDetector(tmp_path / "cache", worker=detector.worker) as cold:
        results = cold.detect(texts)
        assert cold.scancode_calls == 1 and cold.stats.misses == 1
    assert {r["spdx"] for r in results} == {"MIT"}
    # ScanCode saw the normal form: the answer is the same whichever text brought it
    with CachedDetector(tmp_path / "reversed", worker=detector.worker) as other:
        assert other.detect(texts[::-1]) == results[::-1]


def test_spdx_lines_and_shipped_texts_are_answered_as_scancode_answers_them(detector, tmp_path):
    keys = ("mit", "apache-2.0", "bsd-new", "gpl-2.0", "gpl-3.0", "lgpl-2.1", "mpl-2.0", "isc", "bsl-1.0")
    texts = [license_text(key) for key in keys]
    texts += [_commented(license_text("bsd-simplified"), "#")]
    texts += [f"SPDX-License-Identifier: {expression}" for expression in (
        "MIT", "Apache-2.0 OR MIT", "GPL-2.0-or-later", "GPL-2.0+", "LGPL-2.1-only WITH OCaml-LGPL-linking-exception",
        "(MIT OR Apache-2.0) AND BSD-3-Clause", "mpl-2.0", "BSD-2-Clause AND ISC")]
    with CachedDetector(tmp_path / "cache", worker=detector.worker) as fast:
        ours = fast.detect(texts)
        assert fast.scancode_calls == 0 and sum(fast.stats.resolved.values()) == len(texts)
    plain = detector.worker.detect(texts)  # the worker itself: ScanCode on the texts as they are
    for text, mine, theirs in zip(texts, ours, plain):
        assert (mine["expression"], mine["spdx"], mine["score"], mine["keys"]) == \
            (theirs["expression"], theirs["spdx"], theirs["score"], theirs["keys"]), text[:60]
    # an id ScanCode must interpret, or one word more than a shipped text, goes to ScanCode
    with CachedDetector(tmp_path / "cache", worker=detector.worker) as fast:
        assert fast.resolve_without_scancode("SPDX-License-Identifier: LicenseRef-acme-1") is None
        assert fast.resolve_without_scancode("Acme note.\n" + license_text("mit")) is None


@needs_scancode
def test_the_tokens_of_a_normal_form_without_building_it():
    """known.build_table reads ScanCode's licence texts through normal_tokens: the tokens of their
    normal form, whatever their line breaks, comment markers and copyright lines."""
    from licenses_helpers import LICENSE_DATA

    from quarry.curation.licenses.normalize import normal_tokens, tokens

    texts = [path.read_text(encoding="utf-8") for path in sorted(LICENSE_DATA.glob("*.LICENSE"))[::7]]
    texts += ["a\rCopyright 2000 X\rb", "x (C) 1999 y\n(c) 2000 z", " * Copyright 2001 Foo, licensed under MIT",
              "Portions copyright 2 X\nk\x0cCopyright 3 Y", "# Copyright 2020 Acme. All rights reserved.\n# GPL-2.0+ */",
              "copyright\ncopyright notice stays\n© 2020 gone", ""]
    assert all(normal_tokens(text) == tokens(normalize(text)) for text in texts)


CANDIDATES_CHECK = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("worker", sys.argv[1])
worker = importlib.util.module_from_spec(spec)
spec.loader.exec_module(worker)
from licensedcode import match_set
from licensedcode.query import Query
index, _, _, _ = worker.load_engine()
original = worker._ORIGINAL_CANDIDATES[0]
runs = differ = 0
for text in json.load(sys.stdin):
    query = Query(query_string=text, idx=index)
    for run, near_dupe, top in [(query.whole_query_run(), True, 10)] + [(r, False, 70) for r in query.query_runs]:
        args = dict(top=top, high_resemblance=near_dupe)
        ours = match_set.compute_candidates(run, index, index.approx_matchable_rids, **args)
        theirs = original(run, index, index.approx_matchable_rids, **args)
        runs += 1
        differ += [(s, rid, list(i)) for s, rid, _, i in ours] != [(s, rid, list(i)) for s, rid, _, i in theirs]
print(json.dumps({"runs": runs, "differ": differ}))
"""


@needs_scancode
def test_the_candidate_filter_gives_scancodes_own_candidates(tmp_path):
    """scancode_worker.CandidateFilter ranks only the rules that can pass compute_candidates' first
    step: ScanCode's candidates, in its order, on licence texts and multi-licence headers."""
    import json
    import subprocess

    from licenses_helpers import SCANCODE_PYTHON

    from quarry.curation.licenses.engine import WORKER_SCRIPT

    gpl_header = ("This library is free software; you can redistribute it and/or modify it under the terms of the "
                  "GNU Lesser General Public License as published by the Free Software Foundation; either version "
                  "2.1 of the License, or (at your option) any later version.")
    texts = [license_text(key) for key in ("mit", "bsd-new", "zlib", "isc")] + [
        gpl_header + "\n\nPermission to use, copy, modify and distribute this software is hereby granted, provided "
        "that the above copyright notice appears in all copies.",
        gpl_header.replace("Lesser", "Library") + "\n\nSome parts: Licensed under the Apache License 2.0.",
        "Permission is hereby granted, free of charge, to any person obtaining a copy of this software, to deal "
        "in it without restriction, subject to the conditions below.",
        f"Title of the thing\n\n{license_text('apache-2.0')[:1500]}\n\nand the BSD license for the rest.",
    ]
    done = subprocess.run([str(SCANCODE_PYTHON), "-c", CANDIDATES_CHECK, str(WORKER_SCRIPT)], input=json.dumps(texts),
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["runs"] >= len(texts) * 2 and found["differ"] == 0


@needs_scancode
def test_a_cold_detector_starts_scancode_while_it_reads_the_shipped_texts(tmp_path):
    """The first text that neither the cache nor an SPDX line answers starts a worker in the
    background, beside the table of shipped texts; one the shipped data then answers leaves nothing
    asked of it, and the worker is closed with the detector."""
    header = "# Licensed under the Apache License, Version 2.0; see the LICENSE file."
    with CachedDetector(tmp_path / "cache") as cold:
        assert cold.detect(["SPDX-License-Identifier: MIT"])[0]["spdx"] == "MIT"
        assert cold._early is None and cold.started_workers == 0  # an SPDX line: nothing to start
        assert cold.detect([license_text("mit")])[0]["spdx"] == "MIT"  # a shipped text, verbatim
        assert cold.scancode_calls == 0 and cold._early is not None  # started, then not needed
        assert cold.detect([header])[0]["spdx"] == "Apache-2.0"
        assert cold.scancode_calls == 1 and cold.started_workers == 1 and cold._early is None
    with CachedDetector(tmp_path / "cache") as warm:  # every text answered from the cache or an SPDX line
        assert warm.detect([header, "SPDX-License-Identifier: MIT"])[1]["spdx"] == "MIT"
        assert warm.scancode_calls == 0 and warm._early is None and warm.started_workers == 0

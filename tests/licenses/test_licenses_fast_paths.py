"""License detection without needless ScanCode calls: normalised cache keys, answers read from
ScanCode's own license data (checked against ScanCode), and the same answer whatever came first."""

from __future__ import annotations

from licenses_helpers import license_text, needs_scancode

from quarry.licenses.cache import CachedDetector, text_key
from quarry.licenses.normalize import normalize


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

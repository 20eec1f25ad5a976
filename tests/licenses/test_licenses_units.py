"""Policy over expressions, manifest declarations and headers: pure functions, no ScanCode."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quarry.config import as_params
from quarry.errors import ConfigError
from quarry.curation.licenses.cache import text_key
from quarry.curation.licenses.engine import ScanCodeError, ScanCodeWorker, scancode_python
from quarry.curation.licenses.normalize import license_part, normalize
from quarry.curation.licenses.policy import LicensePolicy, drop_references, expression_category
from quarry.curation.licenses.sources import declared_licenses, license_header, repo_file_tier, spdx_identifier

CATS = {"MIT": "permissive", "Apache-2.0": "permissive", "GPL-2.0-only": "strong-copyleft",
        "LGPL-2.1-only": "weak-copyleft", "CC0-1.0": "public-domain"}


@pytest.mark.parametrize("expression, category, allowed", [
    ("MIT OR GPL-2.0-only", "permissive", True),
    ("MIT AND GPL-2.0-only", "strong-copyleft", False),
    ("(MIT OR GPL-2.0-only) AND Apache-2.0", "permissive", True),
    ("LGPL-2.1-only OR GPL-2.0-only", "weak-copyleft", False),
    ("GPL-2.0-only WITH Classpath-exception-2.0", "strong-copyleft", False),
    ("CC0-1.0 AND MIT", "permissive", True),
    ("LicenseRef-scancode-proprietary", "unknown", False),
])
def test_expressions_are_judged_as_formulas(expression, category, allowed):
    assert expression_category(expression, CATS) == category
    assert LicensePolicy().allows(expression, CATS) is allowed


def test_policy_options():
    strict = LicensePolicy.from_section(as_params({"licenses": {"policy": {
        "allow_categories": ["permissive"], "allow_spdx": ["LGPL-2.1-only"], "deny_spdx": ["MIT"], "no_license": "drop",
        "min_score": 80}}}).licenses.policy)
    assert strict.allows("LGPL-2.1-only", CATS) and not strict.allows("MIT", CATS)
    assert strict.allows("MIT OR Apache-2.0", CATS)
    no_license = {"spdx": None, "category": "no-license", "evidence": None}
    assert strict.verdict(no_license, {}) == "license:no-license"
    assert LicensePolicy().verdict(no_license, {}) is None
    weak = {"spdx": "Apache-2.0", "category": "permissive", "evidence": {"file": "a", "score": 50.0}}
    assert strict.verdict(weak, CATS) == "license:low-score"
    with pytest.raises(ConfigError, match="allow_categories"):
        as_params({"licenses": {"policy": {"allow_categories": ["permisive"]}}})


def test_references_beside_a_license_are_dropped():
    assert drop_references("Apache-2.0 AND LicenseRef-scancode-unknown-license-reference") == "Apache-2.0"
    assert drop_references("LicenseRef-scancode-unknown-license-reference") == \
        "LicenseRef-scancode-unknown-license-reference"


def test_repository_files_and_tiers():
    assert [repo_file_tier(p) for p in ("LICENSE", "COPYING.LESSER", "LICENSE-MIT", "licence.md", "Cargo.toml",
                                        "package.json", "README.md", "NOTICE", "src/LICENSE", "main.py",
                                        "src/README.md", "pkg/license.py", "a/b/x.gemspec")] == \
        [0, 0, 0, 0, 1, 1, 2, 2, 0, None, None, None, 1]


def test_manifest_declarations():
    assert declared_licenses("package.json", '{"name": "x", "license": "(MIT OR Apache-2.0)"}') == \
        "SPDX-License-Identifier: (MIT OR Apache-2.0)"
    assert declared_licenses("Cargo.toml", '[package]\nlicense = "MIT/Apache-2.0"\n') == \
        "SPDX-License-Identifier: MIT OR Apache-2.0"
    assert declared_licenses("pyproject.toml", '[project]\nname = "x"\nclassifiers = '
                             '["License :: OSI Approved :: BSD License"]\n') == "License :: OSI Approved :: BSD License"
    assert declared_licenses("setup.cfg", "[metadata]\nlicense = Apache-2.0\n") == "SPDX-License-Identifier: Apache-2.0"
    assert declared_licenses("METADATA", "Metadata-Version: 2.4\nName: x\nLicense-Expression: MIT\n") == \
        "SPDX-License-Identifier: MIT"
    assert declared_licenses("package.json", "{not json") is None
    assert declared_licenses("package.json", '{"name": "x"}') is None


def test_file_level_statements():
    assert spdx_identifier("/* SPDX-License-Identifier: GPL-2.0-only */\nint x;", 5) == "GPL-2.0-only"
    assert spdx_identifier("<!-- SPDX-License-Identifier: MIT -->", 5) == "MIT"
    assert spdx_identifier("x = 1\n" * 10 + "# SPDX-License-Identifier: MIT\n", 5) is None  # too deep
    header = ("#!/usr/bin/env python\n# Copyright 2020 Alice\n# Copyright (c) 2021 Bob\n"
              "# Licensed under the MIT license.\nimport os\n# license: later comment\n")
    assert license_header(header, 40) == "# Licensed under the MIT license."
    assert license_header("# A tool to do things.\nimport os\n", 40) is None
    assert license_header('"""Module.\n\nLicensed under the Apache License, Version 2.0.\n"""\nimport os\n', 40) \
        .endswith('Version 2.0.\n"""')


@pytest.mark.parametrize("line", ["# Copyright: (C) 2010-2012 N. P.  GPLv2.", "/* (c) 2001 A. Writer, released under LGPL-2.1+ */",
                                  "// Copyright 2020 Foo Ltd. Apache 2.0", "# Copyright 2019 Bar, BSD-3 licence",
                                  "-- Copyright (C) 2018 Baz, MPL 2.0"])
def test_a_copyright_line_that_names_a_licence_is_a_statement(line):
    assert license_header(f"{line}\nint main(void);\n", 40) == line


@pytest.mark.parametrize("line", ["# Copyright 2001 GPLinker Ltd", "# Copyright (C) 2012-2023 Free Software Foundation, Inc.",
                                  "// Copyright 2020 The Apache Software Foundation"])
def test_a_copyright_line_naming_no_licence_is_not_a_statement(line):
    assert license_header(f"{line}\nint main(void);\n", 40) is None


BLOCK_HEADERS = [
    # lines between the markers carry none of their own, as glibc's and nettle's headers write them
    "/* Tally: counting helpers.\n\n   This library is free software; you can "
    "redistribute it under the terms of the GNU Lesser General Public\n   License, version 2.1 or later.  */",
    "<!--\n  Tally's templates.\n  Licensed under the Apache License, Version 2.0.\n-->",
    "{- Tally\n   Released under the BSD-3-Clause licence.\n-}",
    "(* Tally\n   Licensed under the MIT license. *)",
    # permissive grants that never say "license"
    "/* tally.h\n\n  Permission is granted to anyone to use this software for any purpose, subject to the\n"
    "  following restrictions: this notice may not be removed.\n*/",
    "/*\n * Permission to use, copy, modify, and distribute this software for any purpose with or without\n"
    " * fee is hereby granted.\n */",
]


@pytest.mark.parametrize("header", BLOCK_HEADERS)
def test_a_block_comment_header_is_read_to_its_end_and_no_further(header):
    text = f"{header}\n#ifndef TALLY_H\n#define TALLY_H 1\n#include <stddef.h>\nint tally(void);\n#endif\n"
    assert license_header(text, 40) == header


def test_missing_scancode_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("QUARRY_SCANCODE_PYTHON", str(tmp_path / "nope" / "python"))
    with pytest.raises(ScanCodeError, match="QUARRY_SCANCODE_PYTHON.*no such interpreter.*scancode-toolkit"):
        scancode_python()
    monkeypatch.delenv("QUARRY_SCANCODE_PYTHON")
    monkeypatch.setenv("QUARRY_HOME", str(tmp_path))
    # the interpreter setup recorded in the environment wins over the project folder ...
    recorded = tmp_path / "recorded"
    recorded.write_text(str(tmp_path / "nope" / "python"))  # ... unless it is gone
    monkeypatch.setattr("quarry.curation.licenses.engine.RECORDED_PYTHON", recorded)
    with pytest.raises(ScanCodeError, match=r"\.venv-scancode"):
        scancode_python()


def test_a_worker_that_cannot_start_says_why(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'no module named licensedcode' >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(ScanCodeError, match="exited with code 3.*licensedcode"):
        ScanCodeWorker(fake)


LEAVES = sorted(CATS)
expressions = st.recursive(st.sampled_from(LEAVES),
                           lambda inner: st.tuples(inner, st.sampled_from([" AND ", " OR "]), inner)
                           .map(lambda t: f"({t[0]}{t[1]}{t[2]})"), max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(left=expressions, right=expressions, allowed=st.sets(st.sampled_from(
    ["public-domain", "permissive", "weak-copyleft", "strong-copyleft"])))
def test_policy_composes_like_logic(left, right, allowed):
    policy = LicensePolicy(allow_categories=frozenset(allowed))
    a, b = policy.allows(left, CATS), policy.allows(right, CATS)
    assert policy.allows(f"{left} OR {right}", CATS) == (a or b)
    assert policy.allows(f"{left} AND {right}", CATS) == (a and b)
    wider = LicensePolicy(allow_categories=frozenset(allowed | {"weak-copyleft"}))
    assert not a or wider.allows(left, CATS)  # allowing more never refuses what was allowed
    rank = {c: i for i, c in enumerate(["public-domain", "permissive", "weak-copyleft", "strong-copyleft"])}
    either, both = expression_category(f"{left} OR {right}", CATS), expression_category(f"{left} AND {right}", CATS)
    l_cat, r_cat = expression_category(left, CATS), expression_category(right, CATS)
    assert rank[either] == min(rank[l_cat], rank[r_cat]) and rank[both] == max(rank[l_cat], rank[r_cat])


@pytest.mark.parametrize("line", [
    "Copyright: (C) 2010-2012 N. P.  GPLv2.", "Copyright 2001 X, LGPL-2.1+", "(c) 2000 Foo. BSD-3-Clause",
    "Copyright 2001 Foo -- Apache 2.0", "Copyright 2003 Bar, MIT", "Copyright Baz; Artistic",
    "Copyright 2000 A. public domain", "© 2011 Q. MPL-2.0", "Copyright 2012 R, CC-BY-4.0"])
def test_a_copyright_line_that_names_a_licence_is_never_dropped(line):
    from quarry.curation.licenses.normalize import normalize

    assert normalize(line) == " ".join(line.split())
    assert normalize("Copyright 2010 Holder <h@mit.edu>\nCopyright 2011 P <p@FreeBSD.org>") == ""


def test_preprocessor_lines_around_a_header_are_passed_over():
    header = "/*\n * This source code is licensed under the BSD-style license found in the LICENSE file.\n */"
    text = f"#if !defined(TALLY_STABLE_ONLY)\n{header}\n#pragma once\n#include <cstdint>\nint tally();\n#endif\n"
    assert license_header(text, 40) == header


def test_a_header_begun_within_its_lines_is_read_whole_past_them():
    # a generated file's note, C++ linkage and then the licence: begun by line 40, ended after it
    licence = "/* Copyright (c) 2010, Tally Inc.\n *\n" + "".join(f" * clause {i}: redistribution and use permitted\n"
                                                                   for i in range(40)) + " */"
    text = (f"/*\n * Please do not edit this file.\n */\n#include <rpc/rpc.h>\nextern \"C\" {{\n{licence}\n"
            "int tally(void);\n")
    header = license_header(text, 40)
    assert header.endswith("clause 39: redistribution and use permitted\n */") and "Please do not edit" in header
    late = "\n" * 40 + "/* Licensed under the MIT license. */\nint f(void);\n"
    assert license_header(late, 40) is None  # begun too late


def test_a_licence_sentence_that_opens_on_copyright_is_kept():
    """X11's notice breaks its lines before "copyright notice": only copyright lines go."""
    header = ("/*\nCopyright 1988 Tally Corporation, Maynard, Massachusetts.\n\n    All Rights Reserved\n\n"
              "Permission to use, copy, modify, and distribute this software and its documentation for any purpose\n"
              "and without fee is hereby granted, provided that the above copyright notice appear in all copies and\n"
              "that both that\ncopyright notice and this permission notice appear in supporting documentation.\n*/")
    kept = license_header(header + "\n#define TALLY 1\n", 40)
    assert "copyright notice and this permission notice appear" in kept and "Tally Corporation" not in kept


LIBRARY_NOTICE = ("   This file is part of the GNU Tally Library.\n\n"
                  "   The GNU Tally Library is free software; you can redistribute it\n"
                  "   and/or modify it under the terms of the GNU Lesser General Public License as published by\n"
                  "   the Free Software Foundation; either version 2.1 of the License, or (at your option) any\n"
                  "   later version.  */\n")


def test_one_librarys_headers_under_their_own_titles_are_one_text_for_scancode():
    headers = [f"/* {title}\n   Copyright (C) {year} The Tally Authors.\n{LIBRARY_NOTICE}#include <stddef.h>\n"
               for title, year in (("Counting helpers.", 2001), ("obstack.h - object stack macros", 2019))]
    statements = [license_header(header, 40) for header in headers]
    assert all(statements) and statements[0] != statements[1]
    assert text_key(statements[0]) == text_key(statements[1])   # one ScanCode call answers both


@pytest.mark.parametrize("notice", ["This module is part of tally and is released under\nthe Apache 2.0 License.",
                                    "Tally is distributed under the terms of the\nGNU General Public License, version 2."])
def test_a_sentence_running_onto_the_rights_line_is_shown_whole(notice):
    assert license_part(normalize(f"{notice}\n\nSee the AUTHORS file.")) == notice

"""Governance rules as pure functions (no ScanCode): declarations, notices, precedence."""

from __future__ import annotations

from quarry.curation.licenses.declarations import debian_expression, parse_declaration
from quarry.curation.licenses.findings import LicenseFinding
from quarry.curation.licenses.governance import OriginSurvey, decide, govern, origin_governance, plan
from quarry.curation.licenses.notices import has_choice, offers_choice, rights_reserved, split_docs_clause, \
    without_self_notices

CATS = {"MIT": "permissive", "Apache-2.0": "permissive", "BSD-3-Clause": "permissive",
        "GPL-2.0-only": "strong-copyleft", "GPL-2.0-or-later": "strong-copyleft", "GPL-3.0-only": "strong-copyleft",
        "LGPL-3.0-only": "weak-copyleft",
        "LicenseRef-scancode-unknown": "unknown", "LicenseRef-scancode-unknown-license-reference": "unknown",
        "LicenseRef-scancode-warranty-disclaimer": "unknown"}


def finding(spdx: str) -> LicenseFinding:
    return LicenseFinding(spdx, 100.0, {k: v for k, v in CATS.items() if k in spdx})


def test_debian_short_names_become_spdx():
    assert debian_expression("GPL-2+") == "GPL-2.0-or-later"
    assert debian_expression("GPL-2+ or Artistic") == "GPL-2.0-or-later OR Artistic-1.0-Perl"
    assert debian_expression("Expat") == "MIT"
    assert debian_expression("BSD-3-clause and LGPL-2.1+") == "BSD-3-Clause AND LGPL-2.1-or-later"
    assert debian_expression("some-local-license") is None


def test_debian_paragraphs_last_match_wins_and_free_form_is_not_a_declaration():
    text = ("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
            "Files: *\nCopyright: A\nLicense: Expat\n\nFiles: vendor/*\nCopyright: B\nLicense: GPL-2+\n")
    rules = parse_declaration("debian/copyright", text)
    assert [r.statement for r in rules if r.matches("vendor/a/b.c")][-1] == "SPDX-License-Identifier: GPL-2.0-or-later"
    assert [r.statement for r in rules if r.matches("src/a.c")] == ["SPDX-License-Identifier: MIT"]
    assert parse_declaration("debian/copyright", "This package is GPL.\n") is None


def test_reuse_toml_globs():
    rules = parse_declaration("REUSE.toml", 'version = 1\n[[annotations]]\npath = ["*.png", "docs/**"]\n'
                                            'SPDX-License-Identifier = "CC0-1.0"\n')
    assert rules[0].matches("logo.png") and rules[0].matches("docs/a/b.md")
    assert not rules[0].matches("img/logo.png")  # * stays within a folder


def test_choices_and_version_ranges():
    assert has_choice("Licensed under either of Apache License, Version 2.0 or MIT license at your option.")
    assert not has_choice("either version 2 of the License, or (at your option) any later version.")
    assert not has_choice("distribute the Covered Software under the terms of either this License or such "
                          "Secondary License(s)")
    assert offers_choice("Dual-licensed: see LICENSE-MIT and LICENSE-APACHE.",
                         ["LICENSE-APACHE", "LICENSE-MIT", "NOTICE"]) == ["LICENSE-APACHE", "LICENSE-MIT"]
    assert offers_choice("See LICENSE-MIT and LICENSE-APACHE.", ["LICENSE-APACHE", "LICENSE-MIT"]) == []


def test_a_readme_notice_about_itself_is_left_out_of_what_it_says_of_the_project():
    about_itself = ("Permission is granted to copy, distribute and/or modify this document under the terms of "
                    "the GNU Free Documentation License, Version 1.3, published by the Free Software Foundation.")
    program = "widget is free software under the GNU General Public License, version 2."
    assert without_self_notices(f"widget 1.0\n\n{about_itself}\n\n{program}\n") == f"widget 1.0\n\n{program}\n"
    assert without_self_notices(about_itself) == ""
    for stays in ("This file is part of widget. Copying and distribution of this file are permitted under the MIT "
                  "license.",   # about the work it is part of
                  "Licensed under the Apache License, Version 2.0; you may not use this file except in compliance "
                  "with the License.",   # the project's licence, in its header's words
                  "Permission is hereby granted to copy and modify this software and this document."):
        assert without_self_notices(stays) == stays


def test_documentation_clause_and_reserved_rights():
    main, docs = split_docs_clause("MIT License\n\nPermission is hereby granted.\n\n"
                                   "The documentation is licensed under CC-BY-4.0.")
    assert docs == "The documentation is licensed under CC-BY-4.0." and "documentation" not in main
    assert split_docs_clause("Source form includes documentation source.") == \
        ("Source form includes documentation source.", None)
    assert rights_reserved("Copyright 2020 Acme. All rights reserved.") == "weak"
    assert rights_reserved("Acme confidential and proprietary.") == "strong"
    assert rights_reserved("Permission is hereby granted") is None
    # a copyright notice's "All Rights Reserved" above a grant reserves nothing (X11's keysym headers)
    assert rights_reserved("Copyright 1987 by Apollo Computer Inc.\n\n    All Rights Reserved\n\nPermission to use, "
                           "duplicate, change, and distribute this software and its documentation for any purpose "
                           "and without fee is granted") is None
    assert rights_reserved("All rights reserved.\n\nRedistribution and use in source and binary forms, with or "
                           "without modification, are permitted provided that ...") is None
    assert rights_reserved("Copyright 2020 Acme. All rights reserved. Confidential.") == "strong"


def _governance(files: dict[str, str], findings: dict[str, LicenseFinding | None]) -> dict:
    survey = OriginSurvey()
    for path, text in files.items():
        survey.add(path, text)
    return origin_governance(survey, findings)


def test_precedence_of_file_sidecar_and_nearest_folder():
    files = {"LICENSE": "mit text", "vendor/x/COPYING": "gpl text", "a.png.license": "SPDX-License-Identifier: MIT"}
    gov = _governance(files, {"mit text": finding("MIT"), "gpl text": finding("GPL-2.0-only"),
                              "SPDX-License-Identifier: MIT": finding("MIT")})
    assert govern("vendor/x/deep/y.c", None, None, gov)["evidence"]["file"] == "vendor/x/COPYING"
    assert govern("vendor/xy.c", None, None, gov)["evidence"]["file"] == "LICENSE"
    assert govern("a.png", None, None, gov)["evidence"]["level"] == "sidecar"
    own = govern("vendor/x/z.c", finding("MIT"), "SPDX-License-Identifier: MIT", gov)
    assert (own["spdx"], own["evidence"]) == ("MIT", {"file": "vendor/x/z.c", "score": 100.0, "level": "file"})
    pointer = govern("vendor/x/p.c", finding("LicenseRef-scancode-unknown"), "# see the license", gov)
    assert pointer["spdx"] == "GPL-2.0-only"  # an unknown own statement defers to its ancestor
    strong = govern("b.py", None, "# Acme confidential", gov)
    assert strong["category"] == "proprietary"
    weak = govern("c.py", None, "# Copyright Acme. All rights reserved.", gov)
    assert weak["spdx"] == "MIT"  # boilerplate under a granted license


def test_all_rights_reserved_alone_reserves_the_unmarked_files_only_where_nothing_is_granted():
    reserved, bsd = "Copyright (c) 1991 Example Corp.\nAll rights reserved.", \
        "Copyright (c) 2009 Example Corp.\nAll rights reserved.\n\nRedistribution and use in source and binary " \
        "forms, with or without modification, are permitted provided that ..."
    marked = OriginSurvey()
    for path, statement in (("rpc/stat.h", reserved), ("rpc/xdr.h", bsd), ("rpc/net.h", None)):
        marked.add(path, "int x;\n", statement)
    shards = [OriginSurvey(), OriginSurvey()]  # the same origin surveyed in two shards, merged
    shards[0].add("rpc/stat.h", "int x;\n", reserved)
    shards[1].add("rpc/xdr.h", "int x;\n", bsd)
    shards[0].merge(shards[1])
    assert marked.granted == shards[0].granted == "rpc/xdr.h"
    findings = {reserved: None, bsd: finding("BSD-3-Clause")}
    gov = origin_governance(marked, findings)
    assert "reserved" not in gov
    assert govern("rpc/net.h", None, None, gov)["spdx"] is None  # unmarked: no licence, not proprietary
    assert govern("rpc/stat.h", None, reserved, gov)["category"] == "proprietary"  # its own mark stands
    alone = OriginSurvey()
    for path, statement in (("rpc/stat.h", reserved), ("rpc/net.h", None), ("vendor/zlib/z.c", bsd)):
        alone.add(path, "int x;\n", statement)
    assert alone.granted is None  # a vendored library's grant is not the origin's
    assert govern("rpc/net.h", None, None, origin_governance(alone, findings))["category"] == "proprietary"


def test_a_warranty_disclaimer_in_a_files_header_is_its_licences():
    disclaimer = "LicenseRef-scancode-warranty-disclaimer"
    permissive = _governance({"LICENSE": "mit text"}, {"mit text": finding("MIT")})
    gpl = govern("png.c", finding(f"GPL-2.0-only AND {disclaimer}"), "header", permissive)
    assert (gpl["spdx"], gpl["category"], gpl["evidence"]["level"]) == ("GPL-2.0-only", "strong-copyleft", "file")
    assert gpl["evidence"]["set_aside"] == [disclaimer]
    alone = govern("png.h", finding(f"MIT AND {disclaimer}"), "header", _governance({}, {}))
    assert (alone["spdx"], alone["category"]) == ("MIT", "permissive")  # was unknown: dropped
    bare = govern("as_is.c", finding(disclaimer), "header", permissive)
    assert bare["spdx"] == "MIT"  # a disclaimer alone is an unknown reading: the folder's licence
    # a repository's licence text is read as it is (numpy's wheel bundles other projects' texts)
    text = _governance({"LICENSE": "bundle"}, {"bundle": finding(f"GPL-3.0-only AND {disclaimer}")})
    assert text["spdx"] == f"GPL-3.0-only AND {disclaimer}" and text["category"] == "unknown"


def test_bundled_component_stanzas_become_rules_for_the_files_they_name():
    from quarry.curation.licenses.declarations import bundled_components

    own = "Copyright (c) 2024 Frob authors.\n\nPermission is hereby granted, free of charge, ..."
    listing = ("Name: zstd\nFiles: frob.libs/libzstd*.so\nLicense: BSD-3-Clause OR GPL-2.0-only\n\n"
               "Name: Frob Serif\nFiles: frob/fonts/a.ttf frob/fonts/b.ttf\nLicense: Frob Font Licence\n"
               "  The fonts may be used but never sold.\n")
    main, rules = bundled_components(f"{own}\n\n----\n\nThis wheel bundles:\n\n{listing}")
    assert main == own
    assert [(r.patterns, r.statement) for r in rules] == [
        (("frob.libs/libzstd*.so",), "SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-only"),
        (("frob/fonts/a.ttf", "frob/fonts/b.ttf"), "The fonts may be used but never sold.")]
    assert bundled_components(listing) == (listing, [])  # nothing of its own: read whole, as before
    assert bundled_components(own) == (own, [])


def test_unit_decisions():
    survey = OriginSurvey()
    for path in ("COPYING", "COPYING.LESSER"):
        survey.add(path, path)
    unit = plan(survey).units[""]
    assert decide(unit, {"COPYING": finding("GPL-3.0-only"), "COPYING.LESSER": finding("LGPL-3.0-only")}) \
        .finding.spdx == "LGPL-3.0-only"  # LGPL-3.0 ships the GPL's text it supplements


def test_nested_pep639_license_governs_the_installed_folder():
    survey = OriginSurvey()
    for path in ("pkg/__init__.py", "pkg/vendor/lib/a.py", "pkg-1.dist-info/METADATA",
                 "pkg-1.dist-info/licenses/LICENSE", "pkg-1.dist-info/licenses/src/pkg/vendor/lib/COPYING",
                 "pkg-1.dist-info/licenses/tools/notinstalled/COPYING"):
        survey.add(path, "Name: pkg\nLicense-Expression: MIT\n" if path.endswith("METADATA") else path)
    units = plan(survey).units
    assert sorted(units) == ["", "pkg/vendor/lib"]
    assert [m.path for m in units["pkg/vendor/lib"].members] == ["pkg-1.dist-info/licenses/src/pkg/vendor/lib/COPYING"]


def _unit(files: dict[str, str]):
    survey = OriginSurvey()
    for path, text in files.items():
        survey.add(path, text)
    return plan(survey).units[""]


def test_a_declared_choice_states_how_the_shipped_texts_combine():
    unit = _unit({"COPYING": "dual text", "x-1.dist-info/METADATA": "Name: x\nLicense-Expression: Apache-2.0 OR "
                                                                     "GPL-2.0-or-later\n"})
    declared = "SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later"
    choice = decide(unit, {"dual text": finding("Apache-2.0 AND GPL-2.0-only"),
                           declared: finding("Apache-2.0 OR GPL-2.0-or-later")})
    assert (choice.finding.spdx, choice.finding.category) == ("Apache-2.0 OR GPL-2.0-or-later", "permissive")


def test_unknown_gives_way_and_disagreement_is_recorded():
    unit = _unit({"LICENSE": "odd text", "x-1.dist-info/METADATA": "Name: x\nLicense-Expression: MIT\n"})
    choice = decide(unit, {"odd text": finding("LicenseRef-scancode-unknown"),
                           "SPDX-License-Identifier: MIT": finding("MIT")})
    assert choice.finding.spdx == "MIT" and choice.also[0] == "LICENSE"
    choice = decide(unit, {"odd text": finding("GPL-3.0-only"), "SPDX-License-Identifier: MIT": finding("MIT")})
    assert choice.finding.spdx == "GPL-3.0-only" and choice.also == ("x-1.dist-info/METADATA", finding("MIT"))
    # of one rank, a declaration that names the text's licence and more says more (numpy's expression
    # beside its BSD-3-Clause text); one that names other licences does not
    declared = "SPDX-License-Identifier: BSD-3-Clause AND MIT"
    unit = _unit({"LICENSE": "bsd text", "x-1.dist-info/METADATA": "Name: x\nLicense-Expression: BSD-3-Clause AND MIT"})
    choice = decide(unit, {"bsd text": finding("BSD-3-Clause"), declared: finding("BSD-3-Clause AND MIT")})
    assert choice.finding.spdx == "BSD-3-Clause AND MIT" and choice.also[0] == "LICENSE"
    choice = decide(unit, {"bsd text": finding("Apache-2.0"), declared: finding("BSD-3-Clause AND MIT")})
    assert choice.finding.spdx == "Apache-2.0" and choice.also[0] == "x-1.dist-info/METADATA"


def test_agreements_and_lone_exceptions_are_not_licenses():
    from quarry.curation.licenses.policy import drop_references

    assert drop_references("BSD-3-Clause AND GCC-exception-3.1") == "BSD-3-Clause"
    assert drop_references("LicenseRef-scancode-generic-cla AND BSD-3-Clause") == "BSD-3-Clause"
    assert drop_references("GPL-2.0-only WITH GCC-exception-2.0") == "GPL-2.0-only WITH GCC-exception-2.0"


def test_a_stray_match_in_a_long_dual_license_text_is_no_permissive_option():
    preface = "Distributed under either one of the two licenses listed below: GPL version 2 or EPL 1.0.\n\n"
    unit = _unit({"LICENSE": preface + "x" * 5000})
    choice = decide(unit, {preface + "x" * 5000: finding("(GPL-2.0-or-later OR MIT) AND GPL-2.0-only")})
    assert choice.finding.category == "strong-copyleft"


def test_choices_between_files_in_pointers_and_readme_sections():
    from quarry.curation.licenses.notices import license_passages

    files = ["LICENSE.APACHE2", "LICENSE.MIT"]
    assert offers_choice("Available under the terms of *either* of the licenses in LICENSE.APACHE2 or "
                         "LICENSE.MIT.", files) == files
    assert offers_choice("Licensed under LICENSE.APACHE2 or LICENSE.MIT.", files) == files
    assert offers_choice("Licensed under LICENSE.APACHE2 and LICENSE.MIT.", files) == []
    assert offers_choice("Read LICENSE.APACHE2 or LICENSE.MIT before you start.", files) == []  # not about licensing
    readme = ("# Tool\n\nAt your option, run it twice.\n\n## License\n\nUse it under either the MIT licence "
              "(LICENSE-MIT) or the GPL (COPYING), at the user's option.\n\n## Usage\n\nChoose a license key.\n")
    assert license_passages(readme) == ["Use it under either the MIT licence (LICENSE-MIT) or the GPL (COPYING), "
                                        "at the user's option."]
    assert license_passages("# Tool\n\nA tool.\n\n## License\n\nMIT, see LICENSE.\n") == []


def test_canonical_expressions():
    from quarry.curation.licenses.expressions import canonical, without

    assert canonical("(BSD-3-Clause AND BSD-2-Clause) AND BSD-3-Clause") == "BSD-2-Clause AND BSD-3-Clause"
    assert canonical("MIT OR Apache-2.0") == "Apache-2.0 OR MIT"
    assert canonical("(MIT OR Apache-2.0) AND MIT") == "MIT"
    # Both stated: the stricter -only; -only known only from the license's own text: the range.
    assert canonical("GPL-2.0-or-later AND GPL-2.0-only AND MIT") == "GPL-2.0-only AND MIT"
    assert canonical("GPL-2.0-or-later AND GPL-2.0-only", frozenset({"GPL-2.0-only"})) == "GPL-2.0-or-later"
    assert canonical("GPL-2.0-only OR GPL-2.0-or-later") == "GPL-2.0-only OR GPL-2.0-or-later"  # a choice stays
    # ranges of one family across AND: from the latest version on; other families, -only and choices stay
    assert canonical("GPL-1.0-or-later AND GPL-2.0-or-later") == "GPL-2.0-or-later"
    assert canonical("LGPL-2.1-or-later AND GPL-2.0-or-later AND LGPL-2.0-or-later") == \
        "GPL-2.0-or-later AND LGPL-2.1-or-later"
    assert canonical("GPL-2.0-only AND GPL-3.0-or-later") == "GPL-2.0-only AND GPL-3.0-or-later"
    assert canonical("GPL-1.0-or-later OR GPL-3.0-or-later") == "GPL-1.0-or-later OR GPL-3.0-or-later"
    assert without("(CDDL-1.1 OR GPL-2.0-only) AND BlueOak-1.0.0", {"CDDL-1.1", "GPL-2.0-only"}) == "BlueOak-1.0.0"
    assert without("CDDL-1.1 OR BlueOak-1.0.0", {"CDDL-1.1"}) == "CDDL-1.1 OR BlueOak-1.0.0"  # never narrows a choice


def test_a_partial_match_of_a_short_rule_is_set_aside_only_beside_a_real_license():
    keys = {"mit": {"spdx": "MIT", "category": "Permissive"}, "gpl-3.0": {"spdx": "GPL-3.0-only", "category": "Copyleft"}}
    partial = {"expression": "gpl-3.0", "score": 60.0, "coverage": 60.0, "tokens": 9, "kind": "notice"}
    full = {"expression": "mit", "score": 100.0, "coverage": 100.0, "tokens": 160, "kind": "text"}
    both = LicenseFinding.from_result({"spdx": "MIT AND GPL-3.0-only", "score": 90.0, "keys": keys,
                                       "matches": [full, partial]})
    assert (both.spdx, both.set_aside, both.stray) == ("MIT", ("GPL-3.0-only",), False)
    alone = LicenseFinding.from_result({"spdx": "GPL-3.0-only", "score": 60.0, "keys": keys, "matches": [partial]})
    assert (alone.spdx, alone.stray) == ("GPL-3.0-only", True)  # all there is: kept, copyleft
    notice = {**partial, "coverage": 100.0, "score": 100.0}
    real = LicenseFinding.from_result({"spdx": "MIT AND GPL-3.0-only", "score": 100.0, "keys": keys,
                                       "matches": [full, notice]})
    assert real.spdx == "GPL-3.0-only AND MIT" and real.category == "strong-copyleft"


def test_debian_short_names_as_packages_write_them():
    assert debian_expression("GPLv3+") == "GPL-3.0-or-later"
    assert debian_expression("LGPLv2.1+") == "LGPL-2.1-or-later"
    assert debian_expression("LGPLv3+_or_GPLv2+") == "LGPL-3.0-or-later OR GPL-2.0-or-later"
    assert debian_expression("BSD-3") == "BSD-3-Clause"
    assert debian_expression("MIT/X11") == "MIT"

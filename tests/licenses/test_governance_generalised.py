"""Governance on layouts and texts the rules were not written against, end to end through the
licenses stage with real license texts and real ScanCode: distributions sharing one folder,
license choices stated in prose, vendored folders, and expressions that say one thing twice."""

from __future__ import annotations

import pytest

from quarry.records import read_json
from licenses_helpers import govern, license_text, needs_scancode

pytestmark = needs_scancode

CODE = "def main():\n    return 42\n"
C_CODE = "int f(void) { return 1; }\n"


def _metadata(name: str, *fields: str) -> str:
    return "\n".join(["Metadata-Version: 2.1", f"Name: {name}", "Version: 1.0", *fields]) + "\n\nA package.\n"


def _record(*paths: str) -> str:
    return "".join(f"{p},sha256=x,10\n" for p in paths)


def shared_folders(text) -> dict[str, dict[str, str]]:
    return {
        # Two wheels side by side, each with its RECORD: MPL-2.0 beside ISC, BSD-3-Clause beside GPL.
        "https://example.org/site-record": {
            "mplpkg-1.0.dist-info/METADATA": _metadata("mplpkg", "License: MPL-2.0"),
            "mplpkg-1.0.dist-info/LICENSE": text("mpl-2.0"),
            "mplpkg-1.0.dist-info/RECORD": _record("mplpkg/__init__.py", "mplpkg/core.py",
                                                   "mplpkg-1.0.dist-info/METADATA"),
            "mplpkg/__init__.py": CODE, "mplpkg/core.py": CODE,
            "iscpkg-2.0.dist-info/METADATA": _metadata("iscpkg", "Classifier: License :: OSI Approved :: ISC License (ISCL)"),
            "iscpkg-2.0.dist-info/RECORD": _record("iscpkg.py", "iscpkg_helpers/x.py"),
            "iscpkg.py": CODE, "iscpkg_helpers/x.py": CODE,
            "bsdpkg-3.0.dist-info/METADATA": _metadata("bsdpkg"),
            "bsdpkg-3.0.dist-info/LICENSE.txt": text("bsd-new"),
            "bsdpkg-3.0.dist-info/RECORD": _record("bsdpkg/__init__.py"),
            "bsdpkg/__init__.py": CODE,
            "gplpkg-4.0.dist-info/METADATA": _metadata("gplpkg", "License: GPL-2.0-or-later"),
            "gplpkg-4.0.dist-info/COPYING": text("gpl-2.0"),
            "gplpkg-4.0.dist-info/RECORD": _record("gplpkg/__init__.py", "gplpkg/extra.py"),
            "gplpkg/__init__.py": CODE, "gplpkg/extra.py": CODE,
            "stray.py": CODE},
        # Eggs as Debian installs them: no RECORD, a top_level.txt; a namespace package two eggs share;
        # an egg with installed-files.txt; a wheel whose listing did not reach the snapshot.
        "https://example.org/site-eggs": {
            "six-1.16.0.egg-info/PKG-INFO": _metadata("six", "License: MIT"),
            "six-1.16.0.egg-info/top_level.txt": "six\n", "six.py": CODE, "six-stubs/__init__.pyi": CODE,
            "gplegg-1.0.egg-info/PKG-INFO": _metadata("gplegg", "License: GPL-3.0-only"),
            "gplegg-1.0.egg-info/top_level.txt": "gplegg\n", "gplegg/__init__.py": CODE,
            "lazr.uri-1.0.egg-info/PKG-INFO": _metadata("lazr.uri", "License: LGPL-3.0-only"),
            "lazr.uri-1.0.egg-info/top_level.txt": "lazr\n", "lazr/uri/__init__.py": CODE,
            "lazr.tool-1.0.egg-info/PKG-INFO": _metadata("lazr.tool", "License: Apache-2.0"),
            "lazr.tool-1.0.egg-info/top_level.txt": "lazr\n", "lazr/tool/__init__.py": CODE,
            "listed-1.0.egg-info/PKG-INFO": _metadata("listed", "License: BSD-2-Clause"),
            "listed-1.0.egg-info/installed-files.txt": "../listed_mod/__init__.py\nPKG-INFO\n",
            "listed_mod/__init__.py": CODE,
            "nameonly-1.0.dist-info/METADATA": _metadata("nameonly", "License: GPL-2.0-only"),
            "nameonly/__init__.py": CODE},
    }


def choices(text) -> dict[str, dict[str, str]]:
    return {
        # A README's License section offers MIT or the GPL, naming both files: OR, not AND.
        "https://example.org/readme-choice": {
            "README.md": "# tool\n\nDoes things.\n\n## License\n\nThis project may be used under either the MIT "
                         "licence (see LICENSE-MIT) or the GNU GPL (see COPYING), at the user's option.\n\n"
                         "## Usage\n\nRun it.\n",
            "LICENSE-MIT": text("mit"), "COPYING": text("gpl-3.0"), "src/tool.py": CODE},
        # An RST README names the licenses, not the files.
        "https://example.org/readme-names": {
            "README.rst": "Tool\n====\n\nDoes things.\n\nLicense\n-------\n\nYou may choose either the Apache "
                          "License 2.0 or the MIT license.\n\nAuthors\n-------\n\nSomeone.\n",
            "LICENSE-APACHE": text("apache-2.0"), "LICENSE-MIT": text("mit"), "lib.py": CODE},
        # A pointer with Markdown emphasis naming two files.
        "https://example.org/pointer-emphasis": {
            "LICENSE": "This software is made available under the terms of *either* of the licenses\nfound in "
                       "LICENSE.APACHE2 or LICENSE.MIT. Contributions are made under the terms of *both*\n"
                       "these licenses.\n",
            "LICENSE.APACHE2": text("apache-2.0"), "LICENSE.MIT": text("mit"), "pkg.py": CODE},
        # A pointer naming two files joined by "or", no other word of choice.
        "https://example.org/pointer-or": {
            "COPYING": "This library is licensed under COPYING.LGPL or COPYING.MIT.\n",
            "COPYING.LGPL": text("lgpl-2.1"), "COPYING.MIT": text("mit"), "lib.c": C_CODE},
        # Both files, no choice anywhere: both apply (AND), so the copyleft one decides.
        "https://example.org/no-choice": {
            "README.md": "# tool\n\n## License\n\nSee LICENSE-MIT and COPYING.\n",
            "LICENSE-MIT": text("mit"), "COPYING": text("gpl-3.0"), "src/tool.py": CODE},
    }


def vendored(text) -> dict[str, dict[str, str]]:
    return {
        "https://example.org/vendoring": {
            "LICENSE": text("apache-2.0"), "src/main.c": C_CODE,
            "third_party/mitlib/LICENSE": text("mit"), "third_party/mitlib/m.c": C_CODE,
            "third_party/zlib/README": "zlib 1.3\n\nA compression library.\n\n" + text("zlib"),
            "third_party/zlib/inflate.c": C_CODE,
            "vendor/gpltool/COPYING": text("gpl-2.0"), "vendor/gpltool/tool.c": C_CODE},
        # A permissive package vendoring an LGPL library that ships no license file, only headers.
        "https://example.org/vendored-headers": {
            "pkg-1.0.dist-info/METADATA": _metadata("pkg", "License: MIT"), "pkg/__init__.py": CODE,
            "pkg/_vendor/chardet/__init__.py": LGPL_HEADER + CODE, "pkg/_vendor/chardet/cli/__init__.py": "\n",
            "pkg/_vendor/chardet/cli/main.py": CODE},
    }


def named(text) -> dict[str, dict[str, str]]:
    return {
        # ":license: BSD" in each file; the project's metadata says which BSD.
        "https://example.org/named-bsd": {
            "tool-1.0.dist-info/METADATA": _metadata("tool", "License: BSD-2-Clause"),
            "tool/__init__.py": '"""\n    tool\n\n    :license: BSD, see LICENSE for details.\n"""\n' + CODE},
        # Core metadata naming its license loosely ("License: BSD").
        "https://example.org/loose-metadata": {"loose-1.0.egg-info/PKG-INFO": _metadata("loose", "License: BSD"),
                                               "loose/__init__.py": CODE},
    }


LGPL_HEADER = ("# This library is free software; you can redistribute it and/or\n# modify it under the terms of the GNU "
               "Lesser General Public\n# License as published by the Free Software Foundation; either\n# version 2.1 of "
               "the License, or (at your option) any later version.\n")


FOLDER_SENTENCE = ("Copyright 2020 Someone\n\nLicense\n\nEach folder of this project is licensed under the "
                   "license in its LICENSE.md file - see that file for details.\n")
GPL_LATER = ("This program is free software; you can redistribute it and/or modify it under the terms of the GNU "
             "General Public License as published by the Free Software Foundation; either version 2 of the License, "
             "or (at your option) any later version.\n")
# A README that licenses itself (the FSF's all-permissive notice GNU READMEs open with), then the program
SELF_NOTICE = ("  Copyright (C) 2019-2024 Example Project contributors.\n\n"
               "  Copying and distribution of this file, with or without modification,\n"
               "  are permitted in any medium without royalty provided the copyright\n"
               "  notice and this notice are preserved.\n\n"
               "This is frobnicate, a tool that frobnicates widgets.\n\n")
PROGRAM_GPL = ("frobnicate is distributed under the GNU General Public License, version 3\n"
               "or (at your option) any later version; the full text is in the file COPYING.\n")


def expressions(text) -> dict[str, dict[str, str]]:
    return {
        # One license file holding BSD-3-Clause, BSD-2-Clause and BSD-3-Clause again.
        "https://example.org/repeated": {"LICENSE": "\n\n".join([text("bsd-new"), text("bsd-simplified"),
                                                                  text("bsd-new")]), "a.c": C_CODE},
        # The GPL-2.0 text in COPYING, "or any later version" in the README: the range governs.
        "https://example.org/bare-gpl": {"COPYING": text("gpl-2.0"), "README": "tool\n\n" + GPL_LATER, "a.c": C_CODE},
        # The project's license text beside a sentence that ScanCode reads as part of another's notice.
        "https://example.org/stray": {"LICENSE.md": text("blueoak-1.0.0"), "COPYRIGHT": FOLDER_SENTENCE,
                                      "index.js": "module.exports = 1;\n",
                                      "lib/x.js": "// " + FOLDER_SENTENCE.replace("\n", "\n// ") + "\nx = 1;\n"},
        # A full GPL notice beside the MIT text is no stray mention: both govern, the file is dropped.
        "https://example.org/mit-and-gpl": {"LICENSE": text("mit") + "\n\n" + GPL_LATER, "a.c": C_CODE},
        # The README's notice about itself governs neither the program (GPL) nor, alone, the project.
        "https://example.org/readme-itself-and-gpl": {"README": SELF_NOTICE + PROGRAM_GPL, "a.c": C_CODE},
        "https://example.org/readme-itself-only": {"README": SELF_NOTICE + "Build it with make.\n", "a.c": C_CODE},
        # A wheel's licence file: its own licence, then a stanza per component it bundles
        "https://example.org/bundled-components": {
            "LICENSE": text("mit") + "\n----\n\nThis wheel also bundles the following software:\n\n"
                       "Name: libfrob\nFiles: frob/_vendor/libfrob/*\nDescription: the C core, vendored\n"
                       "License: GPL-2.0-or-later\n\nName: Frob Sans\nFiles: frob/fonts/*.ttf\nLicense: OFL-1.1\n",
            "frob/__init__.py": CODE, "frob/_vendor/libfrob/glue.py": CODE},
    }


KEPT, DROPPED = "kept", "dropped"
# origin -> path -> (spdx or None, evidence file or None, kept | dropped) under the permissive-only policy
SHARED_EXPECTED = {
    "https://example.org/site-record": {
        **{p: ("MPL-2.0", "mplpkg-1.0.dist-info/LICENSE", DROPPED)
           for p in ("mplpkg/__init__.py", "mplpkg/core.py", "mplpkg-1.0.dist-info/METADATA")},
        **{p: ("ISC", "iscpkg-2.0.dist-info/METADATA", KEPT) for p in ("iscpkg.py", "iscpkg_helpers/x.py")},
        "bsdpkg/__init__.py": ("BSD-3-Clause", "bsdpkg-3.0.dist-info/LICENSE.txt", KEPT),
        **{p: ("GPL-2.0-or-later", "gplpkg-4.0.dist-info/METADATA", DROPPED)
           for p in ("gplpkg/__init__.py", "gplpkg/extra.py")},
        "stray.py": (None, None, KEPT)},  # listed by none, no license above it: today's rules
    "https://example.org/site-eggs": {
        **{p: ("MIT", "six-1.16.0.egg-info/PKG-INFO", KEPT) for p in ("six.py", "six-stubs/__init__.pyi")},
        "gplegg/__init__.py": ("GPL-3.0-only", "gplegg-1.0.egg-info/PKG-INFO", DROPPED),
        "lazr/uri/__init__.py": ("LGPL-3.0-only", "lazr.uri-1.0.egg-info/PKG-INFO", DROPPED),
        "lazr/tool/__init__.py": ("Apache-2.0", "lazr.tool-1.0.egg-info/PKG-INFO", KEPT),
        "listed_mod/__init__.py": ("BSD-2-Clause", "listed-1.0.egg-info/PKG-INFO", KEPT),
        "nameonly/__init__.py": ("GPL-2.0-only", "nameonly-1.0.dist-info/METADATA", DROPPED)},
}
CHOICE_EXPECTED = {
    "https://example.org/readme-choice": {
        p: ("GPL-3.0-only OR MIT", "README.md", KEPT) for p in ("src/tool.py", "LICENSE-MIT", "COPYING", "README.md")},
    "https://example.org/readme-names": {p: ("Apache-2.0 OR MIT", "README.rst", KEPT) for p in ("lib.py", "README.rst")},
    "https://example.org/pointer-emphasis": {p: ("Apache-2.0 OR MIT", "LICENSE", KEPT) for p in ("pkg.py", "LICENSE")},
    "https://example.org/pointer-or": {p: ("LGPL-2.1-only OR MIT", "COPYING", KEPT) for p in ("lib.c", "COPYING")},
    "https://example.org/no-choice": {"src/tool.py": ("GPL-3.0-only AND MIT", "COPYING", DROPPED)},
}
EXPRESSION_EXPECTED = {
    "https://example.org/repeated": {"a.c": ("BSD-2-Clause AND BSD-3-Clause", "LICENSE", KEPT)},
    "https://example.org/bare-gpl": {"a.c": ("GPL-2.0-or-later", "README", DROPPED)},
    "https://example.org/stray": {p: ("BlueOak-1.0.0", "LICENSE.md", KEPT) for p in ("index.js", "lib/x.js")},
    "https://example.org/mit-and-gpl": {"a.c": ("GPL-2.0-or-later AND MIT", "LICENSE", DROPPED)},
    "https://example.org/readme-itself-and-gpl": {"a.c": ("GPL-3.0-or-later", "README", DROPPED)},
    "https://example.org/readme-itself-only": {"a.c": (None, None, KEPT)},
    "https://example.org/bundled-components": {
        "frob/__init__.py": ("MIT", "LICENSE", KEPT),
        "frob/_vendor/libfrob/glue.py": ("GPL-2.0-or-later", "LICENSE", DROPPED)},   # kept as MIT before
}
VENDORED_EXPECTED = {
    "https://example.org/vendoring": {
        "src/main.c": ("Apache-2.0", "LICENSE", KEPT),
        **{p: ("MIT", "third_party/mitlib/LICENSE", KEPT) for p in ("third_party/mitlib/m.c", "third_party/mitlib/LICENSE")},
        "third_party/zlib/inflate.c": ("Zlib", "third_party/zlib/README", KEPT),
        "vendor/gpltool/tool.c": ("GPL-2.0-only", "vendor/gpltool/COPYING", DROPPED)},
    "https://example.org/vendored-headers": {
        "pkg/__init__.py": ("MIT", "pkg-1.0.dist-info/METADATA", KEPT),
        **{p: ("LGPL-2.1-or-later", "pkg/_vendor/chardet/__init__.py", DROPPED)
           for p in ("pkg/_vendor/chardet/cli/__init__.py", "pkg/_vendor/chardet/cli/main.py")}},
}
NAMED_EXPECTED = {
    "https://example.org/named-bsd": {"tool/__init__.py": ("BSD-2-Clause", "tool-1.0.dist-info/METADATA", KEPT)},
    "https://example.org/loose-metadata": {"loose/__init__.py": ("BSD-3-Clause", "loose-1.0.egg-info/PKG-INFO", KEPT)},
}


def _run(root, layouts: dict[str, dict[str, str]]):
    kept, dropped, out = govern(root, layouts)
    return kept, dropped, read_json(out / "repo_licenses.json")


@pytest.fixture(scope="module")
def governed(tmp_path_factory, detector):
    layouts = {**shared_folders(license_text), **choices(license_text), **vendored(license_text),
               **expressions(license_text), **named(license_text)}
    return _run(tmp_path_factory.mktemp("generalised"), layouts)


def _check(governed, expected: dict) -> None:
    kept, dropped, _ = governed
    for (origin, path), (spdx, evidence, fate) in expected.items():
        key = (origin, path)
        if fate == KEPT:
            assert key in kept, f"{path} was dropped: {dropped.get(key)}"
            assert kept[key]["spdx"] == spdx, (path, kept[key])
            assert (kept[key]["evidence"] or {}).get("file") == evidence, (path, kept[key])
        else:
            assert key in dropped and key not in kept, f"{path} was kept as {kept.get(key)}"
            assert dropped[key]["spdx"] == spdx, (path, dropped[key])


def _flat(expected: dict) -> dict:
    return {(origin, path): want for origin, files in expected.items() for path, want in files.items()}


@pytest.mark.parametrize("origin", sorted(SHARED_EXPECTED))
def test_a_shared_folder_governs_each_file_by_the_distribution_that_installed_it(governed, origin):
    _check(governed, _flat({origin: SHARED_EXPECTED[origin]}))


def test_each_distribution_scope_records_what_it_owns(governed):
    *_, repo_licenses = governed
    scopes = {s["evidence"]["file"]: s for s in repo_licenses["https://example.org/site-record"]["scopes"]}
    owned = scopes["iscpkg-2.0.dist-info/METADATA"]["owned"]
    assert owned["paths"] == ["iscpkg.py", "iscpkg_helpers/x.py"]
    assert owned["prefixes"] == ["iscpkg-2.0.dist-info"]


@pytest.mark.parametrize("origin", sorted(CHOICE_EXPECTED))
def test_a_choice_in_prose_or_a_pointer_is_an_or_of_the_files_it_names(governed, origin):
    _check(governed, _flat({origin: CHOICE_EXPECTED[origin]}))


@pytest.mark.parametrize("origin", sorted(VENDORED_EXPECTED))
def test_vendored_folders_are_governed_by_their_own_license(governed, origin):
    _check(governed, _flat({origin: VENDORED_EXPECTED[origin]}))



@pytest.mark.parametrize("origin", sorted(EXPRESSION_EXPECTED))
def test_expressions_say_each_license_once_and_leave_stray_mentions_aside(governed, origin):
    _check(governed, _flat({origin: EXPRESSION_EXPECTED[origin]}))


def test_a_stray_mention_set_aside_stays_in_the_evidence(governed):
    kept, _, repo_licenses = governed
    for path in ("index.js", "lib/x.js"):
        evidence = kept[("https://example.org/stray", path)]["evidence"]
        assert evidence["set_aside"] == ["CDDL-1.1", "GPL-2.0-only"], path
    assert repo_licenses["https://example.org/stray"]["evidence"]["set_aside"] == ["CDDL-1.1", "GPL-2.0-only"]


@pytest.mark.parametrize("origin", sorted(NAMED_EXPECTED))
def test_a_license_only_named_reads_as_the_project_states_it(governed, origin):
    _check(governed, _flat({origin: NAMED_EXPECTED[origin]}))

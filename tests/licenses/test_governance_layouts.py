"""Governance by nearest ancestor on repository layouts, end to end through the licenses stage with
real license texts and real ScanCode: each fixture states every file's expected governance."""

from __future__ import annotations

import pytest

from licenses_helpers import govern, license_text, make_repo, needs_scancode

pytestmark = needs_scancode

CODE = "def main():\n    return 42\n"
KEPT, DROPPED = "kept", "dropped"

DEBIAN_COPYRIGHT = """Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: tool
Source: https://example.org/tool

Files: *
Copyright: 2020 Example Developers
License: Expat

Files: third_party/*
Copyright: 1999 Somebody Else
License: GPL-2+
 This program is free software; you can redistribute it and/or modify
 it under the terms of the GNU General Public License as published by
 the Free Software Foundation; either version 2 of the License, or
 (at your option) any later version.
"""

REUSE_TOML = """version = 1

[[annotations]]
path = "docs/**"
precedence = "aggregate"
SPDX-License-Identifier = "CC-BY-4.0"
"""

PROPRIETARY_HEADER = "# Copyright 2024 Acme Corp. All rights reserved.\n# Confidential and proprietary.\n"


def _metadata(name: str, version: str, *fields: str) -> str:
    return "\n".join(["Metadata-Version: 2.4", f"Name: {name}", f"Version: {version}", *fields]) + "\n\nA package.\n"


def layouts(text) -> dict[str, dict[str, str]]:
    """origin -> files."""
    return {
        # An installed distribution: licenses only in its dist-info folder.
        "pypi:gplpkg@1.0": {
            "gplpkg/__init__.py": CODE, "gplpkg/core.py": CODE,
            "gplpkg-1.0.dist-info/METADATA": _metadata(
                "gplpkg", "1.0", "Classifier: License :: OSI Approved :: GNU General Public License v3 (GPLv3)"),
            "gplpkg-1.0.dist-info/licenses/COPYING": text("gpl-3.0"),
            "gplpkg-1.0.dist-info/RECORD": "gplpkg/__init__.py,,\ngplpkg/core.py,,\n"},
        "pypi:mitpkg@2.0": {
            "mitpkg/__init__.py": CODE,
            "mitpkg-2.0.dist-info/METADATA": _metadata("mitpkg", "2.0", "License-Expression: MIT"),
            "mitpkg-2.0.dist-info/licenses/LICENSE": text("mit")},
        # Declared -or-later beside the plain GPL-2.0 text: the range survives.
        "pypi:laterpkg@3.0": {
            "laterpkg.py": CODE,
            "laterpkg-3.0.dist-info/METADATA": _metadata("laterpkg", "3.0", "License-Expression: GPL-2.0-or-later"),
            "laterpkg-3.0.dist-info/COPYING": text("gpl-2.0")},
        # Metadata says MIT, the shipped text is the GPL: the more restrictive governs.
        "pypi:liar@0.1": {
            "liar.py": CODE,
            "liar-0.1.dist-info/METADATA": _metadata("liar", "0.1", "License: MIT"),
            "liar-0.1.dist-info/LICENSE": text("gpl-3.0")},
        "https://example.org/vendored": {
            "LICENSE": text("mit"), "src/app.py": CODE, "src/util/helpers.py": CODE,
            "vendor/gplthing/COPYING": text("gpl-2.0"), "vendor/gplthing/thing.c": "int thing(void) { return 1; }\n",
            "vendor/gplthing/sub/deep.c": "int deep;\n"},
        "https://example.org/monorepo": {
            "LICENSE": text("apache-2.0"), "packages/core/index.js": "module.exports = 1;\n",
            "packages/lesser/package.json": '{"name": "lesser", "license": "LGPL-2.1-only"}\n',
            "packages/lesser/COPYING.LESSER": text("lgpl-2.1"), "packages/lesser/lib/index.js": "exports.x = 2;\n"},
        "https://example.org/reuse": {
            "LICENSES/MIT.txt": text("mit"), "LICENSES/GPL-3.0-or-later.txt": text("gpl-3.0-plus"),
            "LICENSES/CC0-1.0.txt": text("cc0-1.0"), "LICENSES/CC-BY-4.0.txt": text("cc-by-4.0"),
            "REUSE.toml": REUSE_TOML,
            "src/a.py": "# SPDX-FileCopyrightText: 2024 Jane\n# SPDX-License-Identifier: MIT\n" + CODE,
            "src/b.py": "# SPDX-FileCopyrightText: 2024 Jane\n# SPDX-License-Identifier: GPL-3.0-or-later\n" + CODE,
            "data/table.csv": "a,b\n1,2\n",
            "data/table.csv.license": "SPDX-FileCopyrightText: 2024 Jane\nSPDX-License-Identifier: CC0-1.0\n",
            "docs/guide.md": "# Guide\n\nHow to use the tool.\n"},
        "https://example.org/dual": {
            "LICENSE": "This project is licensed under either of\n\n * Apache License, Version 2.0 (LICENSE-APACHE)\n"
                       " * MIT license (LICENSE-MIT)\n\nat your option.\n",
            "LICENSE-MIT": text("mit"), "LICENSE-APACHE": text("apache-2.0"), "src/lib.rs": "pub fn f() {}\n"},
        "https://example.org/gpl-or-mit": {
            "COPYING": "You may use this software under the terms of either of the following licenses, "
                       "at your choice: the GNU General Public License version 2 (COPYING.GPL) or the "
                       "MIT license (COPYING.MIT).\n",
            "COPYING.GPL": text("gpl-2.0"), "COPYING.MIT": text("mit"), "main.c": "int main(void) { return 0; }\n"},
        "https://example.org/secret": {
            "src/engine.py": PROPRIETARY_HEADER + CODE, "src/model.py": PROPRIETARY_HEADER + CODE,
            "src/plain.py": CODE},
        "https://example.org/debian": {
            "debian/copyright": DEBIAN_COPYRIGHT, "tool.c": "int tool;\n",
            "third_party/old.c": "int old;\n", "third_party/lib/older.c": "int older;\n"},
        "https://example.org/docs-clause": {
            "LICENSE": text("mit") + "\nThe documentation in docs/ is licensed under the Creative Commons "
                                     "Attribution-ShareAlike 4.0 International license (CC-BY-SA-4.0).\n",
            "pkg/mod.py": CODE, "docs/index.rst": "Welcome\n=======\n\nThe manual.\n"},
    }


# origin -> path -> (spdx, category, evidence file, kept | dropped) under the permissive-only policy
EXPECTED = {
    "pypi:gplpkg@1.0": {
        p: ("GPL-3.0-only", "strong-copyleft", "gplpkg-1.0.dist-info/licenses/COPYING", DROPPED)
        for p in ("gplpkg/__init__.py", "gplpkg/core.py", "gplpkg-1.0.dist-info/METADATA",
                  "gplpkg-1.0.dist-info/licenses/COPYING")},
    "pypi:mitpkg@2.0": {
        p: ("MIT", "permissive", "mitpkg-2.0.dist-info/licenses/LICENSE", KEPT)
        for p in ("mitpkg/__init__.py", "mitpkg-2.0.dist-info/METADATA", "mitpkg-2.0.dist-info/licenses/LICENSE")},
    "pypi:laterpkg@3.0": {
        p: ("GPL-2.0-or-later", "strong-copyleft", "laterpkg-3.0.dist-info/METADATA", DROPPED)
        for p in ("laterpkg.py", "laterpkg-3.0.dist-info/METADATA", "laterpkg-3.0.dist-info/COPYING")},
    "pypi:liar@0.1": {
        p: ("GPL-3.0-only", "strong-copyleft", "liar-0.1.dist-info/LICENSE", DROPPED)
        for p in ("liar.py", "liar-0.1.dist-info/METADATA", "liar-0.1.dist-info/LICENSE")},
    "https://example.org/vendored": {
        **{p: ("MIT", "permissive", "LICENSE", KEPT) for p in ("LICENSE", "src/app.py", "src/util/helpers.py")},
        **{p: ("GPL-2.0-only", "strong-copyleft", "vendor/gplthing/COPYING", DROPPED)
           for p in ("vendor/gplthing/COPYING", "vendor/gplthing/thing.c", "vendor/gplthing/sub/deep.c")}},
    "https://example.org/monorepo": {
        **{p: ("Apache-2.0", "permissive", "LICENSE", KEPT) for p in ("LICENSE", "packages/core/index.js")},
        **{p: ("LGPL-2.1-only", "weak-copyleft", "packages/lesser/COPYING.LESSER", DROPPED)
           for p in ("packages/lesser/package.json", "packages/lesser/COPYING.LESSER",
                     "packages/lesser/lib/index.js")}},
    "https://example.org/reuse": {
        "src/a.py": ("MIT", "permissive", "src/a.py", KEPT),
        "src/b.py": ("GPL-3.0-or-later", "strong-copyleft", "src/b.py", DROPPED),
        "data/table.csv": ("CC0-1.0", "public-domain", "data/table.csv.license", KEPT),
        "docs/guide.md": ("CC-BY-4.0", "permissive", "REUSE.toml", KEPT)},
    "https://example.org/dual": {
        p: ("Apache-2.0 OR MIT", "permissive", "LICENSE", KEPT)
        for p in ("LICENSE", "LICENSE-MIT", "LICENSE-APACHE", "src/lib.rs")},
    "https://example.org/gpl-or-mit": {
        p: ("GPL-2.0-only OR MIT", "permissive", "COPYING", KEPT) for p in ("COPYING", "main.c")},
    "https://example.org/secret": {
        "src/engine.py": ("LicenseRef-scancode-proprietary-license", "proprietary", "src/engine.py", DROPPED),
        "src/model.py": ("LicenseRef-scancode-proprietary-license", "proprietary", "src/model.py", DROPPED),
        "src/plain.py": ("LicenseRef-scancode-proprietary-license", "proprietary", "src/engine.py", DROPPED)},
    "https://example.org/debian": {
        **{p: ("MIT", "permissive", "debian/copyright", KEPT) for p in ("tool.c", "debian/copyright")},
        **{p: ("GPL-2.0-or-later", "strong-copyleft", "debian/copyright", DROPPED)
           for p in ("third_party/old.c", "third_party/lib/older.c")}},
    "https://example.org/docs-clause": {
        "pkg/mod.py": ("MIT", "permissive", "LICENSE", KEPT), "LICENSE": ("MIT", "permissive", "LICENSE", KEPT),
        "docs/index.rst": ("CC-BY-SA-4.0", "weak-copyleft", "LICENSE", DROPPED)},
}


@pytest.fixture(scope="module")
def governed(tmp_path_factory, detector):
    return govern(tmp_path_factory.mktemp("layouts"), layouts(license_text))


@pytest.mark.parametrize("origin", sorted(EXPECTED))
def test_each_file_is_governed_by_its_nearest_license(governed, origin):
    kept, dropped, _ = governed
    for path, (spdx, category, evidence, fate) in EXPECTED[origin].items():
        key = (origin, path)
        if fate == KEPT:
            assert key in kept, f"{path} was dropped: {dropped.get(key)}"
            license_ = kept[key]
            assert (license_["spdx"], license_["category"], license_["evidence"]["file"]) == \
                (spdx, category, evidence), path
        else:
            assert key in dropped and key not in kept, f"{path} was kept as {kept.get(key)}"
            assert dropped[key]["spdx"] == spdx, path
            assert dropped[key]["reason"] == f"license:{category}", path


def test_install_listings_are_read_then_dropped(governed):
    kept, dropped, _ = governed
    key = ("pypi:gplpkg@1.0", "gplpkg-1.0.dist-info/RECORD")
    assert key not in kept and dropped[key]["reason"] == "license:install-listing"


def test_disagreeing_metadata_is_recorded_beside_the_text(governed):
    _, _, out = governed
    from quarry.records import read_json

    liar = read_json(out / "repo_licenses.json")["pypi:liar@0.1"]
    assert liar["spdx"] == "GPL-3.0-only"
    assert liar["evidence"]["also"] == {"spdx": "MIT", "category": "permissive", "file": "liar-0.1.dist-info/METADATA"}


def test_plain_folder_answers_per_subtree(detector, tmp_path):
    from quarry.curation.licenses.report import folder_governance, subtree_rows

    root = make_repo(tmp_path / "checkout", layouts(license_text)["https://example.org/vendored"])
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    governance = folder_governance(root, detector=detector)
    assert ".git/config" not in governance
    rows = {(r["subtree"], r["spdx"], r["evidence"], r["files"]) for r in subtree_rows(governance)}
    assert rows == {(".", "MIT", "LICENSE", 3), ("vendor/gplthing", "GPL-2.0-only", "vendor/gplthing/COPYING", 3)}

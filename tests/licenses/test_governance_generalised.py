"""Governance on layouts and texts the rules were not written against, end to end through the
licenses stage with real license texts and real ScanCode: distributions sharing one folder,
license choices stated in prose, vendored folders, and expressions that say one thing twice."""

from __future__ import annotations

import pytest

from quarry.engine import run_local
from quarry.licenses.stage import stage_shards
from quarry.records import read_folder, read_json, read_records
from quarry.stages.licenses import LICENSES
from licenses_helpers import license_text, make_repo, needs_scancode, snapshot_shards

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
            "six-1.16.0.egg-info/top_level.txt": "six\n", "six.py": CODE,
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
        "six.py": ("MIT", "six-1.16.0.egg-info/PKG-INFO", KEPT),
        "gplegg/__init__.py": ("GPL-3.0-only", "gplegg-1.0.egg-info/PKG-INFO", DROPPED),
        "lazr/uri/__init__.py": ("LGPL-3.0-only", "lazr.uri-1.0.egg-info/PKG-INFO", DROPPED),
        "lazr/tool/__init__.py": ("Apache-2.0", "lazr.tool-1.0.egg-info/PKG-INFO", KEPT),
        "listed_mod/__init__.py": ("BSD-2-Clause", "listed-1.0.egg-info/PKG-INFO", KEPT),
        "nameonly/__init__.py": ("GPL-2.0-only", "nameonly-1.0.dist-info/METADATA", DROPPED)},
}


def _run(root, layouts: dict[str, dict[str, str]]):
    repos = {origin: make_repo(root / "repos" / f"r{i}", files) for i, (origin, files) in enumerate(sorted(layouts.items()))}
    src = snapshot_shards(repos, root / "snapshot", shards=3)
    out = root / "licensed"
    run_local(LICENSES, src, out, {"licenses": {}}, workers=1)
    kept = {(r["meta"]["origin"], r["meta"]["path"]): r["meta"]["license"]
            for shard in stage_shards(out) for r in read_records(shard)}
    dropped = {(r["meta"]["origin"], r["meta"]["path"]): r["meta"] for r in read_folder(out / "rejects")}
    return kept, dropped, read_json(out / "repo_licenses.json")


@pytest.fixture(scope="module")
def governed(tmp_path_factory, detector):
    layouts = {**shared_folders(license_text)}
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

"""The licenses stage end to end on generated repositories with real license texts and real ScanCode."""

from __future__ import annotations

from pathlib import Path

import pytest

from quarry.engine import run_local
from quarry.curation.licenses.cache import CachedDetector
from quarry.curation.licenses.repository import collect_surveys, detect_repo_licenses
from quarry.curation.licenses.shards import stage_shards
from quarry.records import read_folder, read_json, read_records
from quarry.stages.licenses import LICENSES
from licenses_helpers import license_text, make_repo, needs_scancode, snapshot_shards

pytestmark = needs_scancode

CODE = "def main():\n    return 42\n"
APACHE_HEADER = """# Copyright 2021 Example Corp.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""


def _repos(root: Path, text) -> dict[str, Path]:
    def repo(name, files):
        return make_repo(root / name, files)

    return {
        "https://example.org/mit": repo("mit", {"LICENSE": text("mit"), "src/a.py": CODE, "src/b.py": CODE}),
        "https://example.org/apache": repo("apache", {"LICENSE.txt": text("apache-2.0"), "main.py": CODE}),
        "https://example.org/bsd": repo("bsd", {"LICENSE": text("bsd-new"), "lib.c": "int f(void) { return 1; }\n"}),
        "https://example.org/gpl": repo("gpl", {"COPYING": text("gpl-3.0"), "gpl.py": CODE}),
        "https://example.org/lgpl": repo("lgpl", {"COPYING.LESSER": text("lgpl-2.1"), "lgpl.c": "int g;\n"}),
        "https://example.org/mpl": repo("mpl", {"LICENSE": text("mpl-2.0"), "mpl.rs": "fn main() {}\n"}),
        "https://example.org/dual": repo("dual", {
            "LICENSE-MIT": text("mit"), "LICENSE-APACHE": text("apache-2.0"),
            "Cargo.toml": '[package]\nname = "dual"\nversion = "0.1.0"\nlicense = "MIT OR Apache-2.0"\n',
            "src/lib.rs": "pub fn f() {}\n"}),
        "https://example.org/headers": repo("headers", {
            "spdx.py": "# SPDX-License-Identifier: MIT\n" + CODE,
            "apache_header.py": APACHE_HEADER + CODE,
            "bare.py": CODE}),
        "https://example.org/none": repo("none", {"README.md": "# none\nA tool.\n", "x.py": CODE}),
        "https://example.org/pointer": repo("pointer", {
            "LICENSE": "See the README file for the license.\n",
            "README.md": "# pointer\n\n## License\n\nThis project is licensed under the MIT License.\n",
            "p.py": CODE}),
        "https://example.org/mixed": repo("mixed", {
            "LICENSE": text("mit"),
            "gpl_file.c": "// SPDX-License-Identifier: GPL-3.0-only\nint x;\n",
            "either.py": "# SPDX-License-Identifier: MIT OR GPL-2.0-only\n" + CODE,
            "both.py": "# SPDX-License-Identifier: MIT AND GPL-2.0-only\n" + CODE,
            "refers.py": "# This file is distributed under the same license as the package.\n" + CODE}),
    }


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, detector):
    root = tmp_path_factory.mktemp("licenses")
    src = snapshot_shards(_repos(root / "repos", license_text), root / "snapshot", shards=3)
    out = root / "out-1"
    ledger = run_local(LICENSES, src, out, {"licenses": {}}, workers=1)
    return src, out, ledger


def _by_key(folder: Path) -> dict[tuple[str, str], dict]:
    return {(r["meta"]["origin"].rsplit("/", 1)[1], r["meta"]["path"]): r["meta"] for r in read_folder_data(folder)}


def read_folder_data(folder: Path):
    for shard in stage_shards(folder):
        yield from read_records(shard)


def _rejects(folder: Path) -> dict[tuple[str, str], str]:
    return {(r["meta"]["origin"].rsplit("/", 1)[1], r["meta"]["path"]): r["meta"]["reason"]
            for r in read_folder(folder / "rejects")}


def test_repository_licenses_from_real_texts(corpus):
    _, out, _ = corpus
    repos = {origin.rsplit("/", 1)[1]: entry for origin, entry in read_json(out / "repo_licenses.json").items()}
    expected = {
        "mit": ("MIT", "permissive", "LICENSE"),
        "apache": ("Apache-2.0", "permissive", "LICENSE.txt"),
        "bsd": ("BSD-3-Clause", "permissive", "LICENSE"),
        "gpl": ("GPL-3.0-only", "strong-copyleft", "COPYING"),
        "lgpl": ("LGPL-2.1-only", "weak-copyleft", "COPYING.LESSER"),
        "mpl": ("MPL-2.0", "weak-copyleft", "LICENSE"),
        "dual": ("Apache-2.0 OR MIT", "permissive", "Cargo.toml"),
        "pointer": ("MIT", "permissive", "README.md"),  # a LICENSE that only points elsewhere gives way
        "mixed": ("MIT", "permissive", "LICENSE"),
    }
    for name, (spdx, category, file) in expected.items():
        entry = repos[name]
        assert (entry["spdx"], entry["category"], entry["evidence"]["file"]) == (spdx, category, file), name
        assert entry["evidence"]["score"] >= 90
    assert "headers" not in repos  # no license-bearing root file at all
    assert (repos["none"]["spdx"], repos["none"]["category"]) == (None, "no-license")  # a README without one


def test_every_kept_record_carries_its_governing_license(corpus):
    _, out, _ = corpus
    metas = _by_key(out)
    assert metas[("mit", "src/a.py")]["license"]["spdx"] == "MIT"
    assert metas[("mit", "src/a.py")]["license"]["evidence"] == {"file": "LICENSE", "score": 100.0,
                                                               "level": "repository"}
    assert metas[("headers", "spdx.py")]["license"]["spdx"] == "MIT"
    assert metas[("headers", "spdx.py")]["license"]["evidence"]["level"] == "file"
    assert metas[("headers", "apache_header.py")]["license"]["spdx"] == "Apache-2.0"
    assert metas[("headers", "bare.py")]["license"] == {"spdx": None, "category": "no-license", "evidence": None}
    assert metas[("none", "x.py")]["license"]["category"] == "no-license"  # kept: policy no_license=keep
    either = metas[("mixed", "either.py")]["license"]
    assert (either["spdx"], either["category"]) == ("GPL-2.0-only OR MIT", "permissive")
    assert metas[("dual", "src/lib.rs")]["license"]["spdx"] == "Apache-2.0 OR MIT"
    # a header that only points elsewhere defers to the repository's license
    assert metas[("mixed", "refers.py")]["license"]["evidence"] == {"file": "LICENSE", "score": 100.0,
                                                                   "level": "repository"}


def test_policy_drops_the_right_files_by_reason(corpus):
    src, out, ledger = corpus
    metas, rejects = _by_key(out), _rejects(out)
    assert rejects == {
        ("gpl", "COPYING"): "license:strong-copyleft", ("gpl", "gpl.py"): "license:strong-copyleft",
        ("lgpl", "COPYING.LESSER"): "license:weak-copyleft", ("lgpl", "lgpl.c"): "license:weak-copyleft",
        ("mpl", "LICENSE"): "license:weak-copyleft", ("mpl", "mpl.rs"): "license:weak-copyleft",
        ("mixed", "gpl_file.c"): "license:strong-copyleft", ("mixed", "both.py"): "license:strong-copyleft",
    }
    assert not set(rejects) & set(metas)
    total = sum(1 for _ in read_folder_data(src))
    assert ledger["input"] == total and ledger["kept"] == len(metas) == total - len(rejects)
    assert ledger["dropped"] == {"license:strong-copyleft": 4, "license:weak-copyleft": 4}
    assert read_json(out / "ledger.json") == ledger


def test_output_identical_for_any_worker_count_and_second_build_costs_no_scancode_call(corpus, tmp_path):
    src, out, ledger = corpus
    files = collect_surveys(stage_shards(src))
    with CachedDetector() as detector:
        detect_repo_licenses(files, detector)
        assert detector.stats.misses == 0 and detector.scancode_calls == 0
    again = run_local(LICENSES, src, tmp_path / "out-2", {"licenses": {}}, workers=2)
    assert again == ledger
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(tmp_path / "out-2").as_posix() for p in (tmp_path / "out-2").rglob("*")
                           if p.is_file())
    for name in names:
        if name == "provenance.json":  # it names its input by a path relative to where it stands
            first, second = (read_json(folder / name) for folder in (out, tmp_path / "out-2"))
            assert first["input"]["hash"] == second["input"]["hash"]
            assert {**first, "input": None} == {**second, "input": None}
            continue
        assert (out / name).read_bytes() == (tmp_path / "out-2" / name).read_bytes(), name


def test_stricter_policy_from_params(corpus, tmp_path):
    src, _, _ = corpus
    params = {"licenses": {"policy": {"allow_categories": ["permissive", "weak-copyleft"],
                                      "deny_spdx": ["BSD-3-Clause"], "no_license": "drop"}}}
    ledger = run_local(LICENSES, src, tmp_path / "strict", params)
    rejects = _rejects(tmp_path / "strict")
    assert rejects[("bsd", "lib.c")] == "license:permissive"
    assert rejects[("none", "x.py")] == "license:no-license"
    assert ("lgpl", "lgpl.c") not in rejects and ("mpl", "mpl.rs") not in rejects
    assert ledger["dropped"]["license:no-license"] == 3  # none/README.md, none/x.py, headers/bare.py


def test_a_repeated_license_text_costs_one_scancode_call(detector, tmp_path):
    from licenses_helpers import license_text

    # titled and under different holders, as real LICENSE files are: not a shipped text, one normal form
    mit, apache = "MIT License\n\nCopyright (c) {i} Holder {i}\n\n" + license_text("mit"), \
        "Project license\n\nCopyright {i} Holder {i}\n\n" + license_text("apache-2.0")
    files = {f"https://example.org/r{i}": {"LICENSE": (0, text.format(i=i)),
                                           "README.md": (2, f"# r{i}\nLicensed as LICENSE says.\n")}
             for i, text in enumerate([mit, mit, apache, mit])}
    with CachedDetector(tmp_path / "cache", worker=detector.worker) as cold:
        first = detect_repo_licenses(files, cold)
        assert cold.scancode_calls == 2 and cold.stats.misses == 2  # READMEs are not read: LICENSE governs
    assert detector.worker.calls > 0  # the shared worker stays open for its owner
    with CachedDetector(tmp_path / "cache") as warm:
        assert detect_repo_licenses(files, warm) == first
        assert warm.scancode_calls == 0 and warm.started_workers == 0  # no ScanCode process was even started
    assert [first[o]["spdx"] for o in sorted(first)] == ["MIT", "MIT", "Apache-2.0", "MIT"]
    assert len(list(warm.folder.rglob("*.json"))) == 2


@pytest.mark.slow  # loads a second ScanCode index
def test_several_scancode_workers_share_out_the_misses(detector, tmp_path):
    from licenses_helpers import license_text

    texts = [f"License of the package\n\n{license_text(key)}"  # not a shipped text: ScanCode reads it
             for key in ("mit", "apache-2.0", "bsd-new", "gpl-3.0", "lgpl-2.1", "mpl-2.0")]
    with CachedDetector(tmp_path / "one", worker=detector.worker, batch_size=1) as one:
        expected = one.detect(texts)
    with CachedDetector(tmp_path / "two", worker=detector.worker, batch_size=1, workers=2) as two:
        two.MIN_TEXTS_PER_WORKER = 1
        assert two.detect(texts) == expected
        assert two.started_workers == 2 and two.scancode_calls == len(texts)
    assert [r["spdx"] for r in expected] == ["MIT", "Apache-2.0", "BSD-3-Clause", "GPL-3.0-only", "LGPL-2.1-only",
                                             "MPL-2.0"]

"""The attribution bundle of a dataset version, built from a real snapshot, the real licences stage
and assembly: the origins' licence and NOTICE files verbatim, their copyright lines, standard
texts for licences named only by headers; `quarry audit` fails when a required file is gone."""

from __future__ import annotations

import shutil

import orjson
import pytest

from quarry.config.curation import LicensesParams
from quarry.datasets.attribution import FOLDER, INDEX, origin_folder
from quarry.datasets.build import derive_version
from quarry.engine import run_local
from quarry.engine.partitions import text_key
from quarry.curation.optout import Registry
from quarry.records import read_json
from quarry.stages.assemble import assemble
from quarry.stages.audit import run_audit, use_detector
from quarry.stages.licenses import LICENSES
from quarry.stages.snapshot import run_snapshot
from licenses_helpers import license_text, make_repo, needs_scancode

pytestmark = needs_scancode

BODY = "def area(width, height):\n    return width * height\n\n\ndef perimeter(width, height):\n    return 2 * (width + height)\n"
NOTICE = "Shapes\nCopyright 2021 The Shapes Authors\n\nThis product includes software developed at Example Labs.\n"


@pytest.fixture(scope="module")
def release(tmp_path_factory, detector):
    root = tmp_path_factory.mktemp("attribution")
    repos = {
        "mit": {"LICENSE": ("MIT License\n\nCopyright (c) 2019 Jane Roe\n\n" + license_text("mit")).replace("\n", "\r\n"),
                "src/shapes.py": "# Copyright (c) 2019 Jane Roe\n" + BODY},
        "apache": {"LICENSE": license_text("apache-2.0"), "NOTICE": NOTICE,
                   "lib/area.py": "# Copyright 2021 The Shapes Authors\n" + BODY.replace("area", "surface")},
        "header": {"tool.py": "# SPDX-License-Identifier: BSD-3-Clause\n# Copyright 2020 Max Muster\n"
                              + BODY.replace("width", "w")},
        "cc0": {"LICENSE": license_text("cc0-1.0"), "free.py": BODY.replace("height", "h")},
    }
    sources = [{"name": name, "kind": "dir", "path": str(make_repo(root / "repos" / name, files)),
                "origin": f"https://example.org/{name}"} for name, files in repos.items()]
    run_snapshot(sources, root / "snapshot")
    run_local(LICENSES, root / "snapshot" / "shards", root / "licensed", {"licenses": {}})
    params = {"assemble": {"name": "attrib", "splits": {"train": 1.0}, "zstd_level": 3, "zstd_threads": 1}}
    manifest = assemble(root / "licensed", root / "ds", params, snapshot_manifest=str(root / "snapshot" / "manifest.json"),
                        registry=root / "releases")
    return root, manifest


def bundle_index(folder) -> dict:
    """origin -> entry of a bundle's index, checked to be in origin-hash order."""
    entries = [orjson.loads(line) for line in (folder / FOLDER / INDEX).read_bytes().splitlines()]
    assert [text_key(e["origin"]) for e in entries] == sorted(text_key(e["origin"]) for e in entries)
    return {entry.pop("origin"): entry for entry in entries}


def bundle_file(root, origin: str, path: str):
    return root / "ds" / FOLDER / "files" / origin_folder(f"https://example.org/{origin}") / path


def test_the_bundle_carries_files_copyright_lines_and_standard_texts(release):
    root, manifest = release
    index = bundle_index(root / "ds")
    assert set(index) == {f"https://example.org/{o}" for o in ("mit", "apache", "header")}   # CC0 asks nothing
    assert bundle_file(root, "apache", "NOTICE").read_text() == NOTICE
    assert "2019 Jane Roe" in bundle_file(root, "mit", "LICENSE").read_text()
    assert index["https://example.org/mit"]["copyrights"] == ["Copyright (c) 2019 Jane Roe"]
    header = index["https://example.org/header"]
    assert header["licenses"] == {"BSD-3-Clause": 1} and header["texts"] == ["BSD-3-Clause"]
    assert "Redistribution and use" in (root / "ds" / FOLDER / "licenses" / "BSD-3-Clause.txt").read_text()
    assert manifest["attribution"]["origins"] == 3 and manifest["attribution"]["licenses"] == ["BSD-3-Clause"]
    notice = (root / "ds" / FOLDER / "NOTICE.md").read_text()
    assert "This product includes software developed at Example Labs." not in notice  # linked, not pasted
    assert "Copyright 2020 Max Muster" in notice
    assert "ATTRIBUTION/NOTICE.md" in (root / "ds" / "datacard.md").read_text()


def test_audit_fails_when_a_required_notice_is_removed(release, detector, tmp_path):
    root, _ = release
    use_detector(detector, LicensesParams().batch_size)
    assert run_audit(root / "ds", root / "snapshot", {"licenses": {}}, registry=Registry([]))["passed"]
    copy = tmp_path / "ds"
    shutil.copytree(root / "ds", copy)
    (copy / FOLDER / "files" / origin_folder("https://example.org/apache") / "NOTICE").unlink()
    (copy / FOLDER / "licenses" / "BSD-3-Clause.txt").unlink()
    report = run_audit(copy, root / "snapshot", {"licenses": {}}, registry=Registry([]))
    found = {(v["origin"], v["path"]) for v in report["violations"] if v["kind"] == "attribution"}
    assert found == {("https://example.org/apache", "NOTICE"), ("https://example.org/header", "licenses/BSD-3-Clause.txt")}
    assert not report["passed"]


def test_a_derived_version_keeps_only_the_remaining_origins_attribution(release):
    root, _ = release
    derived = derive_version(root / "ds", root / "derived", lambda r: "apache" not in r["meta"]["origin"], "opt-out",
                             registry=root / "releases")
    index = bundle_index(root / "derived")
    assert set(index) == {"https://example.org/mit", "https://example.org/header"}
    assert not (root / "derived" / FOLDER / "files" / origin_folder("https://example.org/apache")).exists()
    assert (root / "derived" / FOLDER / "licenses" / "BSD-3-Clause.txt").is_file()
    assert derived["attribution"]["origins"] == 2


def test_which_files_are_attribution_files():
    from quarry.datasets.attribution import is_attribution_file, is_license_file

    for path in ("LICENSE", "COPYING.LESSER", "NOTICE.txt", "pkg-1.0.dist-info/licenses/AUTHORS.rst",
                 "LICENSES/MIT.txt", "docs/license.md", "COPYRIGHT"):
        assert is_attribution_file(path), path
    for path in ("graphviz/copying.py", "src/license.c", "licensing_notes/readme.txt", "notices.js"):
        assert not is_attribution_file(path), path
    assert is_license_file("LICENSE-MIT") and not is_license_file("NOTICE")


def test_copyright_lines_are_statements_not_licence_prose():
    from quarry.datasets.attribution import copyright_lines

    text = ("/*\n * Copyright (c) 2019 Jane Roe\n * copyright notice that is included in or attached to the work\n"
            " # Copyright 2004-2021 The Authors.\n */\nint x;\n")
    assert copyright_lines(text) == ["Copyright (c) 2019 Jane Roe", "Copyright 2004-2021 The Authors."]


def test_attribution_files_are_read_from_the_lines_a_shards_file_list_names(release, tmp_path):
    """The release takes the origins' licence and NOTICE files out of each snapshot shard by its file
    list, as runs by origin hash: the same files as parsing every record, whichever partitions read
    them, and no line of the shard is parsed."""
    import zstandard

    from quarry.datasets.attribution import is_attribution_file, partition_files, shard_attribution_files
    from quarry.errors import QuarryError
    from quarry.records import RecordWriter, read_records

    root, _ = release
    manifest = read_json(root / "snapshot" / "manifest.json")
    shards = [root / "snapshot" / "shards" / s["name"] for s in manifest["shards"]]
    lists = [root / "snapshot" / "files" / f["name"] for f in manifest["file_lists"]]
    runs = [str(tmp_path / f"{n:05d}") for n in range(len(shards))]
    for shard, listing, prefix in zip(shards, lists, runs):
        shard_attribution_files(shard, listing, prefix)
    origins = {r["meta"]["origin"] for shard in shards for r in read_records(shard)}
    every_record = {}   # what parsing every record finds
    for record in (r for shard in shards for r in read_records(shard)):
        if is_attribution_file(record["meta"]["path"]):
            every_record.setdefault(record["meta"]["origin"], {})[record["meta"]["path"]] = record["text"]
    assert partition_files(runs, 0, 1, origins) == every_record
    for parts in (2, 3, 7):   # each origin in exactly one partition, with all its files
        found = [partition_files(runs, part, parts, origins) for part in range(parts)]
        assert sum(len(f) for f in found) == len(every_record) and {k: v for f in found for k, v in f.items()} == every_record
    assert {path for files in every_record.values() for path in files} == {"LICENSE", "NOTICE"}
    assert sum(len(files) for files in every_record.values()) == 4  # 3 LICENSE files, 1 NOTICE

    # a shard whose other lines are not JSON at all: the listed lines are copied, nothing is parsed
    [(shard, listing)] = [(s, f) for s, f in zip(shards, lists)
                          if any(r["meta"]["path"] == "NOTICE" for r in read_records(s))]
    lines = zstandard.ZstdDecompressor().stream_reader(shard.open("rb")).read().split(b"\n")
    names = [r["path"] for r in read_records(listing, require_text=False)]
    damaged = tmp_path / "damaged.jsonl.zst"
    damaged.write_bytes(zstandard.ZstdCompressor().compress(b"\n".join(
        line if i < len(names) and names[i] in ("LICENSE", "NOTICE") else b"{not json" for i, line in enumerate(lines))))
    shard_attribution_files(damaged, listing, str(tmp_path / "from-damaged"))
    assert partition_files([str(tmp_path / "from-damaged")], 0, 1, origins) == \
        partition_files([runs[shards.index(shard)]], 0, 1, origins)

    longer = tmp_path / "longer.files.zst"   # a file list naming more records than its shard holds
    with RecordWriter(longer, validate=False) as writer:
        for entry in [*read_records(listing, require_text=False), {"path": "LICENSE", "origin": "x"}]:
            writer.write(entry)
    with pytest.raises(QuarryError, match=shard.name):
        shard_attribution_files(shard, longer, str(tmp_path / "x"))


def test_the_bundle_is_the_same_for_any_number_of_partitions(release, tmp_path):
    """Written by 3 partitions of the origin-hash space and joined, the bundle holds the same bytes
    as written by one, and the version hash is the same."""
    from quarry.infra.hashing import tree_hash

    root, manifest = release
    params = {"assemble": {"name": "attrib", "splits": {"train": 1.0}, "zstd_level": 3, "zstd_threads": 1,
                           "partitions": 3}}
    split = assemble(root / "licensed", tmp_path / "ds", params, workers=2,
                     snapshot_manifest=str(root / "snapshot" / "manifest.json"), register=False)
    assert tree_hash(tmp_path / "ds" / FOLDER) == tree_hash(root / "ds" / FOLDER) == manifest["attribution"]["sha256"]
    assert split["attribution"] == manifest["attribution"] and split["version"] == manifest["version"]


def test_the_index_is_read_by_origin_hash_range(tmp_path):
    """``index_range`` finds an origin-hash range of origins.jsonl by binary search: the same
    entries as a filter of every line, for ranges that start and end anywhere, and for a bundle
    written before the index was sorted (one origins.json)."""
    import random

    from quarry.datasets.attribution import LEGACY_INDEX, index_entries, index_range, join_parts, write_part
    from quarry.records import write_json

    origins = [f"https://example.org/repo-{n}" for n in range(300)]
    credits = sorted(((o, {"licenses": {"MIT": n % 3 + 1}, "copyrights": [f"Copyright 20{n % 30:02d} Author {n}"]})
                      for n, o in enumerate(origins)), key=lambda item: (text_key(item[0]), item[0]))
    files = {o: {"LICENSE": f"licence of {o}\n"} for o in origins[::2]}
    parts = [write_part(tmp_path / f"part{p}", credits[p * 100:(p + 1) * 100], files, lambda ids: {})
             for p in range(3)]
    bundle = tmp_path / FOLDER
    summary = join_parts(bundle, parts, lambda ids: {})
    assert summary["origins"] == 300 and summary["files"] == 150
    every = [orjson.loads(line) for line in (bundle / INDEX).read_bytes().splitlines()]
    assert [e["origin"] for e in every] == [o for o, _ in credits]
    legacy = tmp_path / "legacy"
    write_json(legacy / LEGACY_INDEX, {e["origin"]: {k: v for k, v in e.items() if k != "origin"} for e in every})
    keys = sorted(text_key(o) for o in origins)
    rng = random.Random(5)
    bounds = [(0, 2**64), (0, keys[0]), (keys[-1], 2**64), (keys[-1] + 1, 2**64), (keys[10], keys[10] + 1),
              *((min(a, b), max(a, b)) for a, b in ((rng.randrange(2**64), rng.randrange(2**64)) for _ in range(40)))]
    for lo, hi in bounds:
        expected = [e for e in every if lo <= text_key(e["origin"]) < hi]
        assert list(index_range(bundle, lo, hi)) == expected, (lo, hi)
        assert list(index_range(legacy, lo, hi)) == expected, (lo, hi)
    wanted = rng.sample(origins, 7)
    assert index_entries(bundle, wanted) == {e["origin"]: e for e in every if e["origin"] in wanted}
    assert index_entries(bundle, ["https://example.org/absent"]) == {}
    notice = (bundle / "NOTICE.md").read_text()
    assert notice.startswith("# Attribution") and "documents of 300 origins" in notice
    assert notice.index(credits[0][0]) < notice.index(credits[150][0]) < notice.index(credits[-1][0])


def test_a_damaged_index_line_is_named(tmp_path):
    from quarry.datasets.attribution import index_entries
    from quarry.errors import QuarryError

    (tmp_path / INDEX).write_bytes(b'{"origin": "a", "files": {}}\n{not json\n')
    with pytest.raises(QuarryError, match=INDEX):
        index_entries(tmp_path, ["a", "b", "c"])

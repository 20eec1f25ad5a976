"""Hostile archives: traversal, absolute paths, link escapes, devices, bombs are refused and
reported with the archive and member name, and nothing lands outside the destination."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile

import pytest

from quarry.records import read_folder, read_records
from quarry.stages.snapshot import run_snapshot
from quarry.snapshot.archives import extract, link_escapes, member_problem
from quarry.snapshot.listing import snapshot_origins


def _tar(path, members, mode="w:gz"):
    """members: (TarInfo kwargs, data bytes | None)."""
    with tarfile.open(path, mode) as tar:
        for fields, data in members:
            info = tarfile.TarInfo(fields.pop("name"))
            for key, value in fields.items():
                setattr(info, key, value)
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return path


def _files_outside(root, allowed):
    return sorted(p for p in root.rglob("*") if not any(p == a or a in p.parents for a in allowed)
                  and p.is_file())


@pytest.fixture
def hostile_tar(tmp_path):
    return _tar(tmp_path / "hostile.tar.gz", [
        ({"name": "proj/src/ok.py"}, b"print('ok')\n"),
        ({"name": "proj/README.md"}, b"# Project\nThe readme of a project.\n"),
        ({"name": "../escape.txt"}, b"pwned"),
        ({"name": "proj/../../escape2.txt"}, b"pwned"),
        ({"name": str(tmp_path / "abs.txt")}, b"pwned"),
        ({"name": "proj/inside-link", "type": tarfile.SYMTYPE, "linkname": "src/ok.py"}, None),
        ({"name": "proj/evil", "type": tarfile.SYMTYPE, "linkname": str(tmp_path)}, None),
        ({"name": "proj/evil2", "type": tarfile.SYMTYPE, "linkname": "../../.."}, None),
        ({"name": "proj/evil/planted.txt"}, b"pwned"),     # write through the refused link
        ({"name": "proj/hard", "type": tarfile.LNKTYPE, "linkname": "/etc/passwd"}, None),
        ({"name": "proj/dev", "type": tarfile.CHRTYPE, "devmajor": 1, "devminor": 3}, None),
        ({"name": "proj/fifo", "type": tarfile.FIFOTYPE}, None),
        ({"name": "proj/src/ok.py/inner.py"}, b"a file where a folder is"),
    ])


def test_hostile_tar_members_refused_and_reported(tmp_path, hostile_tar):
    dest = tmp_path / "out" / "x"
    result = extract(hostile_tar, dest)
    refused = {(r.member, r.reason) for r in result.refusals}
    assert refused == {
        ("../escape.txt", "parent_reference"), ("proj/../../escape2.txt", "parent_reference"),
        (str(tmp_path / "abs.txt"), "absolute_path"), ("proj/evil", "link_escape"), ("proj/evil2", "link_escape"),
        ("proj/hard", "hard_link"), ("proj/dev", "special_file"), ("proj/fifo", "special_file"),
        ("proj/src/ok.py/inner.py", "path_conflict"),
    }
    assert all(r.archive == str(hostile_tar) for r in result.refusals)
    assert result.links == {"proj/inside-link": "src/ok.py"}
    assert (dest / "proj" / "src" / "ok.py").read_text() == "print('ok')\n"
    # The member "under" the refused link is a plain file inside the destination, never followed.
    assert (dest / "proj" / "evil" / "planted.txt").is_file()
    assert _files_outside(tmp_path, [dest, hostile_tar]) == []
    assert not any(p.is_symlink() for p in dest.rglob("*"))


def test_hostile_zip(tmp_path):
    path = tmp_path / "hostile.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("pkg/a.py", "A = 1\n")
        zf.writestr("../../zip-escape.txt", "pwned")
        zf.writestr("/abs-zip.txt", "pwned")
        zf.writestr("C:/windows.txt", "pwned")
        link = zipfile.ZipInfo("pkg/link")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "../../../etc/passwd")
        fifo = zipfile.ZipInfo("pkg/fifo")
        fifo.external_attr = (stat.S_IFIFO | 0o644) << 16
        zf.writestr(fifo, "")
    dest = tmp_path / "dest"
    result = extract(path, dest)
    assert {(r.member, r.reason) for r in result.refusals} == {
        ("../../zip-escape.txt", "parent_reference"), ("/abs-zip.txt", "absolute_path"),
        ("C:/windows.txt", "absolute_path"), ("pkg/link", "link_escape"), ("pkg/fifo", "special_file")}
    assert (dest / "pkg" / "a.py").read_text() == "A = 1\n"
    assert _files_outside(tmp_path, [dest, path]) == []


def test_zip_bomb_refused_whole(tmp_path):
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a.txt", "ok\n")
        zf.writestr("zeros.bin", b"\0" * 5_000_000)   # ~5 kB compressed
    assert path.stat().st_size < 20_000
    dest = tmp_path / "dest"
    result = extract(path, dest, max_bytes=1_000_000)
    assert result.files == 0 and list(dest.iterdir()) == []
    (refusal,) = result.refusals
    assert refusal.reason.startswith("bomb:") and refusal.archive == str(path)


def test_member_count_cap(tmp_path):
    path = _tar(tmp_path / "many.tar", [({"name": f"f{i}.txt"}, b"x\n") for i in range(20)], mode="w")
    result = extract(path, tmp_path / "dest", max_members=10)
    assert result.refusals[0].reason.startswith("bomb:") and "more than 10 members" in result.refusals[0].reason
    assert list((tmp_path / "dest").iterdir()) == []


@pytest.mark.parametrize("name,problem", [("a/../../b", "parent_reference"), ("/etc/x", "absolute_path"),
                                          ("..", "parent_reference"), ("a\\..\\b", "parent_reference"),
                                          ("a/b/../c", "parent_reference"), ("ok/.hidden", None)])
def test_member_problem(name, problem):
    assert member_problem(name) == problem


def test_link_escapes():
    assert link_escapes("a/b", "../../x") and link_escapes("a", "/etc") and not link_escapes("a/b", "../c")


def test_archive_source_snapshot(tmp_path, hostile_tar):
    out = tmp_path / "snap"
    run_snapshot([{"kind": "archive", "path": str(hostile_tar), "name": "a"}], out, {},
                 cache_dir=tmp_path / "cache")
    (origin,) = snapshot_origins(out)
    records = list(read_folder(out / "shards"))
    # The sole top-level folder is stripped: paths are relative to the project.
    assert [r["meta"]["path"] for r in records] == ["README.md", "evil/planted.txt", "src/ok.py"]
    assert origin["refused"]["archive_parent_reference"] == 2
    assert {r["member"] for r in origin["archive_refusals"]} >= {"../escape.txt", "proj/evil"}
    rejects = list(read_records(out / "rejects" / "rejects.jsonl.zst", require_text=False))
    escaped = next(r for r in rejects if r["meta"]["path"] == "../escape.txt")
    assert escaped["meta"]["reason"] == "archive_parent_reference"
    assert escaped["meta"]["archive"] == str(hostile_tar)
    assert not list(out.glob(".staging-*"))  # extraction space is removed
    assert _files_outside(tmp_path, [out, hostile_tar, tmp_path / "cache"]) == []


def test_no_member_name_or_link_escapes_property(tmp_path_factory):
    """Any mix of `..`, `.`, slashes, absolute paths and links: extraction stays inside dest."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    part = st.sampled_from(["..", ".", "a", "b", "", "/", "c.txt", "a/b"])
    name = st.lists(part, min_size=1, max_size=6).map("/".join)
    member = st.tuples(name, st.sampled_from(["file", "symlink"]), name)

    @settings(max_examples=60, deadline=None)
    @given(st.lists(member, min_size=1, max_size=6))
    def check(members):
        root = tmp_path_factory.mktemp("prop")
        entries = []
        for member_name, kind, target in members:
            if kind == "file":
                entries.append(({"name": member_name}, b"data"))
            else:
                entries.append(({"name": member_name, "type": tarfile.SYMTYPE, "linkname": target}, None))
        archive = _tar(root / "x.tar", entries, mode="w")
        dest = root / "out" / "dest"
        result = extract(archive, dest)
        assert _files_outside(root, [dest, archive]) == []
        assert not any(p.is_symlink() for p in dest.rglob("*"))
        for link, target in result.links.items():
            assert not link_escapes(link, target)

    check()


def _spy_writes(monkeypatch):
    """Record every member write the extractor starts and the bytes written when it stops."""
    from quarry.snapshot import archives

    seen = {"writes": 0, "bytes": 0}
    original = archives._Extractor.write

    def write(self, rel, source, executable=False):
        seen["writes"] += 1
        try:
            original(self, rel, source, executable)
        finally:
            seen["bytes"] = self.result.bytes

    monkeypatch.setattr(archives._Extractor, "write", write)
    return seen


def test_zip_declaring_a_bomb_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a.txt", "ok\n")
        zf.writestr("zeros.bin", b"\0" * 5_000_000)
    seen = _spy_writes(monkeypatch)
    result = extract(path, tmp_path / "dest", max_bytes=1_000_000)
    assert "declare more than 1000000 bytes" in result.refusals[0].reason
    assert seen["writes"] == 0


def test_tar_bomb_stops_streaming_at_the_ratio_cap(tmp_path, monkeypatch):
    from quarry.snapshot import archives

    monkeypatch.setattr(archives, "RATIO_FLOOR_BYTES", 1 << 20)
    path = _tar(tmp_path / "bomb.tar.gz", [({"name": "zeros.bin"}, b"\0" * 40_000_000)])
    size = path.stat().st_size
    seen = _spy_writes(monkeypatch)
    result = extract(path, tmp_path / "dest")  # the byte cap (2 GB) is far away: the ratio stops it
    (refusal,) = result.refusals
    assert refusal.reason.startswith("bomb:") and "compression bomb" in refusal.reason
    cap = max(1 << 20, 100 * size)
    assert cap < seen["bytes"] <= cap + archives.COPY_CHUNK  # stopped within one chunk of the cap
    assert list((tmp_path / "dest").iterdir()) == []


def test_archive_url_is_refused_with_a_clear_message(tmp_path):
    from quarry.errors import QuarryError
    from quarry.config.snapshot import SnapshotParams
    from quarry.snapshot.sources import plan_archive

    with pytest.raises(QuarryError, match=r"https://example.org/x.tar.gz is a URL; an archive source takes a local"):
        plan_archive({"name": "x", "kind": "archive", "path": "https://example.org/x.tar.gz"}, SnapshotParams(),
                     tmp_path)

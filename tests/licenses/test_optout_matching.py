"""Opt-out entries that cannot silently miss: versions, URL spellings, counts on add, no empty versions."""

from __future__ import annotations

import hashlib
from pathlib import Path

from licenses_helpers import with_registry

import quarry.datasets as qd
from quarry.stages.assemble import assemble
from quarry.cli import main as quarry_main
from quarry.engine import run_local
from quarry.curation.optout import OptOut, Registry, registry_hash
from quarry.datasets.reapply import reapply_optout, whois
from quarry.records import read_records, shard_paths, write_records
from quarry.stages.optout import OPTOUT

ORIGINS = {"pypi:graphene@3.4.3": 5, "pypi:graphene@3.3.0": 4, "pypi:graphene-django@3.2.2": 3,
           "pypi:text-unidecode@1.3": 2, "https://github.com/acme/app.git": 3, "https://github.com/acme/application": 2}
ASSEMBLE = {"assemble": {"name": "optout-match", "splits": {"train": 0.8, "validation": 0.1, "test": 0.1},
                         "shard_bytes": 4096, "zstd_level": 3}}


def _shards(folder: Path) -> Path:
    records = []
    for origin, n in ORIGINS.items():
        for i in range(n):
            text = f"# module {i} of {origin}\n" + "x = 1\n" * (i + 2)
            records.append({"text": text, "meta": {"id": "swh:1:cnt:" + hashlib.sha1(text.encode()).hexdigest(),
                                                   "origin": origin, "path": f"pkg/m{i}.py", "language": "Python",
                                                   "pile_set_name": "github-python", "bytes": len(text)}})
    for k in range(2):
        write_records(folder / f"part-{k:05d}.jsonl.zst", records[k::2])
    return folder


def _registry(path: Path, *lines: str) -> Path:
    path.write_text("# kind\tvalue\tdate\treason\n" + "".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _kept_origins(folder: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for shard in shard_paths(folder):
        if "rejects" not in shard.parts:
            for record in read_records(shard):
                counts[record["meta"]["origin"]] = counts.get(record["meta"]["origin"], 0) + 1
    return counts


def _said(capsys) -> tuple[str, str]:
    captured = capsys.readouterr()
    return " ".join(captured.out.split()), " ".join(captured.err.split())


def _version(tmp_path: Path, releases: Path, registry: Path) -> dict:
    curated = tmp_path / "curated"
    run_local(OPTOUT, _shards(tmp_path / "src"), curated, with_registry(_registry(tmp_path / "empty.tsv")))
    return assemble(curated, tmp_path / "v1", ASSEMBLE, ledgers=[curated],
                       optout_registry_hash=registry_hash(registry), registry=releases)


def test_a_name_without_version_removes_every_version_and_only_that_name(tmp_path):
    registry = _registry(tmp_path / "r.tsv", "origin\tpypi:Graphene", "origin\tpypi:text_unidecode@1.3")
    ledger = run_local(OPTOUT, _shards(tmp_path / "src"), tmp_path / "out", with_registry(registry))
    assert ledger["dropped"] == {"opt-out": 5 + 4 + 2}
    assert _kept_origins(tmp_path / "out") == {"pypi:graphene-django@3.2.2": 3, "https://github.com/acme/app.git": 3,
                                               "https://github.com/acme/application": 2}
    one_version = Registry([OptOut("origin", "pypi:graphene@3.3.0")])
    assert one_version.covers("pypi:graphene@3.3.0") and not one_version.covers("pypi:graphene@3.4.3")


def test_url_variants_match_the_same_repository(tmp_path):
    for spelling in ("http://GitHub.com/Acme/App/", "git@github.com:acme/app.git", "ssh://git@github.com/acme/app",
                     "https://github.com/acme/app.git/", "github.com/acme/app"):
        registry = _registry(tmp_path / "r.tsv", f"origin\t{spelling}")
        ledger = run_local(OPTOUT, _shards(tmp_path / "src"), tmp_path / "out", with_registry(registry))
        assert ledger["dropped"] == {"opt-out": 3}, spelling
        assert "https://github.com/acme/app.git" not in _kept_origins(tmp_path / "out")
        assert "https://github.com/acme/application" in _kept_origins(tmp_path / "out")  # not a prefix match


def test_add_counts_the_documents_it_matches_and_warns_at_zero(tmp_path, capsys, monkeypatch):
    data = _shards(tmp_path / "snapshot")
    registry = tmp_path / "r.tsv"
    assert quarry_main(["optout", "add", "pypi:graphene", "--registry", str(registry), "--data", str(data)]) == 0
    out, err = _said(capsys)
    assert "matches 9 documents of 2 origins" in out and "warning" not in err
    assert quarry_main(["optout", "add", "pypi:grafene", "--registry", str(registry), "--data", str(data)]) == 0
    out, err = _said(capsys)
    assert "matches 0 documents" in out
    assert "warning: origin pypi:grafene matches no document" in err and "nearest: pypi:graphene@3.3.0" in err
    assert quarry_main(["optout", "add", "github.com/acme", "--kind", "owner", "--registry", str(registry),
                        "--data", str(data)]) == 0
    assert "matches 5 documents of 2 origins" in _said(capsys)[0]
    # by default, the project's snapshot folder is where matches are counted
    monkeypatch.setenv("QUARRY_HOME", str(tmp_path))
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    (tmp_path / "data").mkdir()
    data.rename(tmp_path / "data" / "snapshot")
    assert quarry_main(["optout", "add", "pypi:text-unidecode", "--registry", str(registry)]) == 0
    assert f"matches 2 documents of 1 origins in snapshot {tmp_path / 'data' / 'snapshot'}" in _said(capsys)[0]


def test_reapply_without_removals_makes_no_version_unless_forced(tmp_path, capsys):
    releases = tmp_path / "releases"
    registry = _registry(tmp_path / "r.tsv", "origin\tpypi:nothing-here")
    v1 = _version(tmp_path, releases, registry)
    result = reapply_optout(tmp_path / "v1", registry, tmp_path / "v2", registry=releases)
    assert result["manifest"] is None and result["changelog"]["removed_documents"] == 0
    assert result["changelog"]["from"] == v1["version"] and not (tmp_path / "v2").exists()
    assert [r["manifest"]["version"] for r in qd.releases(registry=releases)] == [v1["version"]]
    assert quarry_main(["optout", "reapply", str(tmp_path / "v1"), str(tmp_path / "v2"),
                        "--registry", str(registry)]) == 0
    assert "0 removed, no new version made" in _said(capsys)[0] and not (tmp_path / "v2").exists()
    forced = reapply_optout(tmp_path / "v1", registry, tmp_path / "v2", registry=releases, force=True)
    assert forced["manifest"]["parent"] == v1["version"] and forced["changelog"]["removed_documents"] == 0


def test_whois_counts_documents_per_version(tmp_path, capsys):
    releases = tmp_path / "releases"
    registry = _registry(tmp_path / "r.tsv")
    v1 = _version(tmp_path, releases, registry)
    _registry(registry, "origin\tpypi:graphene\t2026-03-01\ttakedown")
    result = reapply_optout(tmp_path / "v1", registry, tmp_path / "v2", registry=releases)
    assert result["changelog"]["removed_documents"] == 9
    assert result["changelog"]["entries"][0]["origins"] == {"pypi:graphene@3.3.0": 4, "pypi:graphene@3.4.3": 5}
    found = whois("pypi:graphene", registry_path=registry, releases_root=releases, datasets_root=tmp_path / "none")
    assert found["versions_checked"] == 2
    assert [(d["version"], d["documents"], d["origins"]) for d in found["datasets"]] == [
        (v1["version"], 9, {"pypi:graphene@3.3.0": 4, "pypi:graphene@3.4.3": 5})]
    assert found["opted_out"]["value"] == "pypi:graphene"
    django = whois("pypi:graphene-django", registry_path=registry, releases_root=releases,
                   datasets_root=tmp_path / "none")
    assert sorted(d["documents"] for d in django["datasets"]) == [3, 3] and django["opted_out"] is None

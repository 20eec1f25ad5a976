"""The opt-out registry, the opt-out stage, re-applying a newer registry to a dataset version, whois."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from licenses_helpers import with_registry

import quarry.datasets as qd
from quarry.stages.assemble import assemble
from quarry.cli import main as quarry_main
from quarry.engine import run_local
from quarry.errors import ConfigError, QuarryError
from quarry.curation.optout import OptOut, Registry, add_entry, load_registry, normalize_origin, registry_hash
from quarry.datasets.reapply import reapply_optout, whois
from quarry.records import read_folder, read_json, read_records, shard_paths, write_json, write_records
from quarry.stages.optout import OPTOUT

ORIGINS = ["https://github.com/acme/app", "https://github.com/acme/lib", "https://github.com/acmecorp/tool",
           "https://gitlab.com/team/one", "https://example.org/solo"]


def _records(per_origin: int = 6) -> list[dict]:
    records = []
    for o, origin in enumerate(ORIGINS):
        for i in range(per_origin):
            text = f"# file {i} of {origin}\n" + "value = 1\n" * (i + 3)
            swhid = "swh:1:cnt:" + hashlib.sha1(text.encode()).hexdigest()
            records.append({"text": text, "meta": {"id": swhid, "origin": origin, "path": f"src/m{i}.py",
                                                   "pile_set_name": "github-python", "language": "Python",
                                                   "bytes": len(text)}})
    return records


def _shards(folder: Path, records: list[dict], n: int = 3) -> Path:
    for k in range(n):
        write_records(folder / f"part-{k:05d}.jsonl.zst", records[k::n])
    return folder


def _registry(path: Path, *lines: str) -> Path:
    path.write_text("# kind\tvalue\tdate\treason\n" + "".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_origins_compare_in_normal_form():
    assert normalize_origin("https://GitHub.com/Acme/App.git/") == "github.com/acme/app"
    assert normalize_origin("git@github.com:acme/app.git") == "github.com/acme/app"
    assert normalize_origin("ssh://git@github.com/acme/app") == "github.com/acme/app"


def test_entries_match_origin_prefix_and_owner():
    registry = Registry([OptOut("origin", "https://example.org/solo.git"), OptOut("prefix", "gitlab.com/team/"),
                         OptOut("owner", "github.com/acme")])
    covered = {o for o in ORIGINS if registry.covers(o)}
    assert covered == {"https://github.com/acme/app", "https://github.com/acme/lib", "https://gitlab.com/team/one",
                       "https://example.org/solo"}
    assert not registry.covers("https://github.com/acmecorp/tool")  # an owner is a whole path segment
    assert not registry.covers("https://gitlab.com/teams/x")  # the prefix ends at its slash
    assert Registry([OptOut("owner", "acme")]).covers("https://bitbucket.org/acme/x")  # a bare owner: any host


def test_registry_file_add_remove_list_through_the_cli(tmp_path, capsys):
    path = tmp_path / "registry.tsv"
    assert quarry_main(["optout", "add", "https://github.com/acme/app", "--reason", "request 1",
                        "--date", "2026-01-02", "--registry", str(path)]) == 0
    assert quarry_main(["optout", "add", "github.com/zeta", "--kind", "owner", "--date", "2026-01-03",
                        "--registry", str(path)]) == 0
    lines = path.read_text().splitlines()
    assert lines == ["# kind\tvalue\tdate\treason", "origin\thttps://github.com/acme/app\t2026-01-02\trequest 1",
                     "owner\tgithub.com/zeta\t2026-01-03"]
    before = registry_hash(path)
    add_entry("https://github.com/acme/app", reason="updated reason", date="2026-02-02", path=path)
    assert registry_hash(path) == before  # only what decides removals is hashed
    assert len(load_registry(path)) == 2
    assert quarry_main(["optout", "list", "--registry", str(path)]) == 0
    assert "github.com/zeta" in capsys.readouterr().out
    assert quarry_main(["optout", "remove", "github.com/zeta", "--registry", str(path)]) == 0
    assert registry_hash(path) != before
    assert [e.value for e in load_registry(path).entries] == ["https://github.com/acme/app"]
    assert quarry_main(["optout", "remove", "github.com/nobody", "--registry", str(path)]) == 1
    assert quarry_main(["optout", "list", "--registry", str(tmp_path / "missing.tsv")]) == 1
    err = capsys.readouterr().err
    assert "missing.tsv: no opt-out registry there" in err and "Traceback" not in err


def test_a_bad_line_names_the_file_and_line(tmp_path):
    path = _registry(tmp_path / "r.tsv", "origin\thttps://a.org/x", "owner github.com/acme")
    with pytest.raises(ConfigError, match=r"r\.tsv:3"):
        load_registry(path)


def test_opted_out_origins_leave_no_record_in_any_shard(tmp_path):
    src = _shards(tmp_path / "src", _records())
    registry = _registry(tmp_path / "r.tsv", "owner\tgithub.com/acme\t2026-01-01\tasked", "origin\texample.org/solo")
    ledger = run_local(OPTOUT, src, tmp_path / "out", with_registry(registry))
    kept = [r for p in shard_paths(tmp_path / "out") if "rejects" not in p.parts for r in read_records(p)]
    assert {r["meta"]["origin"] for r in kept} == {"https://github.com/acmecorp/tool", "https://gitlab.com/team/one"}
    assert ledger["dropped"] == {"opt-out": 18} and ledger["kept"] == 12 and ledger["input"] == 30
    assert ledger["registry_hash"] == registry_hash(registry)
    assert read_json(tmp_path / "out" / "ledger.json") == ledger
    rejected = [r["meta"] for r in read_folder(tmp_path / "out" / "rejects")]
    assert len(rejected) == 18 and {m["reason"] for m in rejected} == {"opt-out"}
    again = run_local(OPTOUT, src, tmp_path / "out-2", with_registry(registry), workers=2)
    assert again == ledger
    for shard in sorted((tmp_path / "out").rglob("*.jsonl.zst")):
        twin = tmp_path / "out-2" / shard.relative_to(tmp_path / "out")
        assert shard.read_bytes() == twin.read_bytes()


def test_reapplying_a_newer_registry_makes_a_new_version_with_a_changelog(tmp_path, capsys, monkeypatch):
    releases = tmp_path / "releases"
    registry = _registry(tmp_path / "r.tsv", "origin\thttps://example.org/solo\t2026-01-01")
    curated = tmp_path / "curated"
    run_local(OPTOUT, _shards(tmp_path / "src", _records()), curated, with_registry(registry))
    params = {"assemble": {"name": "optout-test", "splits": {"train": 0.8, "validation": 0.1, "test": 0.1},
                           "shard_bytes": 4096, "zstd_level": 3}}
    v1 = assemble(curated, tmp_path / "v1", params, ledgers=[curated], optout_registry_hash=registry_hash(registry),
                     registry=releases)
    assert v1["optout_registry_hash"] == registry_hash(registry)

    add_entry("gitlab.com/team/", kind="prefix", date="2026-03-01", reason="takedown", path=registry)
    result = reapply_optout(tmp_path / "v1", registry, tmp_path / "v2", registry=releases)
    v2, log = result["manifest"], result["changelog"]
    assert v2["version"] != v1["version"] and v2["parent"] == v1["version"]
    assert v2["optout_registry_hash"] == registry_hash(registry) != v1["optout_registry_hash"]
    assert log["removed_documents"] == 6
    assert log["entries"] == [{"kind": "prefix", "value": "gitlab.com/team/", "date": "2026-03-01",
                               "reason": "takedown", "origins": {"https://gitlab.com/team/one": 6}}]
    remaining = list(qd.open_dataset(tmp_path / "v2"))
    assert len(remaining) == 18 and not any("gitlab.com" in r["meta"]["origin"] for r in remaining)

    # a checkpoint trained on v1, as its lineage record names it
    write_json(tmp_path / "models" / "ckpt" / "lineage.json", {"dataset": {"path": str(tmp_path / "v1"),
                                                                          "version": v1["version"]}})
    in_train = sum(1 for r in qd.open_dataset(tmp_path / "v1", split="train")
                   if r["meta"]["origin"] == "https://gitlab.com/team/one")
    assert in_train > 0
    found = whois("gitlab.com/team/one.git", registry_path=registry, releases_root=releases,
                  models_root=tmp_path / "models")
    assert [(d["version"], d["documents"]) for d in found["datasets"]] == [(v1["version"], 6)]
    assert [(Path(c["checkpoint"]).name, c["documents"]) for c in found["checkpoints"]] == [("ckpt", in_train)]
    assert found["opted_out"]["kind"] == "prefix"
    kept = whois("https://github.com/acme/app", registry_path=registry, releases_root=releases,
                 datasets_root=tmp_path / "nowhere")
    assert {d["version"] for d in kept["datasets"]} == {v1["version"], v2["version"]} and kept["opted_out"] is None
    # an unregistered version folder is found by scanning its shards
    unregistered = whois("https://gitlab.com/team/one", registry_path=registry, releases_root=tmp_path / "empty",
                         datasets_root=tmp_path)
    assert [(d["version"], d["documents"]) for d in unregistered["datasets"]] == [(v1["version"], 6)]
    assert quarry_main(["whois", "https://gitlab.com/team/one", "--registry", str(registry),
                        "--models", str(tmp_path / "models")]) == 0
    assert "not covered" not in capsys.readouterr().out

    # `quarry licenses` finds a registered version by hash prefix
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUARRY_HOME", str(tmp_path))
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "releases").symlink_to(releases, target_is_directory=True)
    (tmp_path / "params.yaml").write_text("pipeline: {}\n")
    assert quarry_main(["licenses", v2["version"][:10]]) == 0
    assert "no-license" in capsys.readouterr().out  # these records were never licensed: detected on the fly


def test_a_rerun_leaves_no_stale_shard_and_refuses_to_write_into_its_input(tmp_path):
    registry = _registry(tmp_path / "r.tsv")
    run_local(OPTOUT, _shards(tmp_path / "src3", _records(), n=3), tmp_path / "out", with_registry(registry))
    run_local(OPTOUT, _shards(tmp_path / "src2", _records(), n=2), tmp_path / "out", with_registry(registry))
    assert sorted(p.name for p in (tmp_path / "out").glob("*.jsonl.zst")) == ["part-00000.jsonl.zst",
                                                                               "part-00001.jsonl.zst"]
    with pytest.raises(QuarryError, match="must not be the input folder"):
        run_local(OPTOUT, tmp_path / "src2", tmp_path / "src2" / "out", with_registry(registry))


def test_two_copies_of_a_project_record_one_config_and_a_changed_registry_is_another_cache_key(tmp_path, monkeypatch):
    from quarry.config import as_params
    from quarry.engine.provenance import plain
    from quarry.stages.optout import OptOutConfig
    from tasks.caching import fingerprint

    configs = []
    for copy in ("one", "two"):
        project = tmp_path / copy
        (project / "data" / "optout").mkdir(parents=True)
        _registry(project / "data" / "optout" / "registry.tsv", "origin\thttps://github.com/acme/app\t2026-01-01\tasked")
        monkeypatch.setenv("QUARRY_HOME", str(project))
        configs.append(OptOutConfig.from_params(as_params({})))
    one, two = configs
    assert plain(one) == plain(two) == {"registry": "data/optout/registry.tsv"}  # what provenance records
    assert one.path != two.path and one.load().entries == two.load().entries
    assert fingerprint(one) == fingerprint(two)
    _registry(two.path, "origin\thttps://github.com/acme/lib\t2026-01-02\tasked")
    assert fingerprint(one) != fingerprint(two)  # the content keys the shards' task runs

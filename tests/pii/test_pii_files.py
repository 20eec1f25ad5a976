"""`quarry pii scan` and `quarry pii redact` on a plain source file and a folder of source files:
findings name the file, offsets and a hash prefix, never the value; redaction mirrors the tree."""

import orjson

from quarry.cli import main

APP = ('import os\nDB = "postgres://app:Xk9mP2vLq7@db.acme-corp.io/app"\n'
       'SECRET = os.getenv("JWT_SECRET", "river.falcon.42")\n')
VALUES = ("Xk9mP2vLq7", "river.falcon.42", "Summer2024!")


def test_scan_one_source_file(tmp_path, capsys):
    app = tmp_path / "app.py"
    app.write_text(APP)
    report = tmp_path / "report" / "findings.jsonl"
    assert main(["pii", "scan", str(app), "--findings", str(report)]) == 0
    rows = [orjson.loads(line) for line in report.read_bytes().splitlines()]
    assert [(r["file"], r["type"], APP[r["start"]:r["end"]]) for r in rows] == [
        (str(app), "PASSWORD", "Xk9mP2vLq7"), (str(app), "KEY", "river.falcon.42")]
    assert all(len(r["sha256"]) == 16 for r in rows)
    shown = capsys.readouterr().out
    for value in VALUES:
        assert value.encode() not in report.read_bytes() and value not in shown


def test_redact_one_source_file_into_a_folder(tmp_path):
    app = tmp_path / "app.py"
    app.write_text(APP)
    assert main(["pii", "redact", str(app), str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "app.py").read_text() == (
        'import os\nDB = "postgres://app:<PASSWORD>@db.acme-corp.io/app"\n'
        'SECRET = os.getenv("JWT_SECRET", "<KEY>")\n')
    # a second pass over the output changes nothing
    assert main(["pii", "redact", str(tmp_path / "out" / "app.py"), str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "app.py").read_bytes() == (tmp_path / "out" / "app.py").read_bytes()


def test_folder_of_source_files_is_mirrored_binary_files_copied(tmp_path):
    src = tmp_path / "src"
    (src / "conf").mkdir(parents=True)
    (src / "app.py").write_text(APP)
    (src / "conf" / "app.yaml").write_text("jwt:\n  issuer: acme\n  key: Summer2024!\n")
    (src / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    assert main(["pii", "scan", str(src), "--findings", str(tmp_path / "f.jsonl")]) == 0
    rows = [orjson.loads(line) for line in (tmp_path / "f.jsonl").read_bytes().splitlines()]
    assert sorted(r["file"].rsplit("/", 1)[-1] for r in rows) == ["app.py", "app.py", "app.yaml"]
    assert main(["pii", "redact", str(src), str(tmp_path / "out")]) == 0
    out = tmp_path / "out"
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "app.py", "conf/app.yaml", "logo.png"]
    assert (out / "conf" / "app.yaml").read_text() == "jwt:\n  issuer: acme\n  key: <KEY>\n"
    assert (out / "logo.png").read_bytes() == (src / "logo.png").read_bytes()
    written = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert not any(value.encode() in written for value in VALUES)


def test_output_inside_the_input_folder_is_refused_in_one_line(tmp_path, capsys):
    (tmp_path / "app.py").write_text(APP)
    assert main(["pii", "redact", str(tmp_path), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "must not be inside" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()

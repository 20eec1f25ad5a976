"""Decontamination against the dataset's own test split and extra evaluation files."""

from __future__ import annotations

import html
import re

import orjson

import pytest

from dedup_corpus import LICENSE_HEADER, MODULES, kept_records, record, source
from quarry.curation.decontaminate.overlap import REPORT
from quarry.engine import run_local
from quarry.errors import ConfigError
from quarry.records import read_folder, read_json, write_records
from quarry.splits import split_of
from quarry.stages.decontaminate import DECONTAMINATE, decontaminate_with


def _ids(split: str, count: int, prefix: str) -> list[str]:
    found, i = [], 0
    while len(found) < count:
        doc_id = f"swh:1:cnt:{prefix}{i:08d}"
        if split_of(doc_id) == split:
            found.append(doc_id)
        i += 1
    return found


def _lightly_edited(text: str) -> str:
    """Case, punctuation and spacing changes plus one word in forty replaced."""
    words = text.upper().replace("(", " ( ").replace(":", ";").split()
    return " ".join("CHANGED" if i % 40 == 20 else w for i, w in enumerate(words))


@pytest.fixture()
def dataset(tmp_path):
    test_ids = _ids("test", 2, "t")
    train_ids = _ids("train", 6, "a")
    shlex_src, sched_src = "\n".join(source("shlex.py").splitlines()[:200]), source("sched.py")
    chunk = "\n".join(shlex_src.splitlines()[60:120])
    edited = _lightly_edited(sched_src)
    question = ("Return a list of the best good enough matches, where word is a sequence for which close "
                "matches are desired and possibilities is a list of sequences against which to match word")
    docs = [
        record(test_ids[0], shlex_src), record(test_ids[1], sched_src),
        record(train_ids[0], source("csv.py") + "\n" + chunk),           # verbatim test text inside
        record(train_ids[1], source("bisect.py") + "\n" + edited),       # lightly edited test text
        record(train_ids[2], source("heapq.py")),                         # clean
        record(train_ids[3], LICENSE_HEADER + source("colorsys.py")),     # shares only boilerplate
        record(train_ids[4], "# " + question.title() + ".\n" + source("fnmatch.py")),  # an eval-file item
        record(train_ids[5], source("graphlib.py")),                      # clean
    ]
    write_records(tmp_path / "src" / "part-00000.jsonl.zst", docs[:4])
    write_records(tmp_path / "src" / "part-00001.jsonl.zst", docs[4:])
    # an extra evaluation set: one real item plus many items sharing a licence header
    items = [{"text": question, "id": "q-difflib"}]
    items += [{"text": LICENSE_HEADER + f"def task_{i}(x):\n    return x * {i} + {i * 7}\n", "id": f"boiler-{i}"}
              for i in range(12)]
    write_records(tmp_path / "evals.jsonl", items)
    return tmp_path, test_ids, train_ids


def _params(tmp_path, **extra):
    return {"decontaminate": {"test_split": "test", "eval_files": [str(tmp_path / "evals.jsonl")], **extra},
            "assemble": {"splits": {"train": 0.96, "validation": 0.02, "test": 0.02}}}


def test_verbatim_and_edited_eval_text_is_dropped_and_reported(dataset):
    root, test_ids, train = dataset
    ledger = run_local(DECONTAMINATE, root / "src", root / "out", _params(root))
    kept = {r["meta"]["id"] for r in kept_records(root / "out")}
    assert kept == {*test_ids, train[2], train[3], train[5]}
    assert ledger["dropped"] == {"contaminated": 3}
    report = read_json(root / "out" / REPORT)
    by_id = {m["id"]: m for m in report["matches"]}
    assert set(by_id) == {train[0], train[1], train[4]}
    assert by_id[train[0]]["items"] == [f"test:{test_ids[0]}"]
    assert by_id[train[1]]["items"] == [f"test:{test_ids[1]}"]
    assert by_id[train[4]]["items"] == ["evals.jsonl:q-difflib"]
    assert len(by_id[train[4]]["example"].split()) == 13
    assert report["test_split_items"] == 2 and report["eval_items"] == 15
    assert report["ignored_in_notices"] > 12 * 50  # the licence header's n-grams, in each item
    assert report["items_by_source"] == {str(root / "evals.jsonl"): 13, "test split": 2}
    assert ledger["contamination"]["documents_matched"] == 3
    rejects = {r["meta"]["id"]: r["meta"] for r in read_folder(root / "out" / "rejects")}
    assert rejects[train[0]]["reason"] == "contaminated"


def test_flag_mode_keeps_and_marks(dataset):
    root, _, train = dataset
    ledger = run_local(DECONTAMINATE, root / "src", root / "flag", _params(root, action="flag"))
    assert ledger["kept"] == ledger["input"] == 8
    assert ledger["changed"] == {"contamination_flagged": 3}
    flagged = {r["meta"]["id"] for r in kept_records(root / "flag") if "contamination" in r["meta"]}
    assert flagged == {train[0], train[1], train[4]}


def test_min_matches_and_boilerplate_threshold(dataset):
    root, _, train = dataset
    strict = run_local(DECONTAMINATE, root / "src", root / "strict", _params(root, min_matches=500))
    assert strict["dropped"] == {"contaminated": 2}  # the benchmark item needs 500 n-grams now
    stricter = run_local(DECONTAMINATE, root / "src", root / "stricter", _params(root, min_matches=500, own_min_share=1.0))
    assert stricter["dropped"] == {}
    loose = run_local(DECONTAMINATE, root / "src", root / "loose", _params(root, max_item_frequency=100))
    assert train[3] not in {r["meta"]["id"] for r in read_folder(root / "loose" / "rejects")}  # a notice
    looser = run_local(DECONTAMINATE, root / "src", root / "looser", _params(root, max_item_frequency=100, notices=False))
    rejected = {r["meta"]["id"] for r in read_folder(root / "looser" / "rejects")}
    assert train[3] in rejected  # with notices and boilerplate counted, a shared licence header matches
    assert looser["dropped"]["contaminated"] == loose["dropped"]["contaminated"] + 1


def test_same_bytes_for_one_or_two_workers(dataset):
    root, _, _ = dataset
    run_local(DECONTAMINATE, root / "src", root / "w1", _params(root), workers=1)
    run_local(DECONTAMINATE, root / "src", root / "w2", _params(root), workers=2)
    files = sorted(p.relative_to(root / "w1") for p in (root / "w1").rglob("*") if p.is_file())
    assert files and files == sorted(p.relative_to(root / "w2") for p in (root / "w2").rglob("*") if p.is_file())
    for rel in files:
        assert (root / "w1" / rel).read_bytes() == (root / "w2" / rel).read_bytes(), rel


def _boilerplate(prefix: str) -> tuple[list[dict], list[str], dict]:
    """A test document, four training documents sharing its banner, and one sharing its body;
    params under which the banner (in four training documents) is boilerplate."""
    test_id, *train = _ids("test", 1, prefix) + _ids("train", 5, prefix)
    banner = "\n".join(source("shlex.py").splitlines()[60:75]) + "\n"
    chunk = "\n".join(source("sched.py").splitlines()[40:160])
    docs = [record(test_id, banner + source("textwrap.py")[:3000] + chunk)]
    docs += [record(doc_id, banner + source(name)) for doc_id, name in zip(train[:4], MODULES[8:12])]
    docs += [record(train[4], source("csv.py") + chunk)]
    params = {"decontaminate": {"test_split": "test", "max_train_documents": 3, "own_min_share": 0.0,
                                "own_min_ngrams": 1}}
    return docs, train, params


def test_ngrams_common_in_training_are_boilerplate(tmp_path):
    """A snippet shared by many training files is boilerplate even outside a licence notice."""
    docs, train, params = _boilerplate("h")
    write_records(tmp_path / "src" / "part-00000.jsonl.zst", docs)
    ledger = run_local(DECONTAMINATE, tmp_path / "src", tmp_path / "out", params)
    assert {r["meta"]["id"] for r in read_folder(tmp_path / "out" / "rejects")} == {train[4]}
    assert ledger["contamination"]["ignored_common_in_train"] > 50
    # with a higher cap the shared snippet counts as overlap again
    params["decontaminate"]["max_train_documents"] = 10
    loose = run_local(DECONTAMINATE, tmp_path / "src", tmp_path / "loose", params)
    assert loose["dropped"] == {"contaminated": 5}


def test_short_items_match_whole_and_tiny_items_are_skipped(tmp_path):
    train = _ids("train", 2, "s")
    item = "What is the capital city of the Republic of Iceland"  # 10 words, shorter than 13
    write_records(tmp_path / "src" / "part-00000.jsonl", [
        record(train[0], source("bisect.py") + f"\n# Q: {item.lower()}?\n"),
        record(train[1], source("heapq.py") + "\n# the capital city of the republic\n"),
    ])
    write_records(tmp_path / "evals.jsonl", [{"text": item, "id": "short"}, {"text": "too short", "id": "tiny"}])
    ledger = run_local(DECONTAMINATE, tmp_path / "src", tmp_path / "out", _params(tmp_path))
    report = read_json(tmp_path / "out" / REPORT)
    assert [m["id"] for m in report["matches"]] == [train[0]]
    assert report["matches"][0]["example"] == item.lower()
    assert report["items_too_short"] == 1
    assert ledger["dropped"] == {"contaminated": 1}


def test_bad_config_is_reported(dataset):
    root, _, _ = dataset
    with pytest.raises(ConfigError, match="action"):
        run_local(DECONTAMINATE, root / "src", root / "x", {"decontaminate": {"action": "delete"}})
    with pytest.raises(ConfigError, match="does not exist"):
        run_local(DECONTAMINATE, root / "src", root / "x",
                  {"decontaminate": {"eval_files": [str(root / "missing.jsonl")]}})
    assert re.search("unknown", str(pytest.raises(ConfigError, run_local, DECONTAMINATE, root / "src", root / "x",
                                                  {"decontaminate": {"n": 13}}).value))


HF_HEADER = """# coding=utf-8
# Copyright 2025 The HuggingFace Team. All rights reserved.
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
\"\"\"Utilities of the example package.\"\"\"
"""


def test_a_licence_header_shared_by_an_organisations_files_does_not_flag(tmp_path):
    """One organisation's header on a test-split file and on a few training files: not leakage."""
    test_id, *train = _ids("test", 1, "o") + _ids("train", len(MODULES) - 1, "o")
    docs = [record(test_id, HF_HEADER + source(MODULES[0]))]
    docs += [record(doc_id, HF_HEADER + source(name)) for doc_id, name in zip(train, MODULES[1:])]
    write_records(tmp_path / "src" / "part-00000.jsonl.zst", docs)
    ledger = run_local(DECONTAMINATE, tmp_path / "src", tmp_path / "out", {"decontaminate": {"test_split": "test"}})
    assert ledger["dropped"] == {} and ledger["contamination"]["test_split_items"] == 1
    assert ledger["contamination"]["ignored_in_notices"] >= 10
    # the single-13-gram rule of before flags them all
    before = {"test_split": "test", "notices": False, "own_min_ngrams": 1, "own_min_share": 0.0,
              "max_train_documents": 100}
    flagged = run_local(DECONTAMINATE, tmp_path / "src", tmp_path / "before", {"decontaminate": before})
    assert flagged["dropped"] == {"contaminated": len(train)}


def test_json_escaped_markdown_and_html_pastes_flag(tmp_path):
    item = source("bisect.py").split("def bisect_left")[0].split("def insort_right")[1]
    item = "def insort_right" + item
    pasted = {
        "json": '{"text": ' + orjson.dumps(item).decode() + '}',
        "double": orjson.dumps({"dump": orjson.dumps({"code": item}).decode()}).decode(),
        "markdown": f"Answer:\n\n~~~python\n{item}\n~~~\n",
        "html": "<pre>" + html.escape(item) + "</pre>",
        "clean": source("heapq.py"),
    }
    train = _ids("train", len(pasted), "j")
    write_records(tmp_path / "src" / "part-00000.jsonl", [
        record(doc_id, source("colorsys.py") + "\n" + text) for doc_id, text in zip(train, pasted.values())])
    write_records(tmp_path / "items.jsonl", [{"text": item, "task_id": "bisect/insort"}])
    ledger = run_local(decontaminate_with(eval_files=[str(tmp_path / "items.jsonl")]), tmp_path / "src", tmp_path / "out", {})
    flagged = {r["meta"]["id"] for r in read_folder(tmp_path / "out" / "rejects")}
    assert flagged == set(train[:4])
    assert ledger["contamination"]["items_by_source"] == {str(tmp_path / "items.jsonl"): 1}


def test_eval_items_from_folders_and_their_ids(tmp_path):
    from quarry.curation.decontaminate.eval_sources import eval_items

    folder = tmp_path / "bench"
    (folder / "sub").mkdir(parents=True)
    lines = [{"id": "a", "text": "x"}, {"item_id": 7, "content": "y"}, {"task_id": "T/1", "prompt": "p", "canonical_solution": "s"},
             {"meta": {"id": "m"}, "text": "z"}, {"code": "w"}]
    (folder / "b.jsonl").write_text("".join(orjson.dumps(line).decode() + "\n" for line in lines))
    write_records(folder / "sub" / "c.jsonl.zst", [{"text": "zst item", "id": "c1"}])
    (folder / "sub" / "d.txt").write_text("a text item")
    (folder / "e.py").write_text("print('a source file')\n")
    found = list(eval_items(folder))
    assert found == [("bench/b.jsonl:a", "x"), ("bench/b.jsonl:7", "y"), ("bench/b.jsonl:T/1", "ps"),
                     ("bench/b.jsonl:m", "z"), ("bench/b.jsonl:line 5", "w"), ("bench/e.py", "print('a source file')\n"),
                     ("bench/sub/c.jsonl.zst:c1", "zst item"), ("bench/sub/d.txt", "a text item")]
    (folder / "bad.jsonl").write_text('{"question_id": 1}\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl:1: evaluation record has no text"):
        list(eval_items(folder / "bad.jsonl"))


def test_counts_summed_over_ranges_of_shards_find_the_same_boilerplate(tmp_path, monkeypatch):
    """How common an n-gram is in training is counted per range of shards, then summed: a
    snippet in four training documents of four shards is boilerplate whatever the ranges."""
    import quarry.stages.decontaminate as stage

    docs, train, params = _boilerplate("r")
    for i, doc in enumerate(docs):  # one document per shard
        write_records(tmp_path / "src" / f"part-{i:05d}.jsonl.zst", [doc])
    whole = run_local(DECONTAMINATE, tmp_path / "src", tmp_path / "whole", params)
    monkeypatch.setattr(stage, "SHARDS_PER_COUNT", 2)
    ranges = run_local(DECONTAMINATE, tmp_path / "src", tmp_path / "ranges", params, workers=2)
    assert whole == ranges and whole["contamination"]["ignored_common_in_train"] > 50
    assert {r["meta"]["id"] for r in read_folder(tmp_path / "ranges" / "rejects")} == {train[4]}

"""Recall of named benchmark items pasted into training documents in the shapes they take in the
wild, on a labeled set: real functions of the standard library as items, other modules as hosts,
and the same hosts without a paste as negatives."""

from __future__ import annotations

import ast
import html
import json
import re
import textwrap

import pytest

from dedup_corpus import source
from quarry.curation.decontaminate.overlap import REPORT
from quarry.engine import run_local
from quarry.records import read_json, write_records
from quarry.stages.decontaminate import DECONTAMINATE

ITEM_MODULES = ["textwrap.py", "difflib.py", "fnmatch.py", "shlex.py", "calendar.py", "fractions.py",
                "heapq.py", "colorsys.py", "graphlib.py", "sched.py", "bisect.py", "string.py", "statistics.py",
                "posixpath.py", "glob.py", "base64.py", "gettext.py"]
HOST_MODULES = ["json/decoder.py", "json/encoder.py", "csv.py", "tokenize.py", "queue.py", "numbers.py",
                "stringprep.py", "json/scanner.py"]


def benchmark_items(limit: int = 36) -> list[dict]:
    """Functions with a docstring and some code, HumanEval-sized (40 to 400 words)."""
    items = []
    for name in ITEM_MODULES:
        text = source(name)
        lines = text.splitlines(keepends=True)
        for node in ast.parse(text).body:
            if not isinstance(node, ast.FunctionDef) or ast.get_docstring(node) is None:
                continue
            segment = "".join(lines[node.lineno - 1:node.end_lineno]).rstrip("\n")
            words = len(re.findall(r"\w+", segment))
            body = node.body[1:]
            if 40 <= words <= 400 and body and len(re.findall(r"\w+", ast.unparse(body))) >= 20:
                items.append({"task_id": f"{name}/{node.name}", "prompt": segment, "name": node.name})
    return items[:limit]


def _without_docstring(code: str) -> str:
    return re.sub(r'(?s)\n(\s*)("""|\'\'\').*?\2\n', "\n", code, count=1)


VARIANTS = {
    "verbatim": lambda code, name: code,
    "reindented": lambda code, name: textwrap.indent(code.replace("    ", "  "), "\t"),
    "renamed": lambda code, name: re.sub(rf"\b{name}\b", "solve_task", code),
    "no_docstring": lambda code, name: _without_docstring(code),
    "truncated": lambda code, name: "\n".join(code.splitlines()[:max(4, len(code.splitlines()) * 6 // 10)]),
    "markdown": lambda code, name: f"Here is my answer:\n\n```python\n{code}\n```\n\nHope it helps.\n",
    "html": lambda code, name: f"<p>Solution</p>\n<pre><code class=\"python\">{html.escape(code)}</code></pre>\n",
    "jsonl_dump": lambda code, name: json.dumps({"messages": [{"role": "assistant", "content": code}]}),
}


def _host(i: int) -> str:
    lines = source(HOST_MODULES[i % len(HOST_MODULES)]).splitlines()
    start = (i * 37) % max(1, len(lines) - 80)
    return "\n".join(lines[start:start + 80])


@pytest.fixture(scope="module")
def labeled(tmp_path_factory):
    root = tmp_path_factory.mktemp("recall")
    items = benchmark_items()
    assert len(items) >= 30
    (root / "humaneval_like.jsonl").write_text("".join(
        json.dumps({"task_id": i["task_id"], "prompt": i["prompt"]}) + "\n" for i in items))
    docs, truth = [], {}
    for n, item in enumerate(items):
        for kind, make in VARIANTS.items():
            doc_id = f"{kind}-{n}"
            host = _host(len(docs))
            half = len(host) // 2
            text = host[:half] + "\n" + make(item["prompt"], item["name"]) + "\n" + host[half:]
            docs.append({"text": text, "meta": {"id": doc_id, "path": f"{doc_id}.txt"}})
            truth[doc_id] = (kind, item["task_id"])
    negatives = [{"text": _host(i), "meta": {"id": f"clean-{i}", "path": "clean.py"}} for i in range(40)]
    write_records(root / "src" / "part-00000.jsonl.zst", docs[: len(docs) // 2])
    write_records(root / "src" / "part-00001.jsonl.zst", docs[len(docs) // 2:] + negatives)
    ledger = run_local(DECONTAMINATE, root / "src", root / "out", {"decontaminate": {"eval_files": [str(root / "humaneval_like.jsonl")]}}, workers=2)
    return read_json(root / "out" / REPORT), truth, ledger


def test_recall_on_pasted_benchmark_items(labeled):
    report, truth, _ = labeled
    found = {m["id"]: m for m in report["matches"]}
    missed = sorted(doc for doc in truth if doc not in found)
    recall = 1 - len(missed) / len(truth)
    assert recall >= 0.975, f"recall {recall:.3f}; missed {missed}"
    for kind in VARIANTS:  # every shape is caught, not only the easy ones
        shape = [doc for doc, (k, _) in truth.items() if k == kind]
        assert sum(doc in found for doc in shape) >= 0.9 * len(shape), kind
    for doc, match in found.items():  # and it is the pasted item that is named
        if doc in truth:
            assert f"humaneval_like.jsonl:{truth[doc][1]}" in match["items"], doc


def test_no_clean_document_is_flagged(labeled):
    report, _, ledger = labeled
    assert not [m["id"] for m in report["matches"] if m["id"].startswith("clean-")]
    assert report["items_by_source"] == {next(iter(report["eval_files"])): report["eval_items"]}
    assert report["test_split_items"] == 0  # own-split mode is off unless asked
    assert ledger["dropped"]["contaminated"] == len(report["matches"])

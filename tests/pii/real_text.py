"""Real text the project did not write: excerpts of config files, docs and test fixtures shipped
by installed packages and the machine's own (real_text/, each with its source path and lines in
real_text/labels.json), with hand-checked findings.

Each entry names what must be redacted (``findings``: a value and its type; every occurrence in
the excerpt counts) and what must stay (``intact``: look-alikes, hard negatives); an entry with
neither says the excerpt holds nothing to redact. Loaded as labelled documents of the same
format as labeled.py's, each with its ``class``.
"""

from __future__ import annotations

import json
from pathlib import Path

REAL_TEXT = Path(__file__).with_name("real_text")


def _occurrences(text: str, value: str):
    at = text.find(value)
    while at >= 0:
        yield at, at + len(value)
        at = text.find(value, at + len(value))


def load_real_text(folder: Path = REAL_TEXT) -> list[dict]:
    documents = []
    for entry in json.loads((folder / "labels.json").read_text(encoding="utf-8")):
        text = (folder / entry["fixture"]).read_text(encoding="utf-8")
        spans = [{"start": s, "end": e, "type": f["type"], "kind": entry["class"]}
                 for f in entry["findings"] for s, e in _occurrences(text, f["value"])]
        negatives = [{"start": s, "end": e, "kind": entry["class"]}
                     for value in entry["intact"] for s, e in _occurrences(text, value)]
        documents.append({"id": entry["fixture"], "class": entry["class"], "source": entry["source"],
                          "text": text, "spans": spans, "negatives": negatives})
    return documents


def by_class(documents: list[dict]) -> dict[str, list[dict]]:
    classes: dict[str, list[dict]] = {}
    for doc in documents:
        classes.setdefault(doc["class"], []).append(doc)
    return dict(sorted(classes.items()))

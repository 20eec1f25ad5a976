"""Real text the rules were not written against (real_text.py): hand-checked findings per class."""

import pytest

from quarry.curation.pii import detect
from pii_scoring import CATEGORY, summary
from real_text import REAL_TEXT, by_class, load_real_text

DOCUMENTS = load_real_text()
CLASSES = by_class(DOCUMENTS)


def _predict(doc):
    return [(f.start, f.end, CATEGORY[f.type]) for f in detect(doc["text"])]


def test_every_label_points_into_its_excerpt():
    assert len(DOCUMENTS) >= 40 and len(CLASSES) >= 6
    for doc in DOCUMENTS:
        assert (REAL_TEXT / doc["id"]).is_file() and doc["source"].startswith(("/", "<python3.11>"))
        for span in doc["spans"] + doc["negatives"]:
            assert 0 <= span["start"] < span["end"] <= len(doc["text"])
    assert sum(len(d["spans"]) for d in DOCUMENTS) >= 30 and sum(len(d["negatives"]) for d in DOCUMENTS) >= 30


@pytest.mark.parametrize("name", ["code_reference", "identifier", "placeholder", "version"])
def test_classes_with_nothing_to_redact_stay_whole(name):
    found = {doc["id"]: [doc["text"][s:e] for s, e, _ in _predict(doc)] for doc in CLASSES[name]}
    assert {k: v for k, v in found.items() if v} == {}


def test_keyed_secrets_and_addresses_are_redacted():
    for name, most_left in (("keyed_secret", 0.2), ("ip_address", 0.2)):
        result = summary(CLASSES[name], _predict)
        assert result["precision"] == 1.0 and result["leak_rate"] <= most_left, (name, result)


def test_goals_over_the_whole_set():
    result = summary(DOCUMENTS, _predict)
    assert result["precision"] >= 0.98 and result["hard_negatives_intact"] >= 0.99, result

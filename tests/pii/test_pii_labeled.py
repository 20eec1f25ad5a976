"""The labeled set is deterministic and the detectors meet the stated goals on a fresh seed."""

from quarry.curation.pii import detect
from pii_scoring import CATEGORY, score, survival
from labeled import build_labeled_set


def test_labeled_set_is_seeded_and_spans_point_at_their_values():
    a, b = build_labeled_set(40, seed=11), build_labeled_set(40, seed=11)
    assert a == b and a != build_labeled_set(40, seed=12)
    assert sum(len(d["spans"]) for d in a) > 40 and sum(len(d["negatives"]) for d in a) > 80
    for doc in a:
        for span in doc["spans"]:
            assert 0 <= span["start"] < span["end"] <= len(doc["text"])


def test_precision_and_recall_goals_on_unseen_seed():
    docs = build_labeled_set(250, seed=2024)
    result = score(docs, lambda d: [(f.start, f.end, CATEGORY[f.type]) for f in detect(d["text"])])
    assert result["known_shape_recall"] >= 0.97
    for category in ("CREDENTIAL", "EMAIL"):
        assert result["by_type"][category]["recall"] >= 0.97, result["by_type"][category]
        assert result["by_type"][category]["precision"] >= 0.95, result["by_type"][category]
    for category in ("IP_ADDRESS", "CARD", "PHONE"):
        assert result["by_type"][category]["precision"] >= 0.9, result["by_type"][category]


def test_scorer_counts_misses_and_false_alarms():
    doc = {"text": "a jane@acme-corp.io b", "spans": [{"start": 2, "end": 19, "type": "EMAIL", "kind": "email"}]}
    perfect = score([doc], lambda d: [(2, 19, "EMAIL")])
    assert perfect["by_type"]["EMAIL"] == {"tp": 1, "fp": 0, "fn": 0, "precision": 1.0, "recall": 1.0}
    wrong = score([doc], lambda d: [(0, 1, "EMAIL"), (2, 19, "PHONE")])
    assert wrong["by_type"]["EMAIL"] == {"tp": 0, "fp": 1, "fn": 1, "precision": 0.0, "recall": 0.0}
    assert wrong["by_type"]["PHONE"]["fp"] == 1


def test_redaction_leaves_almost_no_planted_value_on_unseen_seed():
    docs = build_labeled_set(250, seed=2024)
    result = survival(docs, lambda d: [(f.start, f.end) for f in detect(d["text"])])
    assert result["known_shape_survived"] == 0, result
    assert result["survival_rate"] <= 0.005, result


def test_survival_counts_a_value_left_in_part():
    doc = {"text": "pw=abc;def", "spans": [{"start": 3, "end": 10, "type": "PASSWORD", "kind": "password_assignment"}]}
    assert survival([doc], lambda d: [(3, 10)])["survived"] == 0
    assert survival([doc], lambda d: [(3, 6)])["survived"] == 1
    assert survival([doc], lambda d: [(3, 6), (6, 10)])["survived"] == 0


def test_template_halves_are_fixed_disjoint_and_both_score():
    from template_split import DEV, HELD_BACK, line_key, snippet_key, template_half

    assert template_half(line_key("YAML", "password_assignment")) == template_half(line_key("YAML", "password_assignment"))
    keys = {line_key(style, kind) for style in ("Python", "YAML", "dotenv", "JSON") for kind in ("email", "ipv4", "jwt")}
    assert {template_half(k) for k in keys} == {DEV, HELD_BACK}
    assert snippet_key("dotenv", ["A=", "x1"]) == snippet_key("dotenv", ["B=", "y22"])  # words fold
    dev, held = build_labeled_set(60, seed=5, half=DEV), build_labeled_set(60, seed=5, half=HELD_BACK)
    assert dev != held and build_labeled_set(60, seed=5) == build_labeled_set(60, seed=5, half=None)
    for docs in (dev, held):
        assert sum(len(d["spans"]) for d in docs) > 120 and sum(len(d["negatives"]) for d in docs) > 120


def test_held_back_half_meets_the_goals():
    from pii_scoring import summary
    from template_split import HELD_BACK

    result = summary(build_labeled_set(250, seed=2025, half=HELD_BACK),
                     lambda d: [(f.start, f.end, CATEGORY[f.type]) for f in detect(d["text"])])
    assert result["leak_rate"] <= 0.005 and result["precision"] >= 0.98, result
    assert result["hard_negatives_intact"] >= 0.99, result


def test_intact_counts_a_touched_negative():
    from pii_scoring import intact

    doc = {"text": "v 4.20.1.99 x", "spans": [], "negatives": [{"start": 2, "end": 11, "kind": "version"}]}
    assert intact([doc], lambda d: [])["intact_rate"] == 1.0
    assert intact([doc], lambda d: [(5, 6)])["intact_by_kind"] == {"version": 0.0}

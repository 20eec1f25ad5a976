"""Precision and recall of a detector on a labeled set (labeled.py beside it), by type and by kind.

A prediction is ``(start, end, category)``. It is correct when it overlaps a labeled span of the
same category; a labeled span is found when some prediction of its category overlaps it. KEY and
PASSWORD are scored together as CREDENTIAL, since tools disagree on which a credential is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from labeled import KNOWN_SHAPE_KINDS

CATEGORY = {"KEY": "CREDENTIAL", "PASSWORD": "CREDENTIAL", "EMAIL": "EMAIL", "IP_ADDRESS": "IP_ADDRESS",
            "PHONE": "PHONE", "CARD": "CARD"}
# Labels other sets use for the same things.
_ALIASES = {"SECRET": "CREDENTIAL", "TOKEN": "CREDENTIAL", "API_KEY": "CREDENTIAL", "CREDENTIAL": "CREDENTIAL",
            "PRIVATE_KEY": "CREDENTIAL", "EMAIL_ADDRESS": "EMAIL", "IP": "IP_ADDRESS", "IPV4": "IP_ADDRESS",
            "IPV6": "IP_ADDRESS", "PHONE_NUMBER": "PHONE", "CREDIT_CARD": "CARD", "PAYMENT_CARD": "CARD"}


def category_of(label: str) -> str:
    """The scoring category of a label; an unknown label stays its own category."""
    label = label.upper()
    return CATEGORY.get(label) or _ALIASES.get(label, label)
Prediction = tuple[int, int, str]


def _overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    return a_start < b_end and b_start < a_end


def score(documents: Iterable[dict], predict: Callable[[dict], list[Prediction]],
          categories: Iterable[str] | None = None) -> dict:
    """Per category: tp / fp / fn / precision / recall; per labeled kind: recall; plus the
    aggregate over known-shape credentials. ``categories`` limits scoring to what a tool covers."""
    wanted = set(categories or CATEGORY.values())
    pred_ok, pred_all, gold_found, gold_all = Counter(), Counter(), Counter(), Counter()
    kind_found, kind_all = Counter(), Counter()
    for doc in documents:
        predictions = [p for p in predict(doc) if p[2] in wanted]
        gold = [(s["start"], s["end"], category_of(s["type"]), s.get("kind", s["type"])) for s in doc["spans"]]
        gold = [g for g in gold if g[2] in wanted]
        for start, end, category in predictions:
            pred_all[category] += 1
            if any(g[2] == category and _overlaps(start, end, g[0], g[1]) for g in gold):
                pred_ok[category] += 1
        for start, end, category, kind in gold:
            found = any(p[2] == category and _overlaps(start, end, p[0], p[1]) for p in predictions)
            gold_all[category] += 1
            kind_all[kind] += 1
            gold_found[category] += found
            kind_found[kind] += found
    by_category = {}
    for category in sorted(wanted):
        tp, n_pred, n_gold = pred_ok[category], pred_all[category], gold_all[category]
        by_category[category] = {
            "tp": tp, "fp": n_pred - tp, "fn": n_gold - gold_found[category],
            "precision": round(tp / n_pred, 4) if n_pred else None,
            "recall": round(gold_found[category] / n_gold, 4) if n_gold else None,
        }
    known = [k for k in kind_all if k in KNOWN_SHAPE_KINDS]
    known_total = sum(kind_all[k] for k in known)
    return {
        "by_type": by_category,
        "recall_by_kind": {k: round(kind_found[k] / kind_all[k], 4) for k in sorted(kind_all)},
        "known_shape_recall": round(sum(kind_found[k] for k in known) / known_total, 4) if known_total else None,
    }


def survival(documents: Iterable[dict], redact_spans: Callable[[dict], list[tuple[int, int]]]) -> dict:
    """Share of planted values that redaction leaves (wholly or in part) in the text: a value
    survives unless the spans that redaction replaces cover every one of its characters.
    Overall, per kind, and over the known-shape kinds."""
    survived, total = Counter(), Counter()
    for doc in documents:
        covered = sorted(redact_spans(doc))
        for span in doc["spans"]:
            kind = span.get("kind", span["type"])
            total[kind] += 1
            survived[kind] += not _covers(covered, span["start"], span["end"])
    known = [k for k in total if k in KNOWN_SHAPE_KINDS]
    n_all = sum(total.values())
    return {
        "survived": sum(survived.values()), "planted": n_all,
        "survival_rate": round(sum(survived.values()) / n_all, 4) if n_all else None,
        "known_shape_survived": sum(survived[k] for k in known),
        "survival_by_kind": {k: round(survived[k] / total[k], 4) for k in sorted(total) if survived[k]},
    }


def _covers(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Do the sorted spans cover [start, end) without a gap?"""
    cursor = start
    for s, e in spans:
        if s > cursor:
            break
        cursor = max(cursor, e)
        if cursor >= end:
            return True
    return cursor >= end


def intact(documents: Iterable[dict], redact_spans: Callable[[dict], list[tuple[int, int]]]) -> dict:
    """Share of hard negatives (look-alikes that must stay) that no redacted span touches, overall
    and per kind."""
    kept, total = Counter(), Counter()
    for doc in documents:
        spans = redact_spans(doc)
        for negative in doc.get("negatives", []):
            total[negative["kind"]] += 1
            kept[negative["kind"]] += not any(_overlaps(s, e, negative["start"], negative["end"]) for s, e in spans)
    n_all = sum(total.values())
    return {"hard_negatives": n_all, "intact": sum(kept.values()),
            "intact_rate": round(sum(kept.values()) / n_all, 4) if n_all else None,
            "intact_by_kind": {k: round(kept[k] / total[k], 4) for k in sorted(total)}}


def summary(documents: list[dict], predict: Callable[[dict], list[Prediction]]) -> dict:
    """What a labelled set says of a detector in one row: precision and recall per type, the
    share of planted values redaction leaves, the share of hard negatives it leaves intact."""
    spans = lambda doc: [(start, end) for start, end, _ in predict(doc)]  # noqa: E731
    scored, left, kept = score(documents, predict), survival(documents, spans), intact(documents, spans)
    rows = scored["by_type"].values()
    tp, fp, fn = (sum(row[k] for row in rows) for k in ("tp", "fp", "fn"))
    return {"documents": len(documents), "planted": left["planted"], "leak_rate": left["survival_rate"],
            "precision": round(tp / (tp + fp), 4) if tp + fp else None,
            "recall": round(tp / (tp + fn), 4) if tp + fn else None, "by_type": scored["by_type"], "survival_by_kind": left["survival_by_kind"],
            "hard_negatives": kept["hard_negatives"], "hard_negatives_intact": kept["intact_rate"],
            "intact_by_kind": kept["intact_by_kind"]}

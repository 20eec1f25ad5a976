"""The one check every table of signatures passes in its tests: a form is looked for only where
one of its literals occurs, so every match of a form must hold one of them."""

from __future__ import annotations


def forms_hold_their_literals(tables: dict, texts: list[str]) -> tuple[int, int]:
    """Assert that every match of every form in ``tables`` over ``texts`` holds one of the form's
    literals; return how many kinds of form matched somewhere and how many there are (a check that
    reads few of them reads little)."""
    kinds, matched = 0, set()
    for name, signature in tables.items():
        for kind, form in signature.forms.items():
            kinds += 1
            for text in texts:
                for match in form.pattern.finditer(text):
                    assert any(literal in match.group() for literal in form.literals), (name, kind, match.group())
                    matched.add((name, kind))
    return len(matched), kinds

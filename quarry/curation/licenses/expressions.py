"""License expressions in one canonical form, and parts of them set aside.

``canonical`` flattens nested operators of one kind, removes repeated terms and sorts what is
left, so one set of licenses reads one way: ``(BSD-3-Clause AND BSD-2-Clause) AND BSD-3-Clause``
is ``BSD-2-Clause AND BSD-3-Clause``, and ``(A OR B) AND A`` is ``A``. Across AND, ``X-only``
and ``X-or-later`` fold into one: the stricter ``X-only`` when both were stated, ``X-or-later``
when the ``-only`` rests on nothing but the license's own text (the text of version X grants no
"only": a notice says which versions); of one family's ``-or-later`` terms the latest version's.
``without`` removes terms of an AND (never of an OR, which would narrow a choice).
"""

from __future__ import annotations

import re

from license_expression import AND, OR, LicenseSymbol, LicenseWithExceptionSymbol

from quarry.curation.licenses.policy import leaf_keys, parse

_ONLY = re.compile(r"^(.*)-only$")
_OR_LATER = re.compile(r"^(.+)-(\d+(?:\.\d+)*)-or-later$")


def _key(node) -> str | None:
    if isinstance(node, LicenseWithExceptionSymbol):
        return None  # an exception makes a term of its own
    return node.key if isinstance(node, LicenseSymbol) else None


def _render(node) -> str:
    if isinstance(node, (LicenseSymbol, LicenseWithExceptionSymbol)):
        return str(node)
    return f"({node})"


def _wider_ranges(keys: dict[str, str]) -> list[str]:
    """Of one family's "-or-later" terms across AND, all but the latest version's: both hold only
    from the later version on (``GPL-1.0-or-later AND GPL-2.0-or-later`` is ``GPL-2.0-or-later``;
    ScanCode's GPL-1.0-or-later is "the GPL" named with no version, beside a notice that names one)."""
    latest: dict[str, tuple[tuple[int, ...], str]] = {}
    wider = []
    for key, text in keys.items():
        if not (match := _OR_LATER.match(key)):
            continue
        version = tuple(int(n) for n in match.group(2).split("."))
        family = match.group(1)
        if family in latest:
            wider.append(min(latest[family], (version, text))[1])
            version, text = max(latest[family], (version, text))
        latest[family] = (version, text)
    return wider


def _canonical(node, text_only: frozenset[str]):
    if isinstance(node, (LicenseSymbol, LicenseWithExceptionSymbol)):
        return node
    kind = type(node)
    args: dict[str, object] = {}
    for arg in node.args:
        arg = _canonical(arg, text_only)
        for part in (arg.args if type(arg) is kind else (arg,)):
            args.setdefault(str(part), part)
    if kind is AND:
        keys = {_key(a): text for text, a in args.items() if _key(a)}
        for key, text in list(keys.items()):
            match = _ONLY.match(key)
            later = f"{match.group(1)}-or-later" if match else None
            if later in keys:
                drop = text if key in text_only and later not in text_only else keys[later]
                args.pop(drop, None)
        for text in _wider_ranges(keys):
            args.pop(text, None)
    other = OR if kind is AND else AND
    terms = {text for text, a in args.items() if type(a) is not other}
    for text, a in list(args.items()):  # absorption: (A OR B) AND A is A; (A AND B) OR A is A
        if type(a) is other and terms & {str(part) for part in a.args}:
            del args[text]
    parts = [args[text] for text in sorted(args)]
    return parts[0] if len(parts) == 1 else kind(*parts)


def canonical(expression: str | None, text_only: frozenset[str] = frozenset()) -> str | None:
    """The canonical form (module docstring); ``text_only``: ids known only from their own text."""
    if not expression:
        return expression
    node = _canonical(parse(expression), text_only)
    if isinstance(node, (LicenseSymbol, LicenseWithExceptionSymbol)):
        return str(node)
    return f" {'AND' if isinstance(node, AND) else 'OR'} ".join(_render(a) for a in node.args)


def without(expression: str, keys: set[str]) -> str:
    """``expression`` less the AND terms made only of ``keys`` (the whole of it when nothing else is left)."""
    node = parse(expression)
    if not isinstance(node, AND):
        return expression
    kept = [a for a in node.args if not set(leaf_keys(str(a))) <= keys]
    if not kept or len(kept) == len(node.args):
        return expression
    return canonical(" AND ".join(_render(a) for a in kept))



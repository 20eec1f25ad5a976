"""What a notice says beyond the licenses it names: a choice between license files, a clause for
documentation only, a reservation of rights with no grant.

Plain text rules, no ScanCode: they decide how the findings of several texts combine, not which
licenses the texts are.
"""

from __future__ import annotations

import re

from quarry.curation.licenses.sources import GRANT_WORDS

# "under either of", "at your option", "dual-licensed", "choose": the reader picks one of the
# licenses. The GPL family's "version 2, or (at your option) any later version" is a version range,
# not a choice.
_CHOICE = re.compile(r"\bat (your|the licensee'?s?|the user'?s?|their) (own )?(option|choice|discretion)\b"
                     r"(?=\s*[.,;)]|[^.]{0,60}licen[cs])|"
                     r"\b(under|licensed|licensable|available|distributed|use[ds]?( it)?|redistribute[ds]?( it)?)"
                     r" (under )?(the terms (and conditions )?of )?either\b(?! this licen)|"
                     r"\bchoose\b[^.]{0,80}\blicen[cs]|\blicen[cs]e[ds]?\b[^.]{0,80}\b(you|user) (may|can) choose\b|"
                     r"\beither of (the )?(following |these |those |two |both )?licen[cs]es\b|\bdual[- ]licen[cs]|"
                     r"\b(your )?choice of (the following |either |one of )?(the )?licen[cs]es?\b|"
                     r"\bone of the following licen[cs]es\b|\b(multi|tri)[- ]licen[cs]ed\b", re.I)
_VERSION_RANGE = re.compile(r"\(?\s*at your option\s*\)?,?\s*(any )?(later|newer|subsequent) version|"
                            r"\beither version [\d.]+( of the license)?,? or\b", re.I)


_EMPHASIS = re.compile(r"(?<![\w*_`])[*_`]+(?=\w)|(?<=\w)[*_`]+(?![\w*_`])")


def plain(text: str) -> str:
    """Markdown emphasis and code marks dropped: "*either* of" reads "either of"."""
    return _EMPHASIS.sub("", text)


def has_choice(text: str) -> bool:
    """Words of choice between licenses (not between versions of one license)."""
    return bool(_CHOICE.search(_VERSION_RANGE.sub(" ", plain(text))))


# A sentence that licenses the documentation, not the code.
_DOCS = re.compile(r"\b(documentation|docs?|manual|handbook)\b[^.]{0,160}\b(is|are)\b[^.]{0,30}"
                   r"\b(licen[cs]ed|released|available|distributed|covered|provided|published|supplied|offered)\b"
                   r"[^.]{0,60}\bunder\b|\bunder\b[^.]{0,120}\bfor (the |all )?(documentation|docs)\b", re.I)
_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")

# Rights reserved with no grant: "strong" marks a file proprietary even under an ancestor's license;
# "All rights reserved" alone is the boilerplate of many BSD/MIT copyright lines, proprietary only
# when nothing grants rights.
_STRONG = re.compile(r"\b(confidential|(is|are) (the )?proprietary|proprietary (and|&) confidential|"
                     r"proprietary (software|code|information|property|work|material)s? of|"
                     r"unauthori[sz]ed (copying|use|reproduction|distribution)|strictly prohibited|"
                     r"internal use only|not for (public )?(re)?distribution|"
                     r"may not be (copied|distributed|reproduced))\b", re.I)
_WEAK = re.compile(r"\ball rights reserved\b", re.I)
# Words that grant rights: "All Rights Reserved" above "Permission to use, copy, modify ... is hereby
# granted" (X11's and the HPND family's notices, whose variants ScanCode may not name) reserves nothing
# (a header's grant words, and a grant's other verbs: HP's "Permission to use, duplicate, change")
_GRANT = re.compile(rf"{GRANT_WORDS}|permission to (?:use|copy|modify|distribute)|(?:are|is) permitted|"
                    r"licen[cs]ed under", re.I)
STRONG, WEAK = "strong", "weak"


def _named(name: str, lowered: str) -> re.Match | None:
    return re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-]|\.\w)", lowered)


def offers_choice(text: str, names: list[str]) -> list[str]:
    """The sibling license files (of ``names``) that a notice offers as alternatives: at least two,
    named in the text, with words of choice around them, or two of them joined by "or" in a
    sentence about licensing ("under LICENSE.APACHE2 or LICENSE.MIT"). [] when it offers none."""
    lowered = plain(text).lower()
    named = [name for name in names if _named(name, lowered)]
    if len(named) < 2:
        return []
    if has_choice(text):
        return named
    joined = set()
    for sentence in re.split(r"(?<=[.;!?])\s+|\n\s*\n", lowered):
        hits = sorted((m.start(), m.end(), name) for name in named if (m := _named(name, sentence)))
        words = "".join(sentence[end:start] for (_, end, _), (start, _, _) in
                        zip([(0, 0, "")] + hits, hits + [(len(sentence), 0, "")]))
        if not re.search(r"licen[cs]|\bunder\b|\bterms\b", words):  # the file names aside
            continue
        for (_, end, a), (start, _, b) in zip(hits, hits[1:]):
            if re.fullmatch(r"[\s,()]*(\bor\b|/)[\s(]*(the )?", sentence[end:start]):
                joined |= {a, b}
    return sorted(joined) if len(joined) >= 2 else []


# A heading that opens a README's section about its license.
_LICENSE_HEADING = re.compile(r"^\s*(#{1,6}\s*|=+\s*|\*\*)?(licen[cs](e|es|ing)|copying|copyright( and licen[cs]e)?|"
                              r"legal)\b[\s:*#=]*$", re.I)
_HEADING = re.compile(r"^\s*#{1,6}\s+\S")
_RULE = re.compile(r"\s*[=\-~^*]{3,}\s*")


def license_passages(text: str, window: int = 2) -> list[str]:
    """The passages of a long text (a README) that offer a choice of licenses: its license
    sections, else each paragraph with words of choice and the paragraphs around it."""
    lines = text.splitlines()
    rule = [bool(_RULE.fullmatch(line)) for line in lines]
    sections, current = [], None
    for i, line in enumerate(lines):
        underlined = i + 1 < len(lines) and rule[i + 1] and bool(line.strip())
        if rule[i]:
            continue  # a heading's underline (or overline), no text of a section
        if _LICENSE_HEADING.match(line) and (line.lstrip().startswith(("#", "=", "*")) or underlined):
            current = []
            sections.append(current)
        elif current is not None and (_HEADING.match(line) or underlined):
            current = None  # the next section
        elif current is not None:
            current.append(line)
    passages = ["\n".join(section).strip() for section in sections]
    passages = [p for p in passages if p and has_choice(p)]
    if passages:
        return passages
    paragraphs = [p for p in _PARAGRAPH.split(text) if p.strip()]
    return ["\n\n".join(paragraphs[max(0, i - window):i + window + 1]) for i, p in enumerate(paragraphs)
            if has_choice(p) and re.search(r"licen[cs]", p, re.I)]


def split_docs_clause(text: str) -> tuple[str, str | None]:
    """(the text without its documentation clauses, those clauses) — clauses None when it has none."""
    if not _DOCS.search(text):
        return text, None
    kept, docs = [], []
    for paragraph in _PARAGRAPH.split(text):
        if not _DOCS.search(paragraph):
            kept.append(paragraph)
            continue
        for sentence in _SENTENCE.split(paragraph):
            (docs if _DOCS.search(sentence) else kept).append(sentence)
    main = "\n\n".join(part.strip() for part in kept if part.strip())
    return (main, "\n".join(docs)) if main else (text, None)


# A README's notice about itself: "Copying and distribution of this file, with or without modification,
# are permitted in any medium" (the FSF's all-permissive notice atop GNU READMEs), "Permission is granted
# to copy ... this document" (their GFDL notice). It licenses the README, not the project it describes:
# read as the project's, it governed grep's GPL files as FSFAP.
_SELF_GRANT = re.compile(r"\b(?:copying|distribution|redistribution|reproduction|use|copies|verbatim copies)\b"
                         r"[^.]{0,60}\bof this (?:file|document|readme|text|page|manual)\b|"
                         r"\b(?:copy|distribute|modify|reproduce)\b[^.]{0,40}\bthis (?:file|document|readme)\b"
                         r"(?! is part of)", re.I)
_PERMITS = re.compile(rf"{GRANT_WORDS}|\b(?:are|is) permitted\b|\bpermission\b", re.I)
# A paragraph that also speaks of the work is about the work: "This file is part of X", "this program"
_ABOUT_WORK = re.compile(r"\bis (?:a )?part of\b|\b(?:this|the|our|that) (?:program|software|library|package|"
                         r"project|source code)\b", re.I)


def about_itself(paragraph: str) -> bool:
    """Whether a paragraph grants rights to the text it stands in, and to nothing else."""
    return bool(_SELF_GRANT.search(paragraph) and _PERMITS.search(paragraph)) and \
        not _ABOUT_WORK.search(paragraph)


def without_self_notices(text: str) -> str:
    """A README or NOTICE without the paragraphs that license only the README itself ("" when
    nothing else is left)."""
    paragraphs = _PARAGRAPH.split(text)
    kept = [p for p in paragraphs if not about_itself(p)]
    return text if len(kept) == len(paragraphs) else "\n\n".join(p for p in kept if p.strip())


def rights_reserved(text: str | None) -> str | None:
    """STRONG, WEAK or None: how a text without a license grant reserves rights."""
    if not text:
        return None
    if _STRONG.search(text):
        return STRONG
    return WEAK if _WEAK.search(text) and not _GRANT.search(text) else None


_DOC_FOLDERS = {"doc", "docs", "documentation", "man", "manual", "manpages"}
_DOC_SUFFIX = re.compile(r"\.(md|markdown|rst|adoc|asciidoc|texi|texinfo|tex|txt|html?|[1-9])$", re.I)


def is_documentation(path: str) -> bool:
    """A file a documentation clause governs: under a docs folder, or prose by its extension."""
    parts = path.lower().split("/")
    return bool(_DOC_FOLDERS & set(parts[:-1])) or bool(_DOC_SUFFIX.search(parts[-1]) and
                                                         not parts[-1].startswith(("cmakelists", "requirements")))

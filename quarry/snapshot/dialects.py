"""Forms that only one language writes: evidence for languages that neither content model names.

Magika has one label for the whole Lisp family (trained on Common Lisp files) and none for Emacs
Lisp, Scheme, Meson or R's documentation, which it reads as the nearest language it knows (Lisp,
Python or Starlark, LaTeX). The token model has no class for them either. Each is told here by
the forms its own documentation prescribes and no near language writes:

- Emacs Lisp: a library's header line (``;;; name.el --- summary``) and footer (``;;; name.el
  ends here``), or the ``lexical-binding`` file variable (Emacs Lisp's own);
- Racket: the ``#lang`` line every module starts with;
- within Magika's Lisp: Scheme's, Emacs Lisp's and Common Lisp's own special forms, counted;
- Meson: the built-in ``meson`` object, its block ends (``endif``, ``endforeach``) and calls;
- Rd: the sections every R documentation file has (``\\name``, ``\\alias``, ``\\title``, ...).
"""

from __future__ import annotations

import re

EMACS_LISP = "EmacsLisp"
_EMACS_LISP_CONVENTIONS = re.compile(
    r"\A\s*;;;[ \t]+[\w.+-]+\.el[ \t]+---|^;;;[ \t]+[\w.+-]+\.el[ \t]+ends here|-\*-[^\n]*\blexical-binding:", re.M)
_RACKET_MODULE = re.compile(r"\A(?:;[^\n]*\n|\s)*#lang[ \t]+[\w/-]+")

# Special forms only one Lisp writes (a form opening a list); each counted once however often it occurs.
_LISP_FORMS = {
    "Scheme": re.compile(r"\((?:define[ \t]+\(|define-syntax\b|define-record-type\b|set![ \t]|let-values\b|"
                         r"call-with-current-continuation\b|call/cc\b|define-module\b|use-modules\b|import[ \t]+\()"
                         r"|(?<![\w#])#[tf](?![\w\\])"),
    EMACS_LISP: re.compile(r"\((?:defcustom|defgroup|defface|interactive|provide[ \t]+'|require[ \t]+'|add-hook[ \t]+'|"
                           r"define-key|global-set-key|setq-local|defvar-local|with-current-buffer|save-excursion|"
                           r"point-min|point-max|buffer-substring|define-minor-mode|define-derived-mode)\b"),
    "Common Lisp": re.compile(r"\((?:in-package|defpackage|defmethod|defclass|defgeneric|declaim|defparameter|"
                              r"defconstant|format[ \t]+t\b|asdf:|ql:quickload)\b"),
}

# Languages whose files a content model reads as a near one, by the forms only they write: (literals
# one of which a file of the language holds, the forms, how many different forms make it sure). The
# literals spare most records the forms' scan (a scan of every record cost 0.5 ms, Magika's 8).
_MESON_CALLS = ("executable(", "library(", "both_libraries(", "declare_dependency(", "custom_target(",
                "configure_file(", "install_")
_MESON_FORMS = re.compile(r"\bmeson\.\w+\(|^[ \t]*(?:endif|endforeach)[ \t]*(?:#.*)?$|^[ \t]*subdir\([ \t]*'"
                          r"|^project\([ \t]*'|\b(?:executable|shared_library|static_library|both_libraries|"
                          r"declare_dependency|custom_target|configure_file|install_headers|install_data)\(", re.M)
_RD_SECTIONS = re.compile(r"^\\(?:name|alias|title|description|usage|arguments|value|examples|seealso|keyword|"
                          r"docType|encoding)\{", re.M)
_SIGNATURES = {
    "Meson": (("meson.", "endif", "endforeach", "subdir(", "project(", *_MESON_CALLS), _MESON_FORMS, 2),
    "Rd": (("\\name{",), _RD_SECTIONS, 3),
}


def from_conventions(text: str) -> str | None:
    """A language its own file conventions name: Emacs Lisp's header, footer or file variable,
    Racket's ``#lang`` line. Read before any model, as a modeline is."""
    if ";;;" in text or "lexical-binding" in text:
        if _EMACS_LISP_CONVENTIONS.search(text):
            return EMACS_LISP
    if "#lang" in text[:4096] and _RACKET_MODULE.match(text):
        return "Racket"
    return None


def by_signature(text: str) -> str | None:
    """A language that neither content model knows, where enough of its own forms are present."""
    for language, (literals, forms, needed) in _SIGNATURES.items():
        if not any(literal in text for literal in literals):
            continue
        if _kinds(forms, text) >= needed:
            return language
    return None


def _kinds(forms: re.Pattern, text: str) -> int:
    """How many different forms of ``forms`` the text writes, whatever their arguments and
    spacing: `subdir('a'` and `subdir('b'` are one, `(define (f)` and `(define-syntax` two."""
    return len({re.split(r"[\s('{]", m.group().strip().lstrip("("), maxsplit=1)[0] or m.group()
                for m in forms.finditer(text)})


def lisp_dialect(text: str) -> str:
    """Which Lisp a file Magika reads as Lisp is written in: the dialect with the most of its own
    special forms, Common Lisp (what Magika's label was trained on) when none has more."""
    kinds = {dialect: _kinds(forms, text) for dialect, forms in _LISP_FORMS.items()}
    common = kinds["Common Lisp"]
    best = max(("Scheme", EMACS_LISP), key=lambda dialect: kinds[dialect])
    return best if kinds[best] > common else "Common Lisp"

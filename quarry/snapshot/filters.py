"""Ingestion filters: which files become records, and the reason for each one that does not.

Path rules run before a file is read (excluded paths, vendored ones when asked, binary extensions,
size); content rules after (NUL bytes, undecodable text, generated or minified code). Every refusal
has a reason and a kind (license, prose, code; before anything is read, what the name says) that
land in the manifest counts, the ledger and the rejects file.

Rules go by kind. Generated and minified are code rules: they apply to code and data, never to
prose, where a paragraph on one line is how text is written, not a sign of a build step. Sizes have
two caps: ``max_file_bytes`` for source files, ``max_document_bytes`` for prose and for the records
of corpora and tables (a book is a document, not an oversized source file).
"""

from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass

import charset_normalizer

from quarry.config.snapshot import SnapshotParams
from quarry.snapshot import language

BINARY_SNIFF = 8000
LICENSE_NAMES = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE|COPYRIGHT|UNLICENSE)([._-].*)?$", re.I)
PROSE_NAMES = re.compile(r"^(README|CHANGES|CHANGELOG|HISTORY|NEWS|CONTRIBUTING|AUTHORS|CONTRIBUTORS)([._-].*)?$"
                         r"|^(METADATA|PKG-INFO)$", re.I)
PROSE_KINDS = ("license", "prose")
PLAIN_TEXT = ("Text only",)   # no syntax at all: written text wherever it is (a book, notes, a log)


def matches_any(path: str, patterns: list[str]) -> bool:
    """Whether a glob matches ``path`` (posix, relative); `**/x` also matches `x` at the top."""
    return _glob_regex(tuple(patterns)).match(path) is not None


@functools.cache
def _glob_regex(patterns: tuple[str, ...]) -> re.Pattern:
    expanded = [p for pattern in patterns
                for p in ((pattern, pattern[3:]) if pattern.startswith("**/") else (pattern,))]
    if not expanded:
        return re.compile(r"(?!)")
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in expanded))


def folder_refusal(path: str, cfg: SnapshotParams) -> str | None:
    """Why a file or folder is refused from its path alone: an excluded or (opt-in) vendored path."""
    if matches_any(path, cfg.exclude):
        return "excluded_path"
    if cfg.exclude_vendored and matches_any(path, cfg.vendored):
        return "vendored_path"
    return None


def path_refusal(path: str, size: int, cfg: SnapshotParams) -> str | None:
    """Why a file is refused from its path and size alone (None: read it)."""
    if reason := folder_refusal(path, cfg):
        return reason
    suffix = path.rsplit("/", 1)[-1].rpartition(".")[2].lower()
    if "." in path.rsplit("/", 1)[-1] and suffix in cfg.binary_extensions:
        return "binary"
    if size > cfg.max_file_bytes and size > size_cap(name_kind(path, cfg), False, cfg):
        return "too_large"
    return None


def size_cap(kind: str, standalone: bool, cfg: SnapshotParams) -> int:
    """The most bytes a file may have: documents (a corpus's or table's records) and prose take
    the document cap, code and data the source-file cap."""
    return cfg.max_document_bytes if standalone or kind in PROSE_KINDS else cfg.max_file_bytes


def looks_binary(head: bytes) -> bool:
    return b"\0" in head[:BINARY_SNIFF]


@dataclass(frozen=True)
class Decoded:
    text: str | None
    encoding: str | None
    refusal: str | None = None


def decode(data: bytes) -> Decoded:
    """UTF-8 first, then the best charset guess; NUL bytes mean binary."""
    if looks_binary(data):
        return Decoded(None, None, "binary")
    try:
        if data.startswith(b"\xef\xbb\xbf"):
            return Decoded(data[3:].decode("utf-8"), "utf-8-sig")
        return Decoded(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    matches = [m for m in charset_normalizer.from_bytes(data) if m.encoding]
    if not matches:
        return Decoded(None, None, "undecodable")
    # Least noise, then most coherent language, then name: a stable pick among equal guesses.
    best = min(matches, key=lambda m: (m.chaos, -m.coherence, m.encoding))
    try:
        return Decoded(data.decode(best.encoding), best.encoding)
    except (UnicodeDecodeError, LookupError):
        return Decoded(None, None, "undecodable")


def content_refusal(text: str, kind: str, cfg: SnapshotParams) -> str | None:
    """Why decoded text is refused: empty (any kind), generated or minified (code only)."""
    if not text.strip():
        return "empty"
    if kind in PROSE_KINDS:
        return None
    head = text[:2000]
    if any(marker in head for marker in cfg.generated_markers):
        return "generated"
    lines = text.count("\n") + 1
    if len(text) > cfg.minified_line_length and len(text) / lines > cfg.minified_line_length:
        return "minified"
    return None


def rule_kind(kind: str, language: str) -> str:
    """The kind content rules and caps go by: the file's kind, plain text counted as prose (its
    subset stays the file kind's: a repository's .txt may be data, but it is never code)."""
    return "prose" if kind == "code" and language in PLAIN_TEXT else kind


def name_kind(path: str, cfg: SnapshotParams) -> str:
    """What a path's name alone says, before anything is read: license, prose, code, unknown (a
    name that claims no language) or folder (a folder refused whole)."""
    if path.endswith("/"):
        return "folder"
    lang = language.from_name(path)
    kind = file_kind(path, lang or language.UNKNOWN, cfg)
    if lang is None and kind == "code":
        return "unknown"
    return rule_kind(kind, lang or language.UNKNOWN)


def file_kind(path: str, language: str, cfg: SnapshotParams) -> str:
    """license, prose or code (code and data): the kind the subset rules match."""
    name = path.rsplit("/", 1)[-1]
    if LICENSE_NAMES.match(name) or "/licenses/" in f"/{path}".lower():
        return "license"
    if PROSE_NAMES.match(name) or language in cfg.prose_languages:
        return "prose"
    return "code"


def subset_of(kind: str, language: str, cfg: SnapshotParams) -> str:
    """The first rule of `snapshot.subsets` that matches (by kind and/or language)."""
    for rule in cfg.subsets:
        if rule.kind is not None and rule.kind != kind:
            continue
        if rule.languages is not None and language not in rule.languages:
            continue
        return rule.subset
    return cfg.default_subset

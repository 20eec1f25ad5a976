"""Ingestion filters: which files become records, and the reason for each one that does not.

Path rules run before a file is read (excluded paths, vendored ones when asked, binary extensions,
size); content rules after (NUL bytes, undecodable text, generated or minified code). Every refusal
has a reason that lands in the manifest counts and the rejects file.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass

import charset_normalizer

from quarry.config.snapshot import SnapshotParams

BINARY_SNIFF = 8000
LICENSE_NAMES = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE|COPYRIGHT|UNLICENSE)([._-].*)?$", re.I)
PROSE_NAMES = re.compile(r"^(README|CHANGES|CHANGELOG|HISTORY|NEWS|CONTRIBUTING|AUTHORS|CONTRIBUTORS)([._-].*)?$"
                         r"|^(METADATA|PKG-INFO)$", re.I)


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
    if size > cfg.max_file_bytes:
        return "too_large"
    return None


@dataclass(frozen=True)
class Decoded:
    text: str | None
    encoding: str | None
    refusal: str | None = None


def decode(data: bytes) -> Decoded:
    """UTF-8 first, then the best charset guess; NUL bytes mean binary."""
    if b"\0" in data[:BINARY_SNIFF]:
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


def content_refusal(text: str, cfg: SnapshotParams) -> str | None:
    if not text.strip():
        return "empty"
    head = text[:2000]
    if any(marker in head for marker in cfg.generated_markers):
        return "generated"
    lines = text.count("\n") + 1
    if len(text) > cfg.minified_line_length and len(text) / lines > cfg.minified_line_length:
        return "minified"
    return None


def file_kind(path: str, language: str, cfg: SnapshotParams) -> str:
    """license, prose or code."""
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

"""Language of a file from its name, shebang and modeline (Pygments' lexer registry, 500+ languages),
else from its content (Magika's model, shipped in its wheel), and natural language of prose
(lingua, which ships its own models).

Order of evidence, most specific first: a modeline (`vim: ft=...`, `-*- mode: ... -*-`), an exact
file name (Makefile, Dockerfile), a shebang, then the extension or another file-name glob. When
several lexers claim the same name (`*.h`, `*.m`, `*.pl`) the tie is broken deterministically: the
lexers' own content analysis score, then whether the pattern is the lexer's first one, then its
priority, then its name. Only a file whose name says nothing (a corpus record without a path, a
script without extension or shebang) is read by the content model.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from importlib import resources

from pygments.lexers import _mapping, find_lexer_class
from pygments.modeline import get_filetype_from_buffer

from quarry.snapshot import dialects, formats, signatures, token_model

UNKNOWN = "unknown"
SHEBANG = re.compile(rb"^#!\s*(\S+)(?:\s+(\S+))?")
_VERSION_SUFFIX = re.compile(r"[\d.]+$")
# Interpreters whose name is not a Pygments alias of their language.
INTERPRETERS = {"node": "javascript", "nodejs": "javascript", "deno": "typescript", "bun": "javascript",
                "pwsh": "powershell", "rscript": "r", "runghc": "haskell", "runhaskell": "haskell",
                "escript": "erlang", "tclsh": "tcl", "wish": "tcl", "gawk": "awk", "mawk": "awk"}


@dataclass(frozen=True)
class Claim:
    name: str        # the language (lexer) name
    primary: bool    # the pattern is the lexer's first file-name pattern


@dataclass
class LanguageRegistry:
    by_filename: dict[str, list[Claim]]
    by_extension: dict[str, list[Claim]]
    globs: list[tuple[str, Claim]]
    by_alias: dict[str, str]


@functools.cache
def registry() -> LanguageRegistry:
    """Index Pygments' lexer table once per process, without importing the lexers."""
    by_filename: dict[str, list[Claim]] = defaultdict(list)
    by_extension: dict[str, list[Claim]] = defaultdict(list)
    globs: list[tuple[str, Claim]] = []
    by_alias: dict[str, str] = {}
    for _module, name, aliases, filenames, _mimetypes in sorted(_mapping.LEXERS.values(), key=lambda v: v[1]):
        for alias in aliases:
            by_alias.setdefault(alias.lower(), name)
        for index, pattern in enumerate(filenames):
            claim = Claim(name, index == 0)
            if not any(ch in pattern for ch in "*?["):
                by_filename[pattern].append(claim)
            elif pattern.startswith("*.") and not any(ch in pattern[2:] for ch in "*?["):
                by_extension[pattern[2:]].append(claim)
            else:
                globs.append((pattern, claim))
    return LanguageRegistry(dict(by_filename), dict(by_extension), globs, by_alias)


def language_count() -> int:
    return len(_mapping.LEXERS)


def by_alias(alias: str) -> str | None:
    alias = alias.lower()
    reg = registry()
    return reg.by_alias.get(alias) or reg.by_alias.get(_VERSION_SUFFIX.sub("", alias))


def from_shebang(head: bytes) -> str | None:
    match = SHEBANG.match(head)
    if not match:
        return None
    program = match.group(1).rsplit(b"/", 1)[-1].decode("ascii", "replace")
    if program == "env" and match.group(2):
        program = match.group(2).decode("ascii", "replace")
    return by_alias(INTERPRETERS.get(program.lower(), program))


def from_modeline(text: str) -> str | None:
    filetype = get_filetype_from_buffer(text)
    if not filetype:
        emacs = re.search(r"-\*-\s*(?:mode:\s*)?([\w+#-]+)\s*(?:;.*)?-\*-", text[:1000])
        filetype = emacs.group(1) if emacs else None
    return by_alias(filetype) if filetype else None


def _claims(filename: str) -> list[Claim]:
    reg = registry()
    claims = list(reg.by_filename.get(filename, []))
    if claims:
        return claims
    parts = filename.split(".")
    for start in range(1, len(parts)):  # longest extension first: x.tar.gz before x.gz
        claims = reg.by_extension.get(".".join(parts[start:]))
        if claims:
            break
    claims = list(claims or [])
    claims += [claim for pattern, claim in reg.globs if fnmatch.fnmatchcase(filename, pattern)]
    return claims


@functools.cache
def _lexer_class(name: str):
    return find_lexer_class(name)  # by display name; imports only the one lexer module


def _tie_break(claims: list[Claim], text: str) -> str:
    def rank(claim: Claim):
        cls = _lexer_class(claim.name)
        score = cls.analyse_text(text[:4000]) if cls is not None else 0.0
        priority = getattr(cls, "priority", 0) if cls is not None else 0
        return (-float(score or 0.0), not claim.primary, -priority, claim.name)

    return min(dict.fromkeys(claims), key=rank).name


def from_name(path: str) -> str | None:
    """The language a file's name alone claims (exact name, then extension or glob), or None;
    reads nothing, so a plan can tell a book from a source file before opening either."""
    filename = path.rsplit("/", 1)[-1]
    claims = registry().by_filename.get(filename) or _claims(filename)
    if not claims:
        return None
    names = {claim.name for claim in claims}
    return claims[0].name if len(names) == 1 else _tie_break(claims, "")


def detect(path: str, head: bytes, text: str | None = None) -> str:
    """The language of a file: `path` is posix, `head` its first bytes, `text` its decoded text."""
    filename = path.rsplit("/", 1)[-1]
    sample = text if text is not None else head.decode("utf-8", "replace")
    language = from_modeline(sample[:2000] + "\n" + sample[-2000:]) if sample else None
    if language:
        return language
    exact = registry().by_filename.get(filename)
    if exact:
        return exact[0].name if len(exact) == 1 else _tie_break(exact, sample)
    language = from_shebang(head)
    if language:
        return language
    claims = _claims(filename)
    if not claims:
        return from_content(text.encode("utf-8") if text is not None else head) or UNKNOWN
    names = {claim.name for claim in claims}
    return claims[0].name if len(names) == 1 else _tie_break(claims, sample)


# ---------------------------------------------------------------------------------------------
# Language from content

CONTENT_BYTES = 64 * 1024      # Magika reads the beginning, middle and end of this much
MIN_CONTENT_SCORE = 0.8        # below it the model's guess is not taken (a language it lacks reads as a near one)
# Every label of Magika's model -> a Pygments language name, or `unknown` where no language fits
# (binary formats, playlists, checksums); tests hold it to the installed model's label list.
CONTENT_LABELS = "content_labels.json"
# The token model's least mean log-likelihood lead per token, best language over the runner-up
# (chosen on the tune split of its data: scripts/train_language_model.py).
MIN_TOKEN_MARGIN = 0.6
MIN_TOKEN_MARGIN_OVER_PROSE = 1.0   # this machine's prose leads by 0.6 at most; COBOL that reads as prose by 1.4
MIN_TOKEN_DOUBT = 0.05         # a lead this large for a language Magika lacks puts its answer in doubt
CERTAIN_CONTENT_SCORE = 0.99   # ... unless Magika is this sure and the token model is not (Lua read as Phix)


@functools.cache
def content_labels() -> dict[str, str]:
    return json.loads(resources.files(__package__).joinpath(CONTENT_LABELS).read_text(encoding="utf-8"))


@functools.cache
def _magika():
    import onnxruntime
    from magika import Magika  # onnxruntime: loaded by the first file whose name says nothing

    class OneThreadMagika(Magika):
        """Magika on one onnxruntime thread that never spins. Its default is a spinning thread per
        physical core in every process: two snapshot workers on two cores then fought over them
        (2 workers ran slower than 1), and the same answers must not depend on the machine."""

        def _init_onnx_session(self) -> onnxruntime.InferenceSession:
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            return onnxruntime.InferenceSession(self._model_path, sess_options=options,
                                                providers=["CPUExecutionProvider"])

    return OneThreadMagika()


# man pages: blank lines and roff comments, then a title, include or macro request (or a comment first)
ROFF = re.compile(rb"\A\s*(?:(?:\.\\\"|'\\\")[^\n]*\n\s*)*\.(?:TH|Dd|Dt|so|de)\b|\A\s*\.\\\"")
PROSE_SAMPLE = 16 * 1024      # characters read to tell prose from code (8 K misses a long copyright header)
CODE_MARKS = frozenset("{}[]()<>;=$@#\\|&*/^~`%")
CODE_LINE_END = re.compile(r"[;{}]\s*$|^\s*[)}\]]")
WORD = re.compile(r"[^\W\d_]+")


def looks_like_prose(text: str) -> bool:
    """Written text rather than code or data: mostly letters, few of code's marks (a licence's
    e-mail addresses and parentheses pass), few lines that end or open a block or statement
    (`;`, `{`, `}`), words mostly in lower case where the script has case (COBOL, BASIC and
    assembly keywords are upper case) and lines of sentences, not of a keyword or two."""
    text = text[:PROSE_SAMPLE]
    chars = [ch for ch in text if not ch.isspace()]
    lines = [line for line in text.splitlines() if line.strip()]
    if not chars:
        return False
    letters = sum(ch.isalpha() for ch in chars) / len(chars)
    marks = sum(ch in CODE_MARKS for ch in chars) / len(chars)
    statements = sum(bool(CODE_LINE_END.search(line)) for line in lines) / len(lines)
    cased = [word for word in WORD.findall(text) if word.lower() != word.upper()]
    lower = sum(word.islower() for word in cased) / len(cased) if cased else 1.0
    words_per_line = sum(len(line.split()) for line in lines) / len(lines)
    return letters >= 0.7 and marks <= 0.07 and statements <= 0.05 and lower >= 0.4 and words_per_line >= 3


def from_content(data: bytes) -> str | None:
    """The language read in ``data`` (a Pygments name), or None when the evidence is weak.
    Roff, which the model has no class for, by its own first request or comment line; languages
    neither model names (Emacs Lisp, Racket, Meson, Rd, CUDA, PostScript, DOT, RPM specs, QML,
    DTDs, Java properties, LLVM, GLSL, Thrift, GraphQL, Nix, ...) by forms only they write
    (quarry.snapshot.dialects, quarry.snapshot.signatures), and within the language a model
    leans to, its dialect or superset likewise (D and C++ in C, Cython and Nim in Python, Vala in
    C#, Scheme in Lisp, ...). A whole text that is one JSON object or array is JSON, one that
    declares itself XML and parses is XML (or XSLT, XHTML), and a data format Magika leans to
    (XML, TOML, YAML, CSS) is that format where its own parser takes the whole text
    (quarry.snapshot.formats). Magika's answer when it is sure, unless it names code and the
    token model leans to a language Magika has no class for (Magika reads F# as OCaml): then that
    one if the token model is sure, and nothing if neither is nearly certain (a licence header
    leans Lua to Phix, Magika is). Then plain text, where Magika says plain text (or a doubtful
    text format, or nothing) and the record reads as prose, unless the token model is surer still
    (COBOL is lower-case words and full stops); then the token model's answer when it is sure.
    Code that neither model is sure of is unknown, never plain text."""
    if not data.strip():
        return None
    if ROFF.match(data):
        return "Groff"
    text = data[:CONTENT_BYTES].decode("utf-8", "replace")
    if "\r" in text:   # every form is read line by line: a Windows or an old Mac line end ends a line too
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    whole = len(data) <= CONTENT_BYTES   # a parser reads only a whole text
    own_forms = (dialects.from_conventions(text) or dialects.by_signature(text) or signatures.by_signature(text)
                 or (formats.json_document(text) or formats.declared_xml(text) if whole else None))
    if own_forms:
        return own_forms   # a language neither model names, by forms only it writes; a JSON or XML document
    prediction = _magika().identify_bytes(data[:CONTENT_BYTES]).prediction
    name = content_labels().get(prediction.dl.label, UNKNOWN)
    magika_sure = prediction.score >= MIN_CONTENT_SCORE and name not in ("Text only", UNKNOWN)
    dialect = dialects.dialect_of(name, text, sure=magika_sure)
    if dialect:
        return dialect   # its own forms (Scheme in Magika's Lisp, D in its C): surer than either model
    parsed = formats.confirmed(name, text) if whole else None
    if parsed:
        return parsed    # the data format Magika leans to, its own parser taking the whole text
    if magika_sure and prediction.dl.group != "code":
        return name    # a text format (Markdown, JSON) the token model has no class for
    guess = token_model.model().guess(text)
    dialect = None if guess is None or magika_sure else dialects.dialect_of(guess.language, text, sure=False)
    if dialect:
        return dialect   # where Magika is unsure, the token model's lean is told from its dialects likewise
    sure_tokens = guess.language if guess is not None and guess.margin >= MIN_TOKEN_MARGIN else None
    if magika_sure:
        lacking = guess is not None and guess.language not in _content_languages()
        if lacking and guess.margin >= MIN_TOKEN_DOUBT and (sure_tokens or prediction.score < CERTAIN_CONTENT_SCORE):
            return sure_tokens  # code of a language Magika has no class for reads as a near one
        return name
    written = name in ("Text only", UNKNOWN) or prediction.dl.group in ("text", "document")
    if written and looks_like_prose(text) and (guess is None or guess.margin < MIN_TOKEN_MARGIN_OVER_PROSE):
        return "Text only"
    return sure_tokens


@functools.cache
def _content_languages() -> frozenset[str]:
    return frozenset(content_labels().values())


# ---------------------------------------------------------------------------------------------
# Natural language of prose

_DETECTORS: dict[tuple[str, ...], object] = {}


NATURAL_SAMPLE = 3000        # characters of prose lingua reads
MIN_NATURAL_WORDS = 5        # fewer say nothing certain of a language: a name, "# Placeholder", a title
_ADDRESS = re.compile(r"\S+://\S+|\S+@\S+")                  # URLs and e-mail addresses: no language's words


def natural_language(text: str, languages: list[str] | tuple[str, ...]) -> str | None:
    """ISO 639-1 code of the text's language among ``languages`` (lingua names, or ALL: every
    language lingua knows), or None: None too where there are not words enough to tell (a name
    and an address, "# Placeholder": lingua answered Maori or Danish)."""
    key = tuple(name.upper() for name in languages)
    detector = _DETECTORS.get(key)
    if detector is None:
        from lingua import Language, LanguageDetectorBuilder

        chosen = Language.all() if "ALL" in key else [getattr(Language, name) for name in key]
        # low accuracy mode (trigrams only): on pages of text it answered as high accuracy mode did
        detector = LanguageDetectorBuilder.from_languages(*chosen).with_low_accuracy_mode().build()
        _DETECTORS[key] = detector
    sample = text[:NATURAL_SAMPLE]
    if not _words_enough(_ADDRESS.sub(" ", sample)):
        return None
    found = detector.detect_language_of(sample)
    return found.iso_code_639_1.name.lower() if found is not None else None


def _words_enough(sample: str) -> bool:
    """Five words or more, or (in a script without case or spaces: Chinese, Thai) ten letters."""
    words = WORD.findall(sample)
    if any(word.lower() != word.upper() for word in words):
        return len(words) >= MIN_NATURAL_WORDS
    return sum(map(len, words)) >= 10

"""The code installed on this machine, as repositories: a deterministic, mixed corpus of real
sources that none of Quarry's fixtures were written from.

Four families, one origin per repository-like folder:

    python  this interpreter's standard library, every installed distribution (purelib), then the
            system's Python packages (/usr/lib/python3/dist-packages)
    c       /usr/include, one origin per library (top-level folder or header)
    perl    the Perl library folders, one origin per top-level module folder (the modules at the
            top of a library folder form one)
    shell   shell scripts (a `sh`/`bash` shebang) under /usr and /etc, one origin per folder

``documents(target_bytes)`` draws from the four families in proportion to what the machine has
of each, so a corpus of any size is mixed. When the machine holds less than
the target, the walk repeats with a recorded transformation (``REPEAT_EDIT``): every origin again
as a fork (``<origin>~copy<k>``), each file with one comment line inserted after its first line,
so the copies are near duplicates of their originals, as forks are on a code host. The same
machine and interpreter give the same documents in the same order.
"""

from __future__ import annotations

import sysconfig
from collections.abc import Iterator
from pathlib import Path

LANGUAGES = {".py": "Python", ".pyi": "Python", ".pyx": "Cython", ".c": "C", ".h": "C", ".cc": "C++",
             ".cpp": "C++", ".cxx": "C++", ".hpp": "C++", ".hh": "C++", ".js": "JavaScript",
             ".ts": "TypeScript", ".html": "HTML", ".css": "CSS", ".sh": "Bash", ".md": "Markdown",
             ".rst": "reStructuredText", ".txt": "Text", ".json": "JSON", ".toml": "TOML", ".cfg": "INI",
             ".yaml": "YAML", ".yml": "YAML", ".xml": "XML", ".pm": "Perl", ".pl": "Perl", ".pod": "Pod"}
MAX_FILE = 1_000_000
C_ROOTS = ("/usr/include",)
PERL_ROOTS = ("/usr/share/perl", "/usr/lib/x86_64-linux-gnu/perl", "/usr/share/perl5", "/usr/lib/x86_64-linux-gnu/perl5")
SHELL_ROOTS = ("/usr/bin", "/usr/sbin", "/usr/share", "/usr/lib", "/usr/libexec", "/etc")
COMMENT = {"Python": "#", "Cython": "#", "Bash": "#", "Perl": "#", "Pod": "#", "TOML": "#", "INI": "#",
           "YAML": "#", "C": "//", "C++": "//", "JavaScript": "//", "TypeScript": "//"}
REPEAT_EDIT = ("pass k >= 1: origin '<origin>~copy<k>', id '<origin>~copy<k>:<path>', and the line "
               "'<comment> quarry-scale copy <k>' inserted after the first line of every file")


def is_shell(path: Path) -> bool:
    """A script whose shebang names a shell (sh, bash, dash, ...), under 500 KB."""
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
    except OSError:
        return False
    return head.startswith(b"#!") and b"sh" in head.split(b"\n", 1)[0] and path.stat().st_size < 500_000


def _files(root: Path, suffixes: tuple[str, ...] | None) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and (
        suffixes is None or p.suffix in suffixes or p.name.upper().startswith(("LICENSE", "COPYING"))))


def python_origins() -> Iterator[tuple[str, Path, list[Path]]]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    purelib = Path(sysconfig.get_paths()["purelib"])
    files = [p for p in _files(stdlib, tuple(LANGUAGES)) if "site-packages" not in p.relative_to(stdlib).parts]
    yield "python:stdlib", stdlib, files
    for folder in sorted(purelib.iterdir()):
        if folder.is_dir() and not folder.name.endswith((".dist-info", ".egg-info", "__pycache__")):
            yield f"pypi:{folder.name}", folder, _files(folder, tuple(LANGUAGES))
    system = Path("/usr/lib/python3/dist-packages")  # the system's Python packages (Debian's)
    for folder in sorted(system.iterdir()) if system.is_dir() else []:
        if folder.is_dir() and not folder.name.endswith((".dist-info", ".egg-info", "__pycache__")):
            yield f"deb:{folder.name}", folder, _files(folder, tuple(LANGUAGES))


def c_origins() -> Iterator[tuple[str, Path, list[Path]]]:
    for root in map(Path, C_ROOTS):
        loose = []
        for entry in sorted(root.iterdir()) if root.is_dir() else []:
            if entry.is_dir():
                yield f"file://{entry}", entry, _files(entry, (".h", ".hpp", ".hh", ".c", ".cc", ".cpp", ".tcc"))
            elif entry.suffix in (".h", ".hpp"):
                loose.append(entry)
        if loose:
            yield f"file://{root}", root, loose


def perl_origins() -> Iterator[tuple[str, Path, list[Path]]]:
    for root in map(Path, PERL_ROOTS):
        for version in sorted(root.iterdir()) if root.is_dir() else []:  # /usr/share/perl/5.36, ...
            loose = []  # the modules at the top of a version folder form one origin, each folder another
            for entry in sorted(version.iterdir()) if version.is_dir() else [version]:
                if entry.is_dir():
                    if files := _files(entry, (".pm", ".pl", ".pod")):
                        yield f"file://{entry}", entry, files
                elif entry.suffix in (".pm", ".pl", ".pod"):
                    loose.append(entry)
            if loose:
                yield f"file://{version}", version if version.is_dir() else version.parent, loose


def shell_origins() -> Iterator[tuple[str, Path, list[Path]]]:
    folders: dict[Path, list[Path]] = {}
    for root in map(Path, SHELL_ROOTS):
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.suffix in ("", ".sh") and path.is_file() and not path.is_symlink() and is_shell(path):
                folders.setdefault(path.parent, []).append(path)
    for folder in sorted(folders):
        yield f"file://{folder}", folder, folders[folder]


FAMILIES = {"python": python_origins, "c": c_origins, "perl": perl_origins, "shell": shell_origins}


def origins() -> dict[str, list[tuple[str, Path, list[Path]]]]:
    """(origin, root, files) of every origin, by family."""
    return {family: list(walk()) for family, walk in FAMILIES.items()}


def _readable(root: Path, files: list[Path]) -> Iterator[tuple[str, str, str]]:
    for path in files:
        try:
            if path.stat().st_size > MAX_FILE:
                continue
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        yield (path.relative_to(root).as_posix() if path != root else path.name), language(path), text


def language(path: Path) -> str:
    return LANGUAGES.get(path.suffix, "Bash" if path.suffix == "" else "Text")


def repeat_edit(text: str, copy: int, lang: str) -> str:
    """``text`` with the recorded transformation of pass ``copy`` (REPEAT_EDIT)."""
    head, sep, rest = text.partition("\n")
    return f"{head}\n{COMMENT.get(lang, '#')} quarry-scale copy {copy}\n{rest}" if sep else \
        f"{text}\n{COMMENT.get(lang, '#')} quarry-scale copy {copy}\n"


def documents(target_bytes: int) -> Iterator[dict]:
    """Records (``{"text", "meta"}``) of the machine's code until ``target_bytes`` of text, passes
    after the first transformed (REPEAT_EDIT); ``meta.family`` and ``meta.copy`` say where each
    came from. Each family is a stream of its origins' files in order; the next document comes from
    the family that has given the smallest share of its size so far, so every prefix is mixed."""
    found = origins()
    sizes = {family: sum(p.stat().st_size for _, _, files in entries for p in files) or 1
             for family, entries in found.items()}
    total = 0
    for copy in range(1_000):
        streams = {family: _stream(entries, copy) for family, entries in found.items()}
        given = dict.fromkeys(streams, 0)
        fresh = False
        while streams:
            family = min(streams, key=lambda f: (given[f] / sizes[f], f))
            record = next(streams[family], None)
            if record is None:
                del streams[family]
                continue
            record["meta"]["family"] = family
            given[family] += record["meta"]["bytes"]
            total += record["meta"]["bytes"]
            fresh = True
            yield record
            if total >= target_bytes:
                return
        if not fresh:
            return  # nothing readable at all


def _stream(entries: list[tuple[str, Path, list[Path]]], copy: int) -> Iterator[dict]:
    for origin, root, files in entries:
        name = origin if copy == 0 else f"{origin}~copy{copy}"
        for rel, lang, text in _readable(root, files):
            if copy:
                text = repeat_edit(text, copy, lang)
            yield {"text": text, "meta": {"id": f"{name}:{rel}", "origin": name, "path": rel, "language": lang,
                                          "pile_set_name": "code", "bytes": len(text.encode()), "copy": copy}}

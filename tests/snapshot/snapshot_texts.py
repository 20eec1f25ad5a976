"""Real text of the shapes corpora hold, read from this machine (never written here): one-line
paragraph documents (abstracts, Wikipedia paragraphs), books, e-mails, logs, LaTeX, man pages,
code and minified scripts. Shared by the snapshot tests and bench/snapshot_fidelity.py."""

from __future__ import annotations

import glob
import gzip
import re
import sysconfig
from pathlib import Path

STDLIB = Path(sysconfig.get_paths()["stdlib"])
PACKAGES = Path(sysconfig.get_paths()["purelib"])   # the project environment's site-packages
LICENSES = Path("/usr/share/common-licenses")
DOCS = Path("/usr/share/doc")


def _read(path: Path) -> str | None:
    try:
        data = path.read_bytes()
        data = gzip.decompress(data) if path.suffix == ".gz" else data
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile):
        return None


def prose_files() -> list[Path]:
    """Licence texts and packages' copyright notices and changelogs: prose as people wrote it."""
    found = sorted(p for p in LICENSES.iterdir() if p.is_file() and not p.is_symlink())
    found += sorted(Path(p) for p in glob.glob(str(DOCS / "*" / "copyright")))
    found += sorted(Path(p) for p in glob.glob(str(DOCS / "*" / "changelog.Debian.gz")))
    return found


def paragraphs() -> list[str]:
    """Every paragraph of the prose files of at least 200 characters, unwrapped onto one line."""
    out = []
    for path in prose_files():
        text = _read(path) or ""
        for block in re.split(r"\n\s*\n", text):
            line = " ".join(block.split())
            if len(line) >= 200:
                out.append(line)
    return out


def one_line_documents(count: int = 20, chars: int = 3000) -> list[str]:
    """``count`` documents of about ``chars`` characters, each a single line: consecutive real
    paragraphs joined (the shape of an abstract, a Wikipedia paragraph, a patent background)."""
    docs, current = [], ""
    for paragraph in paragraphs():
        current = f"{current} {paragraph}".strip()
        if len(current) >= chars:
            docs.append(current[:chars].rsplit(" ", 1)[0] + ".")
            current = ""
            if len(docs) == count:
                break
    return docs


def book(size: int = 2_500_000) -> str:
    """About ``size`` bytes of prose as written (wrapped lines, blank lines between paragraphs)."""
    parts, total = [], 0
    for path in prose_files():
        text = _read(path)
        if text:
            parts.append(text)
            total += len(text.encode("utf-8"))
            if total >= size:
                break
    text = "\n\n".join(parts)
    return text[:text.rfind("\n\n", 0, size)] if len(text) > size else text


def emails() -> list[str]:
    return [t for p in sorted((STDLIB / "test" / "test_email" / "data").glob("msg_*.txt")) if (t := _read(p))]


def logs(limit: int = 20) -> list[str]:
    """Line-per-event logs (who did what, when): the shape of chat and IRC logs."""
    paths = sorted(glob.glob("/var/log/*.log") + glob.glob("/var/log/apt/*.log"))
    return [t for p in paths if (t := _read(Path(p))) and t.strip()][:limit]


def latex() -> list[str]:
    roots = ["/usr/share/texmf", "/usr/share/texlive", "/usr/lib/google-cloud-sdk/platform/gsutil", str(PACKAGES)]
    paths = sorted({p for root in roots for p in glob.glob(f"{root}/**/*.tex", recursive=True)})
    return [t for p in paths if (t := _read(Path(p))) and t.strip()]


def man_pages(limit: int = 40) -> list[str]:
    paths = sorted(glob.glob("/usr/share/man/man1/*.1.gz"))[:limit]
    return [t for p in paths if (t := _read(Path(p)))]


def code(limit: int = 40) -> list[str]:
    paths = sorted(STDLIB.glob("*.py"))[:limit // 2] + sorted(Path("/usr/include").glob("*.h"))[:limit // 2]
    return [t for p in paths if (t := _read(p))]


def minified(min_bytes: int = 20_000) -> list[tuple[str, str]]:
    """(name, text) of the minified scripts and stylesheets installed here."""
    roots = ["/usr/share/javascript", "/usr/lib/node_modules/npm/node_modules", str(PACKAGES)]
    paths = sorted({p for root in roots for pattern in ("*.min.js", "*.min.css")
                    for p in glob.glob(f"{root}/**/{pattern}", recursive=True)})
    return [(Path(p).name, t) for p in paths
            if Path(p).stat().st_size >= min_bytes and (t := _read(Path(p)))]

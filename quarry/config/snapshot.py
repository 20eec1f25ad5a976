"""params.yaml ``snapshot:``: the sources of the snapshot and how their files become records."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, PositiveInt, field_serializer, field_validator

from quarry.config.base import Section

SourceKind = Literal["git", "archive", "dir", "corpus", "parquet", "hfdisk", "stdlib", "installed"]


class Columns(Section):
    """Which columns of a table source (``parquet``, ``hfdisk``) mean what. Every other column is
    kept as lineage in ``meta.upstream``. A name may reach into a struct column (``meta.pile_set_name``)."""

    text: str | None = "text"           # the content; rows without it come from ``blobs`` by content id
    content_id: str | None = None       # a Software Heritage content id (sha1_git hex): the SWHID, verified
    id: str | None = None               # any other upstream document id (lineage, and the rejects' upstream_id)
    path: str | None = None             # the file's path in its repository
    repo: str | None = None             # rows of one repository form one origin; none: each row stands alone
    origin: str = "{repo}"              # the origin recorded for a repository
    revision: str | None = None
    subset: str | None = None           # the column giving pile_set_name
    licenses: list[str] = []            # upstream licence labels, kept beside Quarry's own decision
    size: str | None = None             # the content's length in bytes: caps a blob before it is read
    files: str | None = None            # a row is a repository: this list column holds its files, each a
                                        # struct of the per-file columns; the row's other columns are shared


# Table layouts by name; a source without preset or columns is recognised from its columns
# (quarry.snapshot.layouts). The Stack v2 (bigcode/the-stack-v2*): blob_id is the SWH content id;
# the variants without ``content`` expect the bytes from a blob store named by it; the training
# sets (-train-smol-ids, -train-full-ids) list a repository per row, its files in ``files``.
# The Stack v1 (bigcode/the-stack): hexsha is the git blob id, the same sha1_git.
_STACK_V2 = {"text": "content", "content_id": "blob_id", "path": "path", "repo": "repo_name",
             "origin": "https://github.com/{repo}", "revision": "revision_id", "size": "length_bytes",
             "licenses": ["detected_licenses", "license_type", "gha_license_id"]}
COLUMN_PRESETS: dict[str, dict[str, Any]] = {
    "stack-v2": _STACK_V2,
    "stack-v2-repos": {**_STACK_V2, "files": "files"},
    "stack-v1": {"text": "content", "content_id": "hexsha", "path": "max_stars_repo_path",
                 "repo": "max_stars_repo_name", "origin": "https://github.com/{repo}",
                 "revision": "max_stars_repo_head_hexsha", "size": "size", "licenses": ["max_stars_repo_licenses"]},
    "pile": {"text": "text", "subset": "meta.pile_set_name"},
    "text": {"text": "text"},
}
Preset = Literal["stack-v2", "stack-v2-repos", "stack-v1", "pile", "text"]


class SourceSpec(Section):
    """One entry of ``snapshot.sources``; which keys apply depends on ``kind``."""

    kind: SourceKind
    name: str | None = None             # the source's name in the manifest (default: its kind)
    url: str | None = None              # git
    path: str | None = None             # git (local), archive, dir, corpus
    ref: str | None = None              # git: branch, tag or commit
    before: str | None = None           # git: the last commit before this ISO date
    origin: str | None = None           # the origin name recorded (default: url or path)
    subset: str | None = None           # every file of the source in this subset
    subset_map: dict[str, str] | None = None  # corpus: pile_set_name -> subset
    exclude: list[str] | None = None    # globs left out
    include: list[str] | None = None    # installed: only these distributions
    max_bytes: PositiveInt | None = None
    max_origin_bytes: PositiveInt | None = None
    lock: str | None = "requirements.lock"   # installed: the pins (null: every installed one)
    extras: list[str] | None = None     # installed: optional dependency groups of pyproject
    lock_mismatch: Literal["error", "record"] = "error"
    preset: Preset | None = None        # parquet, hfdisk: a column layout (none: recognised from the columns)
    columns: Columns | None = None      # parquet, hfdisk: over the preset's columns
    blobs: str | None = None            # parquet, hfdisk: folder of contents named by content id (.gz/.zst too)

    def column_map(self) -> Columns:
        """The preset's columns with ``columns`` over them."""
        given = {**COLUMN_PRESETS.get(self.preset or "", {}),
                 **(self.columns.model_dump(exclude_unset=True) if self.columns else {})}
        return Columns.model_validate(given)


class ArchiveLimits(Section):
    max_members: PositiveInt = 100_000
    max_bytes: PositiveInt = 2_000_000_000
    max_ratio: PositiveInt = 100        # uncompressed / compressed: the zip-bomb guard
    strip_root: bool = True


class SubsetRule(Section):
    """The first rule matching a file's kind (license / prose / code) and language names its subset."""

    subset: str
    kind: Literal["license", "prose", "code"] | None = None
    languages: list[str] | None = None


def _default_sources() -> list[SourceSpec]:
    return [SourceSpec(name="stdlib", kind="stdlib"), SourceSpec(name="installed", kind="installed")]


class SnapshotParams(Section):
    key = "snapshot"

    sources: list[SourceSpec] = Field(default_factory=_default_sources)
    max_total_bytes: PositiveInt = 40_000_000   # text cap over all origins, sources in order
    max_origin_bytes: PositiveInt = 4_000_000   # cap per origin (a source may set its own)
    max_file_bytes: PositiveInt = 1_000_000     # a source file (code, data) above it is refused (too_large)
    # A prose file or a corpus / table record (a document): books run to several MB (Project
    # Gutenberg's largest near 10), so the cap only guards memory against a runaway record.
    max_document_bytes: PositiveInt = 32_000_000
    shard_bytes: PositiveInt = 8_000_000        # target uncompressed bytes per output shard
    # A dist-info's RECORD and top_level.txt are read: in a folder several distributions share, they
    # say which files each one governs (quarry.curation.licenses.ownership); the licenses stage drops them.
    exclude: list[str] = [
        "**/.git/**", "**/__pycache__/**", "**/node_modules/**",
        "**/*.min.js", "**/*.min.css", "**/*.map", "**/package-lock.json", "**/yarn.lock",
        "**/pnpm-lock.yaml", "**/poetry.lock", "**/Cargo.lock", "**/Pipfile.lock", "**/*_pb2.py",
        "**/*.pb.go", "**/*.dist-info/INSTALLER", "**/*.dist-info/REQUESTED",
        "**/*.dist-info/WHEEL", "**/*.dist-info/direct_url.json",
    ]
    # Vendored folders are governed by their own license like any subtree; set exclude_vendored to
    # refuse them by path instead (reason vendored_path).
    exclude_vendored: bool = False
    vendored: list[str] = ["**/vendor/**", "**/third_party/**"]
    binary_extensions: list[str] = [
        "pyc", "pyo", "so", "dll", "dylib", "a", "o", "obj", "lib", "exe", "bin", "pyd", "whl", "egg",
        "zip", "gz", "bz2", "xz", "zst", "tar", "7z", "jar", "png", "jpg", "jpeg", "gif", "ico", "bmp",
        "webp", "pdf", "ttf", "otf", "woff", "woff2", "mo", "npy", "npz", "pt", "pth", "safetensors",
        "onnx", "db", "sqlite", "wav", "mp3", "mp4", "svgz", "icns", "pkl", "pickle",
    ]
    generated_markers: list[str] = ["@generated", "DO NOT EDIT", "Code generated by", "autogenerated by"]
    minified_line_length: PositiveInt = 2000    # mean line length above which code or data is minified (never prose)
    archive: ArchiveLimits = ArchiveLimits()
    # lingua's language names (ENGLISH, GERMAN, ...) a prose file's language is chosen among; ALL: the
    # 75 it knows (about 75 MB once all their models are read, bench/language.py)
    natural_languages: list[str] = ["ALL"]
    prose_languages: list[str] = ["Markdown", "reStructuredText", "TeX", "Groff"]
    stdlib_exclude: list[str] = ["site-packages/**", "**/test/**", "**/tests/**", "idlelib/**", "lib2to3/tests/**",
                                 "config-*/**", "lib-dynload/**", "ensurepip/_bundled/**"]
    installed_exclude: list[str] = []           # distribution names left out of the `installed` source
    subsets: list[SubsetRule] = [
        SubsetRule(kind="license", subset="licenses"),
        SubsetRule(kind="prose", subset="prose"),
        SubsetRule(languages=["Python", "Python 2.x", "Cython", "NumPy", "Python console session"],
                   subset="code-python"),
        SubsetRule(languages=["C", "C++", "Objective-C", "CUDA"], subset="code-c"),
        SubsetRule(languages=["JavaScript", "TypeScript", "HTML", "CSS", "JSX", "TSX"], subset="code-web"),
        SubsetRule(languages=["Bash", "Batchfile", "PowerShell", "Makefile", "CMake", "Docker"], subset="code-shell"),
        SubsetRule(languages=["JSON", "JSON-LD", "YAML", "TOML", "INI", "XML", "CSV"], subset="data"),
        SubsetRule(languages=["Text only", "unknown"], subset="misc"),
    ]
    default_subset: str = "code-other"

    @field_validator("natural_languages")
    @classmethod
    def _lingua_names(cls, names: list[str]) -> list[str]:
        from lingua import Language

        known = {language.name for language in Language.all()} | {"ALL"}
        unknown = [name for name in names if name.upper() not in known]
        if unknown or not names:
            raise ValueError(f"natural_languages: {unknown or 'empty'} not lingua language names (or ALL)")
        return names

    # Sources and subset rules keep only the keys they were given: an absent key and `lock: null`
    # mean different things to a source.
    @field_serializer("sources", "subsets")
    def _given_keys(self, items: list[Section]) -> list[dict[str, Any]]:
        return [item.model_dump(mode="json", exclude_unset=True) for item in items]

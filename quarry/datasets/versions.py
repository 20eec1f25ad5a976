"""The local release registry: every dataset version built here, findable by hash or label.

    data/releases/<name>/<version>/manifest.json   the version's manifest
                                   index.jsonl.zst  one row per document (id, key, split, subset)
                                   dropped.jsonl.zst ids rejected while it was built, with reasons
                                   changelog.json   changes from its parent, counted (by kind, by reason)
                                   CHANGELOG.md     the same for people, with the first of each list
                                   changes.jsonl.zst every change, a row each (added, removed with
                                                    its reason, changed, split_changed)
                                   release.json     its data folder (relative to the project), when

The index outlives the shards (a dataset folder is rebuilt in place), so `dataset diff` and
`cite` work for any version ever built. The shards themselves are restored by `dvc pull`.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from quarry.datasets.disk_sort import sorted_rows
from quarry.datasets.manifest import MANIFEST, Manifest, read_manifest
from quarry.errors import QuarryError
from quarry.paths import project_root
from quarry.records import JsonDict, read_json, read_records, write_json, write_records

INDEX = "index.jsonl.zst"
DROPPED = "dropped.jsonl.zst"
CHANGES = "changes.jsonl.zst"
MIN_PREFIX = 6
LABEL = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


def registry_root(registry: str | os.PathLike | None = None) -> Path:
    if registry:
        path = Path(registry)
        return path if path.is_absolute() else project_root() / path
    return project_root() / "data" / "releases"


def bump(label: str | None, part: str) -> str:
    """The next semantic version: part is 'major', 'minor' or 'patch'."""
    match = LABEL.match(label or "")
    if not match:
        return "0.1.0"
    major, minor, patch = map(int, match.groups())
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"


def assign_label(name: str, wanted: str, *, version: str | None = None, explicit: bool = False,
                 registry: str | os.PathLike | None = None) -> str:
    """The label a new version of ``name`` gets: ``wanted`` unless another version already holds it.

    A version registered before keeps its label (a rebuild of the same data is the same release).
    An automatic label moves on to the next free patch label; a label the user chose that another
    version holds is refused, since a label must name one version only.
    """
    taken = {r["manifest"].get("label"): r["manifest"]["version"] for r in releases(name, registry)}
    if version is not None:
        for label, holder in taken.items():
            if holder == version:
                return label
    if wanted not in taken:
        return wanted
    if explicit:
        raise QuarryError(f"dataset {name}: label {wanted} already names version {taken[wanted][:12]}; "
                          "choose another label (assemble.label / --label)")
    label = wanted
    while label in taken:
        label = bump(label, "patch")
    return label


def register(manifest: Manifest, dataset_dir: Path, index: Iterable[dict], dropped: Iterable[dict], *,
             changelog: Callable[[Path], tuple[JsonDict, str]] | None = None,
             registry: str | os.PathLike | None = None) -> Path:
    """Record a version: its index rows (in id order) and the rows dropped while it was built, both
    written as they come (the dropped sorted on disk), then its changelog (``changelog``: from the
    release folder, whose index is written by then, to the changelog's summary and its Markdown;
    it writes the change rows, CHANGES, there)."""
    release = registry_root(registry) / manifest["name"] / manifest["version"]
    write_records(release / INDEX, index, validate=False)
    write_records(release / DROPPED, sorted_rows(dropped, key=lambda r: (r["id"], r.get("key") or "", r["reason"])),
                  validate=False)
    if changelog is not None:
        log, markdown = changelog(release)
        write_json(release / "changelog.json", log)
        (release / "CHANGELOG.md").write_text(markdown, encoding="utf-8")
    info = release / "release.json"
    # a rebuild of a registered version (a forced `dvc repro`) keeps its first registration time:
    # the release folder, a DVC output, then holds the same bytes
    first = read_json(info).get("registered_at") if info.is_file() else None
    write_json(info, {"path": _portable(Path(dataset_dir)), "registered_at": first or time.time()})
    write_json(release / MANIFEST, manifest)  # last: a release with a manifest is complete
    return release


def _portable(folder: Path) -> str:
    """The data folder relative to the project (so a clone finds it), absolute when outside it."""
    folder = folder.resolve()
    try:
        return folder.relative_to(project_root()).as_posix()
    except ValueError:
        return str(folder)


def releases(name: str | None = None, registry: str | os.PathLike | None = None) -> list[JsonDict]:
    """Registered versions (oldest first): manifest, folder of the release and of its data."""
    root = registry_root(registry)
    found = []
    for manifest_path in root.glob(f"{name or '*'}/*/{MANIFEST}"):
        release = manifest_path.parent
        info = read_json(release / "release.json")
        found.append({"manifest": read_json(manifest_path), "release": release, "path": project_root() / info["path"],
                      "registered_at": info.get("registered_at", 0)})
    return sorted(found, key=lambda r: (r["registered_at"], r["manifest"]["version"]))


def find(ref: str, registry: str | os.PathLike | None = None) -> JsonDict:
    """A release by version hash (or a prefix of at least 6), label, name (its latest version),
    or name@label / name@hash."""
    name, _, which = ref.partition("@") if "@" in ref else (None, "", ref)
    candidates = releases(name, registry)
    if not candidates:
        where = registry_root(registry)
        raise QuarryError(f"no dataset version matches '{ref}' (registry {where} has no releases"
                          f"{' named ' + name if name else ''})")
    if name is None and any(r["manifest"]["name"] == which for r in candidates):
        return [r for r in candidates if r["manifest"]["name"] == which][-1]
    matches = [r for r in candidates if r["manifest"].get("label") == which
               or (len(which) >= MIN_PREFIX and r["manifest"]["version"].startswith(which))]
    if which == "latest" and name:
        matches = candidates[-1:]
    if not matches:
        raise QuarryError(f"no dataset version matches '{ref}' in {registry_root(registry)}; "
                          f"`quarry dataset list` shows the known ones")
    versions = {r["manifest"]["version"] for r in matches}
    if len(versions) > 1:
        listing = ", ".join(sorted(f"{r['manifest']['name']}@{r['manifest']['version'][:12]}" for r in matches))
        raise QuarryError(f"'{ref}' is ambiguous: {listing}")
    return matches[-1]


def locate(ref: str | os.PathLike, registry: str | os.PathLike | None = None) -> tuple[dict | None, Path | None,
                                                                                      Path | None]:
    """(manifest or None, data folder or None, release folder or None) for a path or a reference.

    A folder with a manifest is a dataset version; any other folder (or file) of shards has no
    manifest. A registered version's data folder is returned only while it holds that version.
    """
    path = Path(ref)
    if path.exists():
        if (path / MANIFEST).is_file():
            manifest = read_manifest(path)
            release = registry_root(registry) / manifest["name"] / manifest["version"]
            return manifest, path, release if (release / MANIFEST).is_file() else None
        return None, path, None
    found = find(str(ref), registry)
    data = found["path"]
    if not ((data / MANIFEST).is_file() and read_manifest(data).get("version") == found["manifest"]["version"]):
        data = None
    return found["manifest"], data, found["release"]


def read_index(release: Path) -> Iterator[JsonDict]:
    """A registered version's index rows, in id order, as they are read."""
    return read_records(release / INDEX, require_text=False)


def read_dropped(release: Path) -> Iterator[JsonDict]:
    return read_records(release / DROPPED, require_text=False)

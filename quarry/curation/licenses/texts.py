"""Standard licence texts by SPDX id, from the licence data ScanCode ships (for the attribution
bundle of a dataset version: quarry.datasets.attribution)."""

from __future__ import annotations

from collections.abc import Iterable

from quarry.curation.licenses.cache import CachedDetector
from quarry.curation.licenses.engine import ScanCodeError, scancode_python
from quarry.curation.licenses.known import license_body, licenses_folder


def standard_texts(ids: Iterable[str]) -> dict[str, str]:
    """The standard text of each SPDX id, from the licence data ScanCode ships (ids it lacks, or
    every id when ScanCode is not installed, are left out: the bundle then lists them as missing)."""
    ids = sorted(set(ids))
    if not ids:
        return {}
    try:
        python = scancode_python()
    except ScanCodeError:
        return {}
    known, folder = CachedDetector(python=python).known, licenses_folder(python)
    if known is None or folder is None:
        return {}
    texts = {}
    for spdx in ids:
        key = known.spdx.get(spdx.lower())
        if key and (folder / f"{key}.LICENSE").is_file():
            texts[spdx] = license_body((folder / f"{key}.LICENSE").read_text(encoding="utf-8")).strip() + "\n"
    return texts

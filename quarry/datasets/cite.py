"""Citing a dataset version: name, semantic version label and content hash, as text or BibTeX."""

from __future__ import annotations

import re

from quarry.datasets.manifest import Manifest
from quarry.records import JsonDict


def _citation(manifest: Manifest) -> JsonDict:
    return manifest.get("citation") or {}


def plain(manifest: Manifest, year: int | None = None) -> str:
    info = _citation(manifest)
    author = f"{info['author']}. " if info.get("author") else ""
    when = f" ({year})" if year else ""
    url = f" {info['url']}" if info.get("url") else ""
    return (f"{author}{manifest['name']}{when}, version {manifest['label']}. Dataset, "
            f"sha256:{manifest['version']}.{url}")


def bibtex(manifest: Manifest, year: int | None = None) -> str:
    info = _citation(manifest)
    key = re.sub(r"[^A-Za-z0-9]+", "_", f"{manifest['name']}_{manifest['label']}") + f"_{manifest['version'][:8]}"
    fields = {"title": f"{{{manifest['name']}}}: version {manifest['label']}",
              "author": info.get("author"),
              "year": str(year) if year else None,
              "version": manifest["label"],
              "note": f"Dataset version sha256:{manifest['version']}",
              "howpublished": f"\\url{{{info['url']}}}" if info.get("url") else None}
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    return f"@misc{{{key},\n{body}\n}}"

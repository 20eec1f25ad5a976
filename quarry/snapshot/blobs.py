"""A blob store: contents named by their content id (a Software Heritage sha1_git, hex), as
``ID``, ``ID.gz`` or ``ID.zst``, flat or under ``ID[:2]/``: how The Stack v2's variants without
contents expect them, fetched from Software Heritage. The maps read it, one blob at a time."""

from __future__ import annotations

import gzip
from pathlib import Path

import zstandard

from quarry.errors import QuarryError

MAX_BLOB_BYTES = 1 << 31


def _zstd(data: bytes) -> bytes:
    return zstandard.ZstdDecompressor().decompress(data, max_output_size=MAX_BLOB_BYTES)


DECODERS = (("", bytes), (".gz", gzip.decompress), (".zst", _zstd))


class BlobStore:
    def __init__(self, root: str | Path):
        self.root = Path(root).expanduser()
        if not self.root.is_dir():
            raise QuarryError(f"blob store {self.root}: not a directory")

    def read(self, content_id: str) -> bytes | None:
        for folder in (self.root, self.root / content_id[:2]):
            for suffix, decode in DECODERS:
                path = folder / f"{content_id}{suffix}"
                if path.is_file():
                    return decode(path.read_bytes())
        return None

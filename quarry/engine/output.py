"""A stage's output folder, swapped in whole: readers see the last complete output or none.

Shards are written into ``.<name>.staging`` beside the output, seeded with hard links to the
current output (a cached shard stays valid and costs nothing to keep). At the end, every file
this run did not produce is removed from staging (shards of an earlier, larger input), the
ledger goes in, and the staging folder replaces the output. A run that fails leaves the output
as it was and its staging folder is removed (a full disk is not kept full by the attempt); a
killed one's finished shards stay in staging for the next run.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from quarry.errors import QuarryError


class StagedOutput:
    def __init__(self, src: Path | None, dst: Path):
        dst = Path(dst)
        if src is not None and (dst.resolve() == Path(src).resolve() or Path(src).resolve() in dst.resolve().parents):
            raise QuarryError(f"{dst}: the output folder must not be the input folder {src} or inside it")
        self.dst = dst
        self.staging = dst.parent / f".{dst.name}.staging"
        self.work = dst.parent / f".{dst.name}.work"

    def open(self) -> Path:
        old = self._old()
        if not self.dst.exists() and old.is_dir():  # killed between the two renames of commit()
            os.replace(old, self.dst)
        if not self.staging.is_dir():
            seed = self.staging.with_name(self.staging.name + ".seed")
            shutil.rmtree(seed, ignore_errors=True)
            if self.dst.is_dir():
                shutil.copytree(self.dst, seed, copy_function=link_or_copy)
            else:
                seed.mkdir(parents=True)
            os.replace(seed, self.staging)
        return self.staging

    def prune(self, produced: set[str] | None) -> None:
        """Remove every staged file that is not one of ``produced`` (relative paths; None: the
        stage's finish removed what it did not write itself), and empty folders."""
        for path in sorted(self.staging.rglob("*"), reverse=True):
            rel = path.relative_to(self.staging).as_posix()
            if path.is_dir():
                if not any(path.iterdir()):
                    path.rmdir()
            elif produced is not None and rel not in produced:
                path.unlink()

    def discard(self) -> None:
        """Remove the staging folder of a failed run (the output stays as it was)."""
        shutil.rmtree(self.staging, ignore_errors=True)

    def _old(self) -> Path:
        return self.dst.with_name(f".{self.dst.name}.old")

    def commit(self) -> None:
        old = self._old()
        shutil.rmtree(old, ignore_errors=True)
        if self.dst.exists():
            os.replace(self.dst, old)
        os.replace(self.staging, self.dst)
        shutil.rmtree(old, ignore_errors=True)


def link_or_copy(src: str | os.PathLike, dst: str | os.PathLike) -> None:
    """``dst`` the same file as ``src``: a hard link, else (another file system) a copy."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)

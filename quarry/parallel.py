"""The shards of a stage's input folder, their names, and the progress bar of a phase over them
(quarry.engine.local maps phases over them, in this process or a process pool)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


def progress_bar() -> Progress:
    console = Console(stderr=True)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=console, transient=True, disable=not console.is_terminal)


def input_shards(src_dir: Path) -> list[Path]:
    """Record shards below ``src_dir``, sorted, leaving out a previous stage's ``rejects/``."""
    from quarry.records import shard_paths

    src_dir = Path(src_dir)
    if src_dir.is_file():
        return [src_dir]
    return [p for p in shard_paths(src_dir) if "rejects" not in p.relative_to(src_dir).parts[:-1]]


def relative_name(shard: Path, src_dir: Path) -> str:
    src_dir = Path(src_dir)
    return shard.name if src_dir.is_file() else shard.relative_to(src_dir).as_posix()

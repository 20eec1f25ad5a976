"""Progress of a map over shards: jobs done of total, MB read, MB/s and the time left.

On a terminal it is a rich bar (on stderr, gone when the phase ends); elsewhere (a log, CI, the
Prefect worker) a plain line every ``every_s`` seconds, only for phases that last that long, so a
quick phase adds nothing to the log. A ``sink`` (the Prefect executor's progress artifact) gets the
fraction done as tasks finish.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

PLAIN_EVERY_S = 10.0


class ShardProgress:
    def __init__(self, description: str, total: int, total_bytes: int = 0, *,
                 log: Callable[[str], None] | None = None, sink: Callable[[float], None] | None = None,
                 every_s: float | None = None, console: Console | None = None):
        self.description, self.total, self.total_bytes = description, total, total_bytes
        self.log, self.sink = log, sink
        self.every_s = PLAIN_EVERY_S if every_s is None else every_s
        self.done = self.bytes = 0
        self.started = self.last_line = time.monotonic()
        self.lines = 0
        console = console or Console(stderr=True)
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), TimeElapsedColumn(),
                            console=console, transient=True) if console.is_terminal else None
        self.task = self.bar.add_task(description, total=total, rate="") if self.bar is not None else None

    def __enter__(self) -> ShardProgress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
        if self.lines and self.log is not None and exc[0] is None:  # a long phase says when it ended
            self.log(self.line())

    def advance(self, jobs: int = 1, nbytes: int = 0) -> None:
        self.done += jobs
        self.bytes += nbytes
        if self.bar is not None:
            self.bar.update(self.task, advance=jobs, rate=self.rate_text())
        now = time.monotonic()
        if self.bar is None and self.log is not None and now - self.last_line >= self.every_s and self.done < self.total:
            self.last_line = now
            self.lines += 1
            self.log(self.line())
        if self.sink is not None:
            self.sink(self.done / self.total if self.total else 1.0)

    def rate_text(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        return f"{self.bytes / 1e6 / elapsed:.2f} MB/s" if self.bytes else ""

    def eta(self) -> timedelta | None:
        if not self.done or self.done >= self.total:
            return None
        elapsed = time.monotonic() - self.started
        return timedelta(seconds=round(elapsed / self.done * (self.total - self.done)))

    def line(self) -> str:
        elapsed = timedelta(seconds=round(time.monotonic() - self.started))
        parts = [f"{self.description}: {self.done}/{self.total}"]
        if self.bytes:
            parts.append(f"{self.bytes / 1e6:.1f} MB, {self.rate_text()}")
        parts.append(f"ETA {self.eta()}" if self.eta() is not None else f"in {elapsed}")
        return ", ".join(parts)

"""Errors that the CLI reports as one clear line (no traceback unless --debug).

They cross process boundaries (a process pool, a Dask worker) by pickle, which by default calls
``cls(*args)``; a subclass whose constructor takes other arguments would fail to unpickle and hide
the real error, so every Quarry error is rebuilt from its message and attributes instead."""

from __future__ import annotations


class QuarryError(Exception):
    """A user-facing error: bad input, bad config, missing file. Says what and where."""

    def __reduce__(self):
        return _rebuild, (type(self), self.args, dict(self.__dict__))


def _rebuild(cls: type[QuarryError], args: tuple, attributes: dict) -> QuarryError:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(attributes)
    return error


class RecordError(QuarryError):
    """A corrupt record: names the file, the line and the byte offset where it starts."""

    def __init__(self, path, line: int | None, offset: int | None, problem: str):
        self.path, self.line, self.offset, self.problem = str(path), line, offset, problem
        where = self.path
        if line is not None:
            where += f":{line}"
        if offset is not None:
            where += f" (byte {offset})"
        super().__init__(f"{where}: {problem}")


class ConfigError(QuarryError):
    """A bad key or value in params.yaml or a recipe config."""

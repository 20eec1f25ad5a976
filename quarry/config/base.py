"""The base of every params section: frozen, unknown keys refused, errors that name the key.

A section is a pydantic model; its defaults are the only defaults of that section anywhere. Code
reads a section as an attribute of the one typed ``Params`` (``params.dedup``); a test or bench
holding a partial dict builds that ``Params`` with ``quarry.config.as_params``.
"""

from __future__ import annotations

import difflib
import types
import typing
from typing import Any, ClassVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError

from quarry.errors import ConfigError


class Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    key: ClassVar[str] = ""   # where the section lives in params.yaml (dotted)

    @classmethod
    def from_section(cls, section: Section):
        """This class (a section with behaviour, such as quarry.curation.dedup.config.DedupConfig) holding
        the values of the plain ``section`` it extends, already checked."""
        return section if isinstance(section, cls) else cls(**dict(section))

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-like values (lists, str, numbers), as params.yaml would write them."""
        return self.model_dump(mode="json")


def parse(model: type[BaseModel], data: Any, *, source: str = "params", prefix: str = "") -> Any:
    """``model`` validated from ``data``; a ValidationError becomes one line naming the key path."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe(exc, model, source=source, prefix=prefix)) from None


def describe(exc: ValidationError, model: type[BaseModel], *, source: str, prefix: str = "") -> str:
    """The first error as ``source: key.path: what is wrong`` (with the nearest valid key for a
    typo), then how many more there are."""
    errors = exc.errors()
    first = errors[0]
    loc = [str(part) for part in first["loc"]]
    path = ".".join(filter(None, [prefix, *loc]))
    if first["type"] == "extra_forbidden":
        valid = sorted(valid_keys(model, first["loc"][:-1]))
        near = difflib.get_close_matches(loc[-1], valid, n=1, cutoff=0.6)
        hint = f"did you mean '{'.'.join(filter(None, [prefix, *loc[:-1], near[0]]))}'? " if near else ""
        message = f"unknown key '{path}'; {hint}valid keys here: {', '.join(valid)}"
    else:
        got = first.get("input")
        shown = "" if first["type"] == "missing" or isinstance(got, dict) else f" (got {got!r})"
        message = f"{path or '(top level)'}: {first['msg']}{shown}"
    more = f"; and {len(errors) - 1} more: {', '.join(_path(e, prefix) for e in errors[1:4])}" if len(errors) > 1 else ""
    return f"{source}: {message}{more}"


def _path(error: dict, prefix: str) -> str:
    return ".".join(filter(None, [prefix, *(str(p) for p in error["loc"])]))


def valid_keys(model: type[BaseModel], loc: tuple) -> list[str]:
    """Field names of the (nested) model found at ``loc`` below ``model``."""
    target: Any = model
    for part in loc:
        target = _inner(target)
        if isinstance(part, int) or target is None:
            continue
        if isinstance(target, type) and issubclass(target, BaseModel) and part in target.model_fields:
            target = target.model_fields[part].annotation
        elif get_origin(target) is dict:
            target = get_args(target)[1]
    target = _inner(target)
    return list(target.model_fields) if isinstance(target, type) and issubclass(target, BaseModel) else []


def _inner(annotation: Any) -> Any:
    """The model inside Optional[...], list[...], tuple[..., ...]: where nested keys live."""
    while True:
        origin = get_origin(annotation)
        if origin in (Union, types.UnionType):
            args = [a for a in get_args(annotation) if a is not type(None)]
            models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
            annotation = (models or args or [None])[0]
        elif origin in (list, tuple, set, frozenset):
            annotation = get_args(annotation)[0]
        elif origin is typing.Annotated:
            annotation = get_args(annotation)[0]
        else:
            return annotation


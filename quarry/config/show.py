"""The effective params as YAML, each value marked when it comes from the defaults."""

from __future__ import annotations

from typing import Any

import yaml

from quarry.config.params import Params
from quarry.errors import ConfigError


def effective_yaml(params: Params, section: str | None = None, *, changed: bool = False) -> str:
    """YAML of ``params`` (or one dotted ``section``); values params.yaml leaves unset end in
    ``# default``; with ``changed`` only the values that differ from the defaults are printed."""
    values = params.as_dict()
    defaults = Params().as_dict()
    given = params.model_dump(mode="json", exclude_unset=True)
    path = section.split(".") if section else []
    for part in path:
        if not isinstance(values, dict) or part not in values:
            raise ConfigError(f"params: no key '{section}'; sections: {', '.join(Params.model_fields)}")
        values, defaults, given = values[part], defaults.get(part), (given or {}).get(part)
    lines = _lines(values, defaults, given, indent=0, changed=changed)
    return "\n".join(lines) if lines else "(every value is the default)"


def _lines(values: Any, defaults: Any, given: Any, indent: int, changed: bool) -> list[str]:
    pad = "  " * indent
    if not isinstance(values, dict):
        return [pad + _scalar(values) + ("" if given is not None else "  # default")]
    lines = []
    for key, value in values.items():
        default = defaults.get(key) if isinstance(defaults, dict) else None
        mine = given.get(key) if isinstance(given, dict) else None
        if changed and value == default:
            continue
        if isinstance(value, dict) and value:
            lines.append(f"{pad}{key}:")
            lines.extend(_lines(value, default, mine, indent + 1, changed))
        else:
            mark = "" if mine is not None or (isinstance(given, dict) and key in given) else "  # default"
            lines.append(f"{pad}{key}: {_scalar(value)}{mark}")
    return lines


def _scalar(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=10_000).strip().removesuffix("...").strip()

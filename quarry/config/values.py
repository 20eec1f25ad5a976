"""params.yaml for the code that runs the DAG: the typed ``Params`` (quarry.config), and values
addressed by dotted keys for what hashes plain values (cache keys, a manifest's params hash)."""

from __future__ import annotations

import os
from typing import Any

from quarry.config import Params, as_params, load
from quarry.errors import ConfigError
from quarry.infra.hashing import value_hash
from quarry.records import JsonDict

_MISSING = object()


def load_params(path: str | os.PathLike | None = None, given: Params | None = None) -> Params:
    """params.yaml checked whole against quarry.config.Params (a typo or a wrong type anywhere is a
    ConfigError naming the file and key), every default filled in; ``given`` (typed params a flow
    run received, from the Prefect UI say) is used instead of the file."""
    return given if given is not None else load(path)


def get(params: Params | JsonDict, dotted: str, default: Any = _MISSING) -> Any:
    """The plain value at 'a.b' (params['a']['b']); a missing key raises ConfigError listing the valid ones."""
    node: Any = params.as_dict() if isinstance(params, Params) else params
    walked = []
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            if default is not _MISSING:
                return default
            valid = ", ".join(sorted(node)) if isinstance(node, dict) else "(not a mapping)"
            where = ".".join(walked) or "top level"
            raise ConfigError(f"params: no key '{part}' under {where}; valid keys: {valid}")
        node = node[part]
        walked.append(part)
    return node


def section_hash(params: Params | JsonDict, *dotted: str) -> str:
    """Hash of the named sections as plain values: what a stage's cache key and a manifest's params hash use."""
    values = params.as_dict() if isinstance(params, Params) else params
    return value_hash({key: get(values, key, None) for key in dotted})


__all__ = ["Params", "as_params", "get", "load_params", "section_hash"]

"""params.yaml as the plain mapping most stages read, addressed by dotted keys (typed: quarry.config)."""

from __future__ import annotations

import os
from typing import Any

from quarry.config import Params, load
from quarry.errors import ConfigError
from quarry.hashing import value_hash

_MISSING = object()


def load_params(path: str | os.PathLike | None = None, given: Params | None = None) -> dict[str, Any]:
    """params.yaml checked whole against quarry.config.Params (a typo or a wrong type anywhere is a
    ConfigError naming the file and key), as plain values with every default filled in; ``given``
    (typed params a flow run received, from the Prefect UI say) is used instead of the file."""
    return (given if given is not None else load(path)).as_dict()


def get(params: dict[str, Any], dotted: str, default: Any = _MISSING) -> Any:
    """params['a']['b'] for 'a.b'; a missing key raises ConfigError listing the valid ones."""
    node: Any = params
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


def section_hash(params: dict[str, Any], *dotted: str) -> str:
    """Hash of the named sections: what a stage's cache key and a manifest's params hash use."""
    return value_hash({key: get(params, key, None) for key in dotted})

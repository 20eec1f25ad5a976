"""params.yaml: every tunable of every stage (DVC params). Loaded once, addressed by dotted keys."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from quarry.errors import ConfigError
from quarry.hashing import value_hash
from quarry.paths import project_root

_MISSING = object()


def load_params(path: str | os.PathLike | None = None) -> dict[str, Any]:
    path = Path(path) if path else project_root() / "params.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return data


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

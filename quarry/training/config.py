"""Recipe configs: YAML files naming what to build with `_component_`, overridden by `key=value`.

A config is plain nested dicts. `_component_` holds a dotted import path; its sibling keys are
the keyword arguments. Validation checks every key against the recipe's schema (its defaults)
and every component's keyword arguments against the callable's signature, so a typo fails
before any model is built, naming the key and listing the valid ones.
"""

from __future__ import annotations

import copy
import difflib
import importlib
import inspect
import os
from pathlib import Path
from typing import Any, Callable

import yaml

from quarry.errors import ConfigError
from quarry.hashing import value_hash

COMPONENT = "_component_"
BUILTIN_DIR = Path(__file__).resolve().parents[1] / "configs"  # package data: shipped in the wheel


def builtin_configs() -> dict[str, Path]:
    """Built-in config names (file stems under quarry/configs/) to their paths."""
    if not BUILTIN_DIR.is_dir():
        return {}
    return {p.stem: p for p in sorted(BUILTIN_DIR.glob("*.yaml"))}


def config_path(name_or_path: str | os.PathLike) -> Path:
    """A config file: an existing path, or the name of a built-in config (``dag_lora``, and the
    ``configs/dag_lora.yaml`` of a checkout from before they moved into the package)."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    name = path.name if path.parent == Path("configs") else str(name_or_path)
    found = builtin_configs().get(name.removesuffix(".yaml"))
    if found is None:
        names = ", ".join(builtin_configs()) or "(none)"
        raise ConfigError(f"config '{name_or_path}': no such file or built-in config; built-in: {names}")
    return found


def load_config(name_or_path: str | os.PathLike, overrides: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    """Read a config (file or built-in name) and apply ``key=value`` overrides."""
    path = config_path(name_or_path)
    try:
        cfg = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return apply_overrides(cfg, overrides)


def apply_overrides(cfg: dict[str, Any], overrides: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """``a.b=v`` sets an existing key, ``+a.b=v`` adds a new one, ``~a.b`` deletes one.

    Values are parsed as YAML (``lr=3e-4`` is a float, ``x=null`` is None). Setting a key that
    does not exist is an error naming it and its valid siblings (torchtune's convention), except
    inside a ``_component_`` node, whose keys are checked against the component's signature.
    """
    cfg = copy.deepcopy(cfg)
    for item in overrides:
        if item.startswith("~"):
            parent, leaf, _ = _walk(cfg, item[1:], create=False)
            if leaf not in parent:
                raise _unknown(item[1:], leaf, parent)
            del parent[leaf]
            continue
        if "=" not in item:
            raise ConfigError(f"override '{item}': expected key=value")
        key, raw = item.split("=", 1)
        add = key.startswith("+")
        key = key.lstrip("+")
        parent, leaf, free = _walk(cfg, key, create=add)
        # A component's keyword arguments are checked against its signature, not against the file.
        if not add and leaf not in parent and not free:
            raise _unknown(key, leaf, parent)
        parent[leaf] = _parse_value(raw)
    return cfg


def _parse_value(raw: str) -> Any:
    try:
        value = yaml.safe_load(raw) if raw != "" else ""
    except yaml.YAMLError:
        return raw
    if isinstance(value, str):  # YAML 1.1 reads "3e-4" as a string; a number is meant
        try:
            return float(value)
        except ValueError:
            pass
    return value


def _walk(cfg: dict[str, Any], dotted: str, *, create: bool) -> tuple[dict[str, Any], str, bool]:
    """The parent mapping of ``dotted``, its last part, and whether that parent is free-form."""
    parts = dotted.split(".")
    node = cfg
    free = False
    for i, part in enumerate(parts[:-1]):
        if part in node and node[part] is None:
            node[part], free = {}, True  # a section left empty (null) takes any keys
        elif part not in node and create:
            node[part] = {}
        if not isinstance(node.get(part), dict):
            raise _unknown(".".join(parts[: i + 1]), part, node)
        node = node[part]
    return node, parts[-1], free or COMPONENT in node


def _unknown(dotted: str, leaf: str, parent: dict[str, Any]) -> ConfigError:
    valid = ", ".join(sorted(parent)) or "(none)"
    return ConfigError(f"config: unknown key '{dotted}'; valid keys here: {valid}")


def resolve_component(path: str) -> Callable[..., Any]:
    """Import ``package.module.attr`` (attr may itself be dotted, e.g. a classmethod)."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            break
        return obj
    raise ConfigError(f"config: cannot import component '{path}'")


def instantiate(node: dict[str, Any] | None, *args: Any, **kwargs: Any) -> Any:
    """Call ``node['_component_']`` with the node's other keys, updated by ``kwargs``."""
    if node is None:
        return None
    if not isinstance(node, dict) or COMPONENT not in node:
        raise ConfigError(f"config: expected a mapping with '{COMPONENT}', got {node!r}")
    fn = resolve_component(node[COMPONENT])
    params = {k: v for k, v in node.items() if k != COMPONENT}
    params.update(kwargs)
    return fn(*args, **params)


# The type of keys whose default does not say it: a null default, or a key taking two shapes.
KEY_TYPES: dict[str, type | tuple[type, ...]] = {
    "lora.target_modules": (list, str),  # module names, or "all-linear"
    "max_steps": int, "dataset.path": str, "dataset.tokens": str, "dataset.subset": str, "dataset.max_docs": int,
    "dataset.name": str, "fsdp.param_dtype": str, "mlflow.run_name": str, "base_model": str, "lora.dtype": str,
}


def validate(cfg: dict[str, Any], schema: dict[str, Any], where: str = "") -> None:
    """Every key of ``cfg`` must exist in ``schema`` with a value of the default's type (an int
    where the default is an int, a number where it is a float, ...); components must accept their
    keys.

    A schema value of ``None`` accepts anything there unless KEY_TYPES names the key's type;
    a component node's keys are checked against the component's signature rather than the schema's.
    """
    for key, value in cfg.items():
        dotted = f"{where}.{key}" if where else key
        if key not in schema:
            valid = ", ".join(sorted(schema)) or "(none)"
            near = difflib.get_close_matches(str(key), list(schema), n=1)
            hint = f"did you mean '{near[0]}'? " if near else ""
            raise ConfigError(f"config: unknown key '{dotted}'; {hint}valid keys here: {valid}")
        expected = schema[key]
        if isinstance(value, dict) and COMPONENT in value:
            _check_component(value, dotted)
        elif isinstance(value, dict) and isinstance(expected, dict) and COMPONENT not in expected:
            validate(value, expected, dotted)
        elif not (isinstance(expected, dict) and COMPONENT in expected):
            _check_type(dotted, value, expected)


def _check_type(dotted: str, value: Any, default: Any) -> None:
    if value is None:
        return
    wanted = KEY_TYPES.get(dotted) or (None if default is None else type(default))
    if wanted is None:
        return
    if isinstance(wanted, tuple):
        if not isinstance(value, wanted):
            raise ConfigError(f"config: {dotted} must be one of {', '.join(t.__name__ for t in wanted)}, got {value!r}")
        return
    ok = {bool: lambda v: isinstance(v, bool),
          int: lambda v: isinstance(v, int) and not isinstance(v, bool),
          float: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
          list: lambda v: isinstance(v, (list, tuple)),
          dict: lambda v: isinstance(v, dict)}.get(wanted, lambda v: isinstance(v, wanted))
    if not ok(value):
        name = {bool: "true or false", int: "an integer", float: "a number", str: "a string", list: "a list",
                dict: "a mapping"}.get(wanted, getattr(wanted, "__name__", str(wanted)))
        raise ConfigError(f"config: {dotted} must be {name}, got {value!r}")


def _check_component(node: dict[str, Any], where: str) -> None:
    fn = resolve_component(node[COMPONENT])
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    params = sig.parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    accepted = [n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key in node:
        if key != COMPONENT and key not in accepted:
            raise ConfigError(f"config: unknown key '{where}.{key}' for {node[COMPONENT]}; "
                              f"valid keys: {', '.join(accepted) or '(none)'}")


def merge_defaults(defaults: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    """``defaults`` deep-updated by ``cfg``: the resolved config a run records."""
    out = copy.deepcopy(defaults)
    for key, value in cfg.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and COMPONENT not in value:
            out[key] = merge_defaults(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def config_hash(cfg: dict[str, Any]) -> str:
    return value_hash(cfg)


def dump_config(cfg: dict[str, Any]) -> str:
    return yaml.safe_dump(cfg, sort_keys=False)

"""Recipe configs: YAML files naming what to build with `_component_`, overridden by `key=value`.

A config is plain nested dicts. `_component_` holds a dotted import path; its sibling keys are
the keyword arguments. Validation checks every key against the recipe's schema (a pydantic model
of quarry.config.recipes, which holds the defaults) and every component's keyword arguments
against the callable's signature, so a typo fails before any model is built, naming the key and
listing the valid ones.
"""

from __future__ import annotations

import copy
import difflib
import importlib
import inspect
import os
import typing
from pathlib import Path
from collections.abc import Mapping, Sequence
from typing import Any, Callable, TypeAlias, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from quarry.config.base import valid_keys
from quarry.errors import ConfigError
from quarry.infra.hashing import value_hash

# A recipe config or a node of it: plain YAML values, `_component_` nodes among them.
ConfigNode: TypeAlias = dict[str, Any]
M = TypeVar("M", bound=BaseModel)   # a recipe schema (quarry.config.recipes)

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


def load_config(name_or_path: str | os.PathLike, overrides: list[str] | tuple[str, ...] = ()) -> ConfigNode:
    """Read a config (file or built-in name) and apply ``key=value`` overrides."""
    path = config_path(name_or_path)
    try:
        cfg = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return apply_overrides(cfg, overrides)


def apply_overrides(cfg: ConfigNode, overrides: Sequence[str] | Mapping[str, Any]) -> ConfigNode:
    """``a.b=v`` sets an existing key, ``+a.b=v`` adds a new one, ``~a.b`` deletes one.

    Values are parsed as YAML (``lr=3e-4`` is a float, ``x=null`` is None); a mapping of dotted
    keys (what a flow hands over from typed params) sets its values as they are, unparsed.
    Setting a key that does not exist is an error naming it and its valid siblings (torchtune's
    convention), except inside a ``_component_`` node, whose keys are checked against the
    component's signature.
    """
    cfg = copy.deepcopy(cfg)
    if isinstance(overrides, Mapping):
        for key, value in overrides.items():
            parent, leaf, free = _walk(cfg, key, create=False)
            if leaf not in parent and not free:
                raise _unknown(key, leaf, parent)
            parent[leaf] = copy.deepcopy(value)
        return cfg
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


def _walk(cfg: ConfigNode, dotted: str, *, create: bool) -> tuple[ConfigNode, str, bool]:
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


def _unknown(dotted: str, leaf: str, parent: ConfigNode) -> ConfigError:
    valid = ", ".join(sorted(parent)) or "(none)"
    near = difflib.get_close_matches(leaf, list(parent), n=1)
    hint = f"did you mean '{dotted.rsplit('.', 1)[0] + '.' if '.' in dotted else ''}{near[0]}'? " if near else ""
    return ConfigError(f"config: unknown key '{dotted}'; {hint}valid keys here: {valid}")


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


def instantiate(node: ConfigNode | None, *args: Any, **kwargs: Any) -> Any:
    """Call ``node['_component_']`` with the node's other keys, updated by ``kwargs``."""
    if node is None:
        return None
    if not isinstance(node, dict) or COMPONENT not in node:
        raise ConfigError(f"config: expected a mapping with '{COMPONENT}', got {node!r}")
    fn = resolve_component(node[COMPONENT])
    params = {k: v for k, v in node.items() if k != COMPONENT}
    params.update(kwargs)
    return fn(*args, **params)


def validate(cfg: ConfigNode, schema: type[M]) -> M:
    """``cfg`` as the recipe's schema object (quarry.config.recipes): an unknown key or a value of
    the wrong type is a ConfigError naming its key path (and the nearest valid key); every
    ``_component_`` node's keys are checked against the callable's signature."""
    try:
        typed = schema.model_validate(cfg)
    except ValidationError as exc:
        raise ConfigError(_describe(exc.errors()[0], schema)) from None
    _check_components(cfg, "")
    return typed


_KINDS = {"bool": "true or false", "int": "an integer", "float": "a number", "string": "a string", "list": "a list",
          "dict": "a mapping", "model": "a mapping"}


def _describe(error: ErrorDetails, schema: type[BaseModel]) -> str:
    loc = [str(part) for part in error["loc"] if not isinstance(part, int)]
    unknown = error["type"] == "extra_forbidden"
    # a union (str | None, list[str] | str) names its member in the location: not a key
    names = _keys_below(schema)
    keys = [part for part in (loc[:-1] if unknown else loc) if part in names] + (loc[-1:] if unknown else [])
    dotted = ".".join(keys)
    if unknown:
        valid = sorted(valid_keys(schema, tuple(keys[:-1])))
        near = difflib.get_close_matches(keys[-1], valid, n=1)
        hint = f"did you mean '{'.'.join([*keys[:-1], near[0]])}'? " if near else ""
        return f"config: unknown key '{dotted}'; {hint}valid keys here: {', '.join(valid) or '(none)'}"
    kind = next((name for prefix, name in _KINDS.items() if error["type"].startswith(prefix)), None)
    if kind is not None:
        return f"config: {dotted} must be {kind}, got {error['input']!r}"
    return f"config: {dotted}: {error['msg'].removeprefix('Value error, ')}"


def _keys_below(schema: type[BaseModel]) -> set[str]:
    """Every field name of the models nested below ``schema``: the key parts of an error's location."""
    names: set[str] = set()
    todo: list[Any] = [schema]
    while todo:
        model = todo.pop()
        names.update(model.model_fields)
        for field in model.model_fields.values():
            for arg in (field.annotation, *typing.get_args(field.annotation)):
                if isinstance(arg, type) and issubclass(arg, BaseModel) and arg is not model:
                    todo.append(arg)
    return names


def _check_components(node: ConfigNode, where: str) -> None:
    for key, value in node.items():
        if isinstance(value, dict):
            dotted = f"{where}.{key}" if where else key
            if COMPONENT in value:
                _check_component(value, dotted)
            else:
                _check_components(value, dotted)


def _check_component(node: ConfigNode, where: str) -> None:
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


def merge_defaults(defaults: ConfigNode, cfg: ConfigNode) -> ConfigNode:
    """``defaults`` deep-updated by ``cfg``: the resolved config a run records."""
    out = copy.deepcopy(defaults)
    for key, value in cfg.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and COMPONENT not in value:
            out[key] = merge_defaults(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def config_hash(cfg: ConfigNode) -> str:
    return value_hash(cfg)


def dump_config(cfg: ConfigNode) -> str:
    return yaml.safe_dump(cfg, sort_keys=False)

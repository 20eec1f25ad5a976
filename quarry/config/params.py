"""The whole of params.yaml as one typed object: every section checked before any stage runs."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from quarry.config.base import Section, parse
from quarry.config.curation import (DecontaminateParams, DedupParams, FiltersParams, LicensesParams, OptOutParams,
                                    PiiParams)
from quarry.config.datasets import AssembleParams
from quarry.config.pipeline import Layout, PipelineParams
from quarry.config.snapshot import SnapshotParams
from quarry.config.training import EvaluateParams, FinetuneParams, TokenizeParams, TokenizerParams, TrainParams
from quarry.errors import ConfigError
from quarry.infra.hashing import value_hash
from quarry.paths import project_root, state_dir
from quarry.records import atomic_write_bytes


class Params(Section):
    """params.yaml: one section per stage, each with its defaults (absent sections take them all)."""

    pipeline: PipelineParams = PipelineParams()
    snapshot: SnapshotParams = SnapshotParams()
    licenses: LicensesParams = LicensesParams()
    optout: OptOutParams = OptOutParams()
    filters: FiltersParams = FiltersParams()
    pii: PiiParams = PiiParams()
    dedup: DedupParams = DedupParams()
    decontaminate: DecontaminateParams = DecontaminateParams()
    assemble: AssembleParams = AssembleParams()
    tokenizer: TokenizerParams = TokenizerParams()
    tokenize: TokenizeParams = TokenizeParams()
    train: TrainParams = TrainParams()
    finetune: FinetuneParams = FinetuneParams()
    evaluate: EvaluateParams = EvaluateParams()


def as_params(params: Params | Mapping[str, Any] | None = None, *, source: str = "params") -> Params:
    """The typed ``Params`` of ``params``: itself, or a mapping shaped like params.yaml (absent
    sections and keys take their defaults) checked like the file. The one way code that holds a
    partial dict (a test, a bench) hands params to a stage."""
    if isinstance(params, Params):
        return params
    if params is not None and not isinstance(params, Mapping):
        raise ConfigError(f"{source}: expected a mapping of params.yaml sections, got {type(params).__name__}")
    return parse(Params, {k: ({} if v is None else v) for k, v in (params or {}).items()}, source=source)


def params_path(path: str | os.PathLike | None = None) -> Path:
    return Path(path) if path else project_root() / "params.yaml"


def read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {' '.join(str(exc).split())}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return data


def load(path: str | os.PathLike | None = None) -> Params:
    """params.yaml (the project's when ``path`` is None) validated whole: a typo or a wrong type in
    any section is one ConfigError naming the file and the key path, before anything runs. Outside a
    project (no params.yaml found) every default applies; a named file must exist."""
    if path is None and not params_path().is_file():
        return Params()
    path = params_path(path)
    return as_params(read_yaml(path), source=str(path))


def project_layout() -> Layout:
    """The project's layout (its params.yaml, checked; the defaults where it has none), rooted there."""
    return Layout(load().pipeline.paths if params_path().is_file() else None, project_root())


def with_overrides(params: Params, overrides: dict[str, Any], source: str = "overrides") -> Params:
    """``params`` with dotted keys replaced (``{"dedup.threshold": 0.8}``), checked like the file."""
    data = params.model_dump(mode="json", exclude_unset=True)
    for dotted, value in overrides.items():
        node = data
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"{source}: {dotted}: {part} is not a section")
        node[leaf] = value
    return parse(Params, data, source=source)


def effective_file(params: Params, folder: Path | None = None) -> Path:
    """``params`` written whole as a params file named by its content (.quarry/params/<hash>.yaml),
    for stages that read a file, such as the subflows of a pipeline run started from the Prefect UI."""
    values = params.as_dict()
    target = (folder or state_dir() / "params") / f"{value_hash(values)[:16]}.yaml"
    if not target.is_file():
        atomic_write_bytes(target, yaml.safe_dump(values, sort_keys=False).encode())
    return target

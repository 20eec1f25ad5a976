"""Typed configuration: params.yaml as pydantic models (``Params``, one model per section) and the
DAG's folders (``Layout``). Defaults live in these models only."""

from quarry.config.base import Section
from quarry.config.params import Params, as_params, load, with_overrides
from quarry.config.pipeline import Layout

__all__ = ["Layout", "Params", "Section", "as_params", "load", "with_overrides"]

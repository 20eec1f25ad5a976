"""The one vocabulary of dtypes and devices, shared by training recipes and evaluation.

Dtypes are torch's names (``float32``, ``bfloat16``, ``float16``); torchtune's short spellings
(``fp32``, ``bf16``, ``fp16``) are aliases, kept as written so that an existing config hashes as
before. A device is ``auto`` (CUDA when present, else the CPU), ``cpu``, ``mps`` or ``cuda[:N]``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator

DTYPES = ("float32", "bfloat16", "float16")
DTYPE_ALIASES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
DEVICE = re.compile(r"auto|cpu|mps|cuda(:\d+)?")


def dtype_name(name: str) -> str:
    """The torch name of a dtype spelling (``bf16`` -> ``bfloat16``); ValueError for another."""
    canonical = DTYPE_ALIASES.get(name, name)
    if canonical not in DTYPES:
        raise ValueError(f"not a dtype: {name!r}; valid: {', '.join(DTYPES)} (or {', '.join(DTYPE_ALIASES)})")
    return canonical


def torch_dtype(name: str) -> Any:
    """The torch dtype of a spelling of the vocabulary."""
    import torch

    return getattr(torch, dtype_name(name))


def _dtype(value: str) -> str:
    dtype_name(value)
    return value  # as written: the spelling is part of the config a run hashes


def _device(value: str) -> str:
    if not DEVICE.fullmatch(value):
        raise ValueError(f"not a device: {value!r}; valid: auto, cpu, mps, cuda or cuda:N")
    return value


Dtype = Annotated[str, AfterValidator(_dtype)]
Device = Annotated[str, AfterValidator(_device)]

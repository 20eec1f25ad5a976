"""The model families Quarry loads: Hugging Face ``model_type`` -> the module that reads its
config.json into ModelArgs and writes it back. Weight names need no mapping (the shared model
uses each family's own module names); a model_type not listed here is refused by name.
"""

from __future__ import annotations

from types import ModuleType

from quarry.errors import QuarryError
from quarry.models.families import gemma, llama, phi3, qwen2, starcoder2
from quarry.models.llama import ModelArgs

FAMILIES: dict[str, ModuleType] = {kind: module for module in (llama, qwen2, gemma, phi3, starcoder2)
                                   for kind in module.ARCHITECTURES}


def family(model_type: str | None) -> ModuleType:
    if model_type not in FAMILIES:
        raise QuarryError(f"config.json: model_type {model_type!r} is not supported "
                          f"(supported: {', '.join(sorted(FAMILIES))})")
    return FAMILIES[model_type]


def args_from_hf(config: dict) -> ModelArgs:
    """ModelArgs from a transformers config.json; an error naming any type or key Quarry does not
    implement. A config without model_type is read as Llama (older Quarry exports had it)."""
    config = {"model_type": "llama", **config}
    return family(config["model_type"]).from_hf(config)


def config_to_hf(args: ModelArgs) -> dict:
    """The family's config.json keys for these ModelArgs (token ids and dtype are added by the caller)."""
    return family(args.family).to_hf(args)

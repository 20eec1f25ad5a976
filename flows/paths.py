"""What a recipe run by the DAG gets from the pipeline's layout (quarry.config.Layout)."""

from __future__ import annotations

from quarry.config import Layout, Params
from quarry.records import JsonDict


def recipe_paths(section: str, params: Params) -> JsonDict:
    """The overrides a params section's recipe gets from the pipeline layout: where its dataset,
    the trained tokenizer, its base model and its output live. A fine-tune of the user's own
    checkpoint (``finetune.base_model``) takes that model's tokenizer instead of the trained one."""
    layout = Layout.of(params)
    common = {"dataset.path": str(layout.dataset), "tokenizer.path": str(layout.tokenizer)}
    if section == "train":
        common["dataset.tokens"] = str(layout.tokens)  # the tokenize stage's shards of the same dataset
        # the model's embedding matches the tokenizer it is trained with
        common["model.vocab_size"] = params.tokenizer.vocab_size
        return {**common, "output_dir": str(layout.pretrain)}
    if params.finetune.base_model:  # the user's checkpoint, tokenised with its own tokenizer
        from quarry.models.hub import resolve

        base = str(resolve(params.finetune.base_model))
        return {**common, "tokenizer.path": base, "base_model": base, "output_dir": str(layout.finetune)}
    return {**common, "base_model": str(layout.pretrained), "output_dir": str(layout.finetune)}

"""The subsets the DAG's recipes and evaluation name, checked against the dataset version they
will read before anything trains (the train and finetune flows, `quarry params check`)."""

from __future__ import annotations

from quarry.config import Layout, Params
from quarry.config.training import RecipeRun
from quarry.datasets.subsets import resolve_subset, version_subsets
from quarry.records import JsonDict
from quarry.training.config import load_config


def recipe_subset(section: str, spec: RecipeRun, overrides: JsonDict) -> JsonDict:
    """The override naming the subset the recipe trains on (``largest`` resolved), or none when
    its config names none or the dataset version is not built yet."""
    if "dataset.subset" in overrides:
        key, subset = f"params {section}.overrides.dataset.subset", overrides["dataset.subset"]
    else:
        key, subset = f"{spec.config} dataset.subset", (load_config(spec.config).get("dataset") or {}).get("subset")
    subsets = version_subsets(overrides["dataset.path"])
    if subset is None or subsets is None:
        return {}
    return {"dataset.subset": resolve_subset(key, subset, subsets)}


def check_subsets(params: Params) -> list[str]:
    """Every subset params and the DAG's recipe configs name, against the dataset version at
    pipeline.paths.dataset (nothing to check before it is built); returns what was checked."""
    layout = Layout.of(params)
    subsets = version_subsets(layout.dataset)
    if subsets is None:
        return []
    checked = []
    for section in ("train", "finetune"):
        spec = getattr(params, section)
        chosen = recipe_subset(section, spec, {**spec.overrides, "dataset.path": str(layout.dataset)})
        if chosen:
            checked.append(f"{section}: subset {chosen['dataset.subset']}")
    for subset in params.evaluate.subsets or ():
        resolve_subset("params evaluate.subsets", subset, subsets)
        checked.append(f"evaluate: subset {subset}")
    return checked

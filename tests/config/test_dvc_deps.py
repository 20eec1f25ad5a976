"""dvc.yaml: every stage depends on all the project code its flow can run, and on nothing unparsed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from code_closure import ROOT, flow_code, module_file
from flows.dag import node_calls
from quarry.config import Params

STAGES = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]


def _dep_paths(stage: str) -> list[str]:
    return [str(dep).split()[0] for dep in STAGES[stage]["deps"] if not str(dep).startswith("${")]


def _components(config_name: str) -> set[Path]:
    """Modules a recipe config names by ``_component_`` (imported at run time, not by an import)."""
    from quarry.training.config import COMPONENT, load_config

    found, todo = set(), [load_config(config_name)]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if isinstance(node.get(COMPONENT), str):
                module = node[COMPONENT].rsplit(".", 1)[0]
                if (path := module_file(module)) is not None:
                    found.add(path)
            todo.extend(node.values())
    return found


@pytest.mark.parametrize("stage", list(STAGES))
def test_a_stage_depends_on_every_file_its_flow_runs(stage):
    params = Params()
    flow_obj, _ = node_calls(params, None)[stage]
    code = flow_code(flow_obj)
    if stage in ("train", "finetune"):
        code |= _components(getattr(params, stage).config)
    deps = _dep_paths(stage)
    for dep in deps:
        assert (ROOT / dep).exists(), f"dvc.yaml {stage}: dependency {dep} does not exist"
    missing = sorted(str(path.relative_to(ROOT)) for path in code
                     if not any(path.relative_to(ROOT).as_posix() == dep or
                                path.relative_to(ROOT).as_posix().startswith(dep.rstrip("/") + "/") for dep in deps))
    assert not missing, f"dvc.yaml stage {stage} runs code it does not depend on: {missing}"


def test_each_stage_declares_the_params_sections_it_reads():
    sections = set(Params.model_fields)
    for stage, spec in STAGES.items():
        for key in spec.get("params", []):
            assert str(key).split(".")[0] in sections, f"dvc.yaml {stage}: params key {key} is not a section"

"""params.yaml as typed sections: typos and wrong types are refused by name, before any stage
runs; defaults live in the models; the effective values can be shown."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel

from quarry.cli import main
from quarry.config import Layout, Params, as_params
from quarry.config.params import effective_file, load, with_overrides
from quarry.errors import ConfigError
from quarry.config.values import load_params

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = list(Params.model_fields)


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _scalar_field(model: type[BaseModel]) -> str:
    """A field of ``model`` that holds a plain value (a mapping there is the wrong type)."""
    for name, info in model.model_fields.items():
        annotation = info.annotation
        union = typing.get_origin(annotation) in (typing.Union, type(int | None))
        args = [a for a in typing.get_args(annotation) if a is not type(None)] if union else [annotation]
        if not any(isinstance(a, type) and issubclass(a, (BaseModel, dict)) or typing.get_origin(a) is dict
                   for a in args):
            return name
    raise AssertionError(f"{model.__name__} has no plain field")


@pytest.mark.parametrize("section", SECTIONS)
def test_a_typo_in_any_section_is_refused_naming_the_key_and_the_nearest_one(tmp_path, capsys, section):
    model = Params.model_fields[section].annotation
    field = next(iter(model.model_fields))
    typo = field[:-1] + field[-1] * 2 if len(field) > 3 else field + "x"
    project = yaml.safe_load((ROOT / "params.yaml").read_text())
    project.setdefault(section, {})[typo] = project.get(section, {}).pop(field, None) or 1
    path = _write(tmp_path, project)
    assert main(["params", "check", "--params", str(path)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert f"unknown key '{section}.{typo}'; did you mean '{section}.{field}'?" in err
    assert str(path) in err and "Traceback" not in err


@pytest.mark.parametrize("section", SECTIONS)
def test_a_wrong_type_in_any_section_is_refused_naming_the_key(tmp_path, section):
    field = _scalar_field(Params.model_fields[section].annotation)
    with pytest.raises(ConfigError, match=rf"params.yaml: {section}\.{field}: "):
        load(_write(tmp_path, {section: {field: {"wrong": "type"}}}))


def test_the_issue_examples_name_their_keys(tmp_path):
    cases = {("snapshot", "max_totl_bytes", 1): "did you mean 'snapshot.max_total_bytes'",
             ("pii", "sensitivty", "high"): "did you mean 'pii.sensitivity'",
             ("licenses", "batchsize", 8): "did you mean 'licenses.batch_size'",
             ("dedup", "threshold", "high"): "dedup.threshold: Input should be a valid number"}
    for (section, key, value), expected in cases.items():
        with pytest.raises(ConfigError, match=expected):
            load(_write(tmp_path, {section: {key: value}}))
    with pytest.raises(ConfigError, match="unknown key 'dedupe'; did you mean 'dedup'"):
        load(_write(tmp_path, {"dedupe": {}}))
    with pytest.raises(ConfigError, match=r"snapshot\.sources\.0\.kind: Input should be 'git'"):
        load(_write(tmp_path, {"snapshot": {"sources": [{"kind": "gti", "url": "x"}]}}))


def test_a_bad_late_section_stops_the_first_stage_before_it_writes(tmp_path, monkeypatch):
    """`quarry flow snapshot` (what dvc.yaml runs) reads the whole file first: a typo under
    `evaluate`, the last stage, fails the snapshot before anything exists."""
    from flows.pipeline import run_node

    monkeypatch.chdir(tmp_path)
    project = yaml.safe_load((ROOT / "params.yaml").read_text())
    project["evaluate"]["batchsize"] = 4
    project["pipeline"]["paths"]["snapshot"] = str(tmp_path / "snap")
    path = _write(tmp_path, project)
    with pytest.raises(ConfigError, match="unknown key 'evaluate.batchsize'; did you mean 'evaluate.batch_size'"):
        run_node("snapshot", str(path))
    assert not (tmp_path / "snap").exists()


def test_validate_checks_recipe_value_types(capsys):
    assert main(["validate", "tiny_pretrain", "max_steps=abc"]) == 1
    assert "config: max_steps must be an integer, got 'abc'" in capsys.readouterr().err
    assert main(["validate", "tiny_lora", "lora.rank=eight"]) == 1
    assert "config: lora.rank must be an integer, got 'eight'" in capsys.readouterr().err
    assert main(["validate", "tiny_pretrain", "max_steps=3", "optimizer.lr=1e-3", "dataset.shuffle=false"]) == 0


def test_defaults_live_in_the_models_and_every_stage_reads_them():
    from quarry.curation.decontaminate.overlap import DecontaminationConfig
    from quarry.curation.dedup.config import DedupConfig
    from quarry.curation.pii.engine import PiiConfig
    from quarry.stages.evaluate import EVALUATE
    from quarry.stages.filters import FILTERS
    from quarry.stages.licenses import LICENSES
    from quarry.stages.snapshot import SNAPSHOT
    from quarry.training.tokens import TokenizeConfig

    defaults = Params()
    empty = defaults.as_dict()
    assert DedupConfig.from_params({}).model_dump() == defaults.dedup.model_dump()
    assert PiiConfig.from_params({}).model_dump() == defaults.pii.model_dump()
    assert TokenizeConfig.from_params({}).model_dump() == defaults.tokenize.model_dump()
    assert DecontaminationConfig.from_params({}).ngram == defaults.decontaminate.ngram
    for stage in (FILTERS, LICENSES, SNAPSHOT, EVALUATE):
        assert stage.config(as_params({})).as_dict() == empty[stage.name]
    # a partial section keeps the other defaults and is checked like the file
    assert DedupConfig.from_params({"dedup": {"threshold": 0.8}}).ngram == defaults.dedup.ngram
    with pytest.raises(ConfigError, match="dedup.ngram"):
        DedupConfig.from_params({"dedup": {"ngram": 0}})


def test_an_empty_params_file_means_every_default(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("")
    assert load_params(path) == Params()


def test_the_literal_choices_match_the_code_they_configure():
    from quarry.curation.licenses.policy import CATEGORIES
    from quarry.curation.pii.detectors import DETECTORS, TYPES

    assert set(Params().pii.detectors) == set(DETECTORS) and set(Params().pii.types) == set(TYPES)
    category = typing.get_args(Params.model_fields["licenses"].annotation.model_fields["policy"].annotation
                               .model_fields["allow_categories"].annotation)[0]
    assert set(typing.get_args(category)) == set(CATEGORIES)


def test_params_show_marks_the_defaults(tmp_path, capsys):
    path = _write(tmp_path, {"dedup": {"threshold": 0.8}})
    assert main(["params", "show", "dedup", "--params", str(path)]) == 0
    shown = capsys.readouterr().out
    assert "threshold: 0.8\n" in shown and "ngram: 5  # default" in shown
    assert main(["params", "show", "--changed", "--params", str(path)]) == 0
    assert capsys.readouterr().out.split() == ["dedup:", "threshold:", "0.8"]
    assert main(["params", "check", "--params", str(path)]) == 0


def test_overrides_are_checked_like_the_file_and_written_by_content(tmp_path):
    params = with_overrides(load(ROOT / "params.yaml"), {"dedup.threshold": 0.9})
    assert params.dedup.threshold == 0.9 and params.pii == load(ROOT / "params.yaml").pii
    with pytest.raises(ConfigError, match="dedup.treshold"):
        with_overrides(params, {"dedup.treshold": 0.9})
    first, again = effective_file(params, tmp_path), effective_file(params, tmp_path)
    assert first == again and load(first) == params


def test_the_layout_comes_from_pipeline_paths_everywhere(tmp_path):
    from flows.paths import recipe_paths
    from flows.dag import node_calls

    params = with_overrides(Params(), {"pipeline.paths.dataset": "elsewhere/ds",
                                       "pipeline.paths.pretrain": "ckpt/pre"})
    calls = node_calls(params, None)
    assert calls["assemble"][1][2] == "elsewhere/ds"
    assert calls["evaluate"][1][1] == [str(Path("ckpt/pre/final")), str(Layout.of(params).finetuned)]
    assert recipe_paths("finetune", params)["base_model"] == str(Path("ckpt/pre/final"))
    assert recipe_paths("train", params)["model.vocab_size"] == params.tokenizer.vocab_size


def test_every_flow_shows_typed_sections_to_the_prefect_ui():
    from prefect.utilities.callables import parameter_schema

    from flows.pipeline import pipeline
    from flows.dag import node_calls

    flows = [pipeline, *(flow_obj for flow_obj, _ in node_calls(Params(), None).values())]
    for flow_obj in flows:
        schema = parameter_schema(flow_obj.fn).model_dump()
        assert "params" in schema["properties"], flow_obj.name
        assert {"DedupParams", "SnapshotParams", "EvaluateParams"} <= set(schema["definitions"]), flow_obj.name


def test_typed_params_given_to_a_flow_replace_the_file(tmp_path):
    given = with_overrides(Params(), {"assemble.name": "from-the-ui"})
    assert load_params(tmp_path / "absent.yaml", given).assemble.name == "from-the-ui"

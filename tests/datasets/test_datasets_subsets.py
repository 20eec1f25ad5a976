"""Subset names checked against the dataset version before anything trains or scores: the
finetune flow, `quarry params check` and the evaluate stage name the key, the missing subset and
the subsets present; `largest` fits any dataset."""

from __future__ import annotations

import pytest
import yaml
from conftest import curate, raw_records, write_raw

from quarry.cli import main
from quarry.datasets.subsets import resolve_subset, version_subsets
from quarry.errors import ConfigError
from quarry.stages.assemble import assemble


@pytest.fixture
def dataset(tmp_path):
    curated = curate(write_raw(tmp_path / "raw", raw_records(120)), tmp_path / "curated")
    out = tmp_path / "data" / "datasets" / "default"
    assemble(curated, out, {}, register=False)
    return out


def test_largest_and_missing_subsets(dataset):
    subsets = version_subsets(dataset)
    assert set(subsets) == {"github-python", "github-javascript", "github-markdown"}
    largest = max(subsets, key=subsets.get)
    assert resolve_subset("k", "largest", subsets) == largest
    assert resolve_subset("k", "github-python", subsets) == "github-python"
    with pytest.raises(ConfigError) as missing:
        resolve_subset("params finetune.overrides.dataset.subset", "code-python", subsets)
    assert str(missing.value) == ("params finetune.overrides.dataset.subset: the dataset version has no subset "
                                  "'code-python'; its subsets: github-javascript, github-markdown, github-python "
                                  "(or 'largest')")
    assert version_subsets(dataset.parent / "not-built") is None


def params_file(tmp_path, dataset, **sections) -> str:
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"pipeline": {"paths": {"dataset": str(dataset)}}, **sections}))
    return str(path)


def test_finetune_names_the_missing_subset_before_it_trains(dataset, tmp_path):
    from flows.train import run_section

    params = params_file(tmp_path, dataset, finetune={"overrides": {"dataset.subset": "code-python"}})
    with pytest.raises(ConfigError, match=r"finetune.overrides.dataset.subset: the dataset version has no subset "
                                          r"'code-python'; its subsets: github-javascript"):
        run_section("finetune", params)
    assert not (tmp_path / "models").exists()  # nothing trained


def test_params_check_resolves_largest_and_names_a_missing_evaluation_subset(dataset, tmp_path, capsys):
    assert main(["params", "check", "--params", params_file(tmp_path, dataset)]) == 0
    largest = max(version_subsets(dataset).items(), key=lambda kv: kv[1])[0]
    assert f"finetune: subset {largest}" in " ".join(capsys.readouterr().out.split())  # dag_lora: largest
    bad = params_file(tmp_path, dataset, evaluate={"subsets": ["github-python", "PerlModules"]})
    assert main(["params", "check", "--params", bad]) == 1
    assert "params evaluate.subsets: the dataset version has no subset 'PerlModules'" in capsys.readouterr().err

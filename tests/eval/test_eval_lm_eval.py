"""`quarry eval bpb --cross-check lm-eval`: the same split scored by lm-evaluation-harness
(loglikelihood_rolling, bits_per_byte) agrees with Quarry's BPB per subset."""

from __future__ import annotations

import json

import pytest

from quarry.cli import main


@pytest.mark.slow  # lm-eval and transformers imports, and a second scoring pass
def test_lm_eval_bits_per_byte_matches_quarry_per_subset(in_project, capsys):
    pytest.importorskip("lm_eval")
    project = in_project
    assert main(["eval", "bpb", str(project["final"]), str(project["dataset"]), "--cross-check", "lm-eval",
                 "--context-len", "32", "--batch-size", "4", "--no-mlflow", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["context_len"] == report["stride"] == 32 and report["lm_eval_version"] == "0.4.13"
    assert report["subsets"] and all(row["docs"] > 0 for row in report["subsets"].values())
    for subset, row in report["subsets"].items():
        assert 0.5 < row["quarry"] < 20, subset
        assert abs(row["difference"]) <= 1e-3, (subset, row)


def test_cross_check_names_the_only_tool(in_project, capsys):
    project = in_project
    assert main(["eval", "bpb", str(project["final"]), str(project["dataset"]), "--cross-check", "helm"]) == 1
    assert "the only cross-check is lm-eval" in capsys.readouterr().err

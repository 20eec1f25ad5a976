"""The training commands through the real CLI entry point."""

from __future__ import annotations

from quarry.cli import main
from training_helpers import tiny_overrides


def test_ls_lists_recipes_and_their_configs(capsys):
    assert main(["ls"]) == 0
    shown = capsys.readouterr().out
    for name in ("pretrain", "full_finetune", "lora_finetune", "qlora_finetune", "dpo", "tiny_qlora"):
        assert name in shown


def test_cp_then_validate_the_copy(tmp_path, capsys):
    assert main(["cp", "tiny_lora", str(tmp_path)]) == 0
    copy = tmp_path / "tiny_lora.yaml"
    assert copy.is_file()
    assert main(["cp", "tiny_lora", str(tmp_path)]) == 1  # refuses to overwrite
    assert main(["validate", str(copy), "lora.rank=4"]) == 0
    assert "valid lora_finetune config" in capsys.readouterr().out


def test_validate_names_the_bad_key_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("recipe: qlora_finetune\nquantize:\n  double_quantization: true\n")
    assert main(["validate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "unknown key 'quantize.double_quantization'" in err and "double_quant" in err
    assert "Traceback" not in err


def test_validate_accepts_int8_and_refuses_other_quantize_modes(capsys):
    assert main(["validate", "tiny_qlora", "quantize.mode=int8"]) == 0
    assert "mode: int8" in capsys.readouterr().out
    assert main(["validate", "tiny_qlora", "quantize.mode=int3"]) == 1
    err = capsys.readouterr().err
    assert "quantize.mode='int3'" in err and "nf4, int8" in err and "Traceback" not in err


def test_run_trains_and_writes_final_checkpoint(dataset_dir, tmp_path):
    args = tiny_overrides(dataset_dir, tmp_path, max_steps=2)
    assert main(["run", "pretrain", "--config", "tiny_pretrain", *args]) == 0
    assert (tmp_path / "final" / "model.safetensors").is_file()
    assert (tmp_path / "final" / "lineage.json").is_file()

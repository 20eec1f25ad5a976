"""The command line a newcomer reads: --version, commands grouped in panels, one evaluation entry."""

from importlib.metadata import version

import typer

from quarry import cli


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"quarry {version('quarry')}"


def test_every_visible_command_has_a_named_panel(capsys):
    assert cli.main(["--help"]) == 0
    shown = capsys.readouterr().out
    placed = {name for names in cli.HELP_PANELS.values() for name in names}
    registered = [info for info in (*cli.app.registered_commands, *cli.app.registered_groups) if not info.hidden]
    names = [cli.command_name(info) for info in registered]
    assert set(names) <= placed, f"commands missing from HELP_PANELS: {sorted(set(names) - placed)}"
    for panel in cli.HELP_PANELS:
        assert panel in shown
    assert cli.DEFAULT_PANEL not in shown


def test_one_evaluation_entry_point(capsys):
    cli.main(["--help"])
    shown = capsys.readouterr().out
    assert " eval " in shown and " evaluate " not in shown
    hidden = [cli.command_name(info) for info in cli.app.registered_commands if info.hidden]
    assert hidden == ["evaluate"]


def test_a_bad_option_value_is_a_usage_error_naming_the_option(capsys, tmp_path):
    assert cli.main(["dedup", str(tmp_path), str(tmp_path / "out"), "--threshold", "high"]) == 2
    shown = capsys.readouterr().err
    assert "Invalid value for '--threshold'" in shown and "Traceback" not in shown and "--debug" not in shown

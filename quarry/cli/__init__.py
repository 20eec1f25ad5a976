"""The `quarry` command line: one typer app; each command group lives in its own module.

Modules listed in COMMAND_MODULES expose ``register(app)``; heavy imports (torch, prefect,
mlflow) happen inside the commands so `quarry --help` stays fast. Errors print as one line
unless --debug is given.
"""

from __future__ import annotations

import importlib
import sys

import click
import typer
from rich.console import Console

from quarry.errors import QuarryError

app = typer.Typer(
    name="quarry",
    help="Reproducible lineage from raw source repositories to trained checkpoints.",
    no_args_is_help=True,
    add_completion=True,  # `quarry --install-completion` / `--show-completion` for bash, zsh, fish
    pretty_exceptions_enable=False,
)
err = Console(stderr=True)

COMMAND_MODULES = [
    "quarry.cli.core",
    "quarry.cli.flows",
    "quarry.cli.pii",
    "quarry.cli.eval",
    "quarry.cli.models",
    "quarry.cli.dataset",
    "quarry.cli.snapshot",
    "quarry.cli.licenses",
    "quarry.cli.train",
    "quarry.cli.dedup",
    "quarry.cli.params",
    "quarry.cli.cluster",
]


# The help screen's panels, in the order a newcomer meets the commands. Every command is placed
# here (a test checks it); a command missing from the table would land in "Tools".
HELP_PANELS = {
    "Curation": ["snapshot", "licenses", "audit", "optout", "filter", "pii", "dedup", "decontaminate"],
    "Datasets": ["assemble", "dataset", "verify", "cite", "records", "inventory"],
    "Training": ["run", "ls", "cp", "validate", "tokenizer", "tokenize", "generate", "download"],
    "Evaluation & lineage": ["eval", "compare", "lineage", "trace", "whois"],
    "Pipeline": ["flow", "params", "serve", "server", "cluster"],
}
DEFAULT_PANEL = "Tools"


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"quarry {version('quarry')}")
        raise typer.Exit()


@app.callback()
def _root(debug: bool = typer.Option(False, "--debug", help="Show full tracebacks on errors."),
          version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print Quarry's version and exit."),
          ) -> None:
    """Reproducible lineage from raw source repositories to trained checkpoints."""


def _load_commands() -> None:
    if app.registered_commands:  # main() may run many times in one process (tests)
        return
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)
    _arrange_help()


def command_name(info) -> str:
    """The name a registered command or group is called by."""
    if getattr(info, "typer_instance", None) is not None:
        return info.name or info.typer_instance.info.name
    return info.name or info.callback.__name__.replace("_", "-")


def _arrange_help() -> None:
    """Put every command in its panel, panels and commands in HELP_PANELS order."""
    order = {name: i for i, name in enumerate(n for names in HELP_PANELS.values() for n in names)}
    panel_of = {name: panel for panel, names in HELP_PANELS.items() for name in names}
    for infos in (app.registered_commands, app.registered_groups):
        for info in infos:
            info.rich_help_panel = panel_of.get(command_name(info), DEFAULT_PANEL)
        infos.sort(key=lambda info: order.get(command_name(info), len(order)))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    _load_commands()
    command = typer.main.get_command(app)
    try:
        # Without standalone mode click hands back the code of a typer.Exit instead of exiting.
        code = command.main(args=argv, prog_name="quarry", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except (click.ClickException, typer.TyperException) as exc:  # typer's own click raises the latter
        exc.show()  # usage and "Invalid value for '--nodes': ..."
        return exc.exit_code
    except (click.Abort, typer.Abort, KeyboardInterrupt):
        err.print("[red]aborted[/red]")
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI's single error boundary
        if debug:
            raise
        err.print(f"[bold red]error:[/bold red] {_describe(exc)}", markup=True, highlight=False, soft_wrap=True)
        return 1
    return code if isinstance(code, int) else 0


def _describe(exc: BaseException) -> str:
    text = str(exc) or exc.__class__.__name__
    if isinstance(exc, QuarryError):
        return text.replace("\n", " ")
    return f"{exc.__class__.__name__}: {text}".replace("\n", " ") + " (run with --debug for the traceback)"


if __name__ == "__main__":
    sys.exit(main())

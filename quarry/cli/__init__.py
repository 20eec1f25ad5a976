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

app = typer.Typer(
    name="quarry",
    help="Reproducible lineage from raw source repositories to trained checkpoints.",
    no_args_is_help=True,
    add_completion=False,
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
]


@app.callback()
def _root(debug: bool = typer.Option(False, "--debug", help="Show full tracebacks on errors.")) -> None:
    """Reproducible lineage from raw source repositories to trained checkpoints."""


def _load_commands() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)


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
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except (click.Abort, KeyboardInterrupt):
        err.print("[red]aborted[/red]")
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI's single error boundary
        if debug:
            raise
        err.print(f"[bold red]error:[/bold red] {_describe(exc)}", markup=True, highlight=False, soft_wrap=True)
        return 1
    return code if isinstance(code, int) else 0


def _describe(exc: BaseException) -> str:
    from quarry.errors import QuarryError

    text = str(exc) or exc.__class__.__name__
    if isinstance(exc, QuarryError):
        return text.replace("\n", " ")
    return f"{exc.__class__.__name__}: {text}".replace("\n", " ") + " (run with --debug for the traceback)"


if __name__ == "__main__":
    sys.exit(main())

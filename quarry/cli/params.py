"""`quarry params check` and `quarry params show`: params.yaml against its typed model."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from quarry.config.params import load, params_path
from quarry.config.show import effective_yaml
from quarry.recipes.subsets import check_subsets

out = Console()

PARAMS = typer.Option(None, "--params", help="params.yaml to read (default: the project's).")


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Check params.yaml or print its effective values.", no_args_is_help=True)
    app.add_typer(group, name="params")

    @group.command("check")
    def check(params_file: Path = PARAMS) -> None:
        """Check every section (unknown keys, types, ranges); exit 1 naming the first bad key."""
        params = load(params_file)
        sections = sum(1 for name in type(params).model_fields if name in params.model_fields_set)
        checked = check_subsets(params)  # against the dataset version, once one is built
        against = f"; subsets as the dataset version has them ({', '.join(checked)})" if checked else ""
        out.print(f"{params_path(params_file)}: ok ({sections} sections set, the rest default){against}")

    @group.command("show")
    def show(params_file: Path = PARAMS,
             section: str = typer.Argument(None, help="Only this section (or dotted key), e.g. dedup."),
             changed: bool = typer.Option(False, "--changed", help="Only values that differ from the defaults.")
             ) -> None:
        """Print the effective values (the file over the defaults) as YAML; `# default` marks the
        values params.yaml does not set."""
        typer.echo(effective_yaml(load(params_file), section, changed=changed))

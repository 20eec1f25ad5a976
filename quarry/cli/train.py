"""Training commands, torchtune-style: `quarry run`, `quarry ls`, `quarry cp`, `quarry validate`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from quarry.errors import ConfigError
from quarry.training.config import builtin_configs, dump_config, load_config
from quarry.recipes.registry import RECIPES, build_recipe, configs_for

out = Console()
EXTRA_ARGS = {"allow_extra_args": True, "ignore_unknown_options": True}


def register(app: typer.Typer) -> None:
    @app.command("run", context_settings=EXTRA_ARGS)
    def run(recipe: str = typer.Argument(..., help="Recipe name (see `quarry ls`; `quarry run ls` lists them too)."),
            config: str = typer.Option(None, "--config", "-c", help="Built-in config name or a YAML path."),
            overrides: list[str] = typer.Argument(None, help="key=value overrides (+key=value adds, ~key deletes)."),
            nproc_per_node: int = typer.Option(1, "--nproc-per-node", help="Processes per node (torchrun)."),
            nnodes: int = typer.Option(1, "--nnodes", help="Nodes (torchrun)."),
            node_rank: int = typer.Option(None, "--node-rank", help="This node's rank (multi-node)."),
            rdzv_endpoint: str = typer.Option(None, "--rdzv-endpoint", help="host:port of the rendezvous."),
            rdzv_id: str = typer.Option(None, "--rdzv-id", help="Job id shared by all nodes."),
            master_port: int = typer.Option(None, "--master-port", help="Port for single-node runs."),
            ) -> None:
        """Run a recipe; with --nproc-per-node > 1 or --nnodes > 1 it launches torchrun (FSDP2)."""
        if recipe == "ls" and config is None:  # what a torchtune user types for `tune ls`
            ls()
            return
        if config is None:
            raise ConfigError(f"quarry run {recipe}: --config is required (a built-in config name or a YAML path)")
        overrides = list(overrides or [])
        build_recipe(recipe, config, overrides)  # fail fast on a bad config, before any process starts
        if nproc_per_node > 1 or nnodes > 1:
            from quarry.training.distributed import torchrun_command  # torch: only a multi-process launch loads it

            cmd = torchrun_command(recipe, ["--config", config, *overrides], nproc_per_node=nproc_per_node,
                                   nnodes=nnodes, node_rank=node_rank, rdzv_endpoint=rdzv_endpoint,
                                   rdzv_id=rdzv_id, master_port=master_port)
            raise typer.Exit(subprocess.call(cmd))
        result = build_recipe(recipe, config, overrides).run()
        out.print(f"[green]done[/green] {result['steps']} steps -> {result['final']}")

    @app.command("ls")
    def ls() -> None:
        """Recipes and the built-in configs made for each."""
        table = Table("recipe", "configs")
        for name in RECIPES:
            table.add_row(name, ", ".join(configs_for(name)) or "-")
        out.print(table)

    @app.command("cp")
    def cp(config: str = typer.Argument(..., help="Built-in config name."),
           dest: Path = typer.Argument(..., help="Where to write the copy (a file or a folder)."),
           force: bool = typer.Option(False, "--force", help="Overwrite an existing file.")) -> None:
        """Copy a built-in config to edit it."""
        source = builtin_configs().get(config.removesuffix(".yaml"))
        if source is None:
            raise ConfigError(f"no built-in config '{config}'; built-in: {', '.join(builtin_configs())}")
        target = dest / source.name if dest.is_dir() else dest
        if target.exists() and not force:
            raise ConfigError(f"{target}: already exists (use --force to overwrite)")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        out.print(f"copied {source.name} -> {target}")

    @app.command("validate", context_settings=EXTRA_ARGS)
    def validate(config: str = typer.Argument(..., help="Built-in config name or a YAML path."),
                 overrides: list[str] = typer.Argument(None, help="key=value overrides to check too."),
                 recipe: str = typer.Option(None, "--recipe", help="Recipe, when the config has no `recipe:` key."),
                 ) -> None:
        """Check a config against its recipe: unknown keys, bad component arguments."""
        name = recipe or load_config(config).get("recipe")
        if not name:
            raise ConfigError(f"{config}: no `recipe:` key; pass --recipe")
        built = build_recipe(name, config, list(overrides or []))
        out.print(f"[green]ok[/green] {config} is a valid {name} config (hash {built.config_hash[:12]})")
        out.print(dump_config(built.cfg), markup=False, highlight=False)

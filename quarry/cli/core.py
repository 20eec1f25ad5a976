"""Foundation commands: check record files, verify a stage output's chain, count a shard folder
through a Prefect flow."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from quarry.cli.project_code import load_project_code
from quarry.engine.provenance import verify as verify_chain
from quarry.errors import QuarryError
from quarry.records import RecordReader, RecordWriter, shard_paths

out = Console()


def register(app: typer.Typer) -> None:
    records = typer.Typer(help="Inspect jsonl / jsonl.zst record files.", no_args_is_help=True)
    app.add_typer(records, name="records")

    @records.command("check")
    def check(path: Path = typer.Argument(..., help="A jsonl / jsonl.zst file or a folder of shards."),
              lenient: bool = typer.Option(False, help="Quarantine corrupt lines instead of failing."),
              rejects: Path = typer.Option(None, help="Where quarantined lines go (jsonl)."),
              ) -> None:
        """Read every record; report counts, or the first corrupt line with file and offset.
        Fails on a missing path and on files that hold no records (a stage's empty rejects shard aside)."""
        if not path.exists():
            raise QuarryError(f"{path}: no such file or folder")
        shards = shard_paths(path)
        if not shards:
            raise QuarryError(f"{path}: no .jsonl / .jsonl.zst files")
        table = Table("file", "records", "quarantined", "MB", "status")
        empty = 0
        # One rejects file for the whole check: every shard's quarantined lines are appended to it.
        rejects_out = RecordWriter(rejects, validate=False) if rejects else None
        try:
            for shard in shards:
                reader = RecordReader(shard, strict=not lenient, rejects=rejects_out)
                for _ in reader:
                    pass
                s = reader.stats
                no_rejects = s.records == 0 and "rejects" in shard.parts  # a shard that lost nothing: fine
                empty += s.records == 0 and not no_rejects
                table.add_row(str(shard), str(s.records), str(s.quarantined), f"{s.bytes / 1e6:.2f}",
                              "no rejects" if no_rejects else "empty" if s.records == 0 else "ok")
        except BaseException:
            if rejects_out is not None:
                rejects_out.abort()
            raise
        if rejects_out is not None:
            rejects_out.close()
        out.print(table)
        if empty:
            raise QuarryError(f"{path}: {empty} of {len(shards)} file(s) hold no records")

    @app.command("verify")
    def verify(folder: Path = typer.Argument(..., help="A stage's output folder, e.g. data/datasets/default.")) -> None:
        """Re-hash a stage output and every output it was made from, back to the snapshot; fails
        naming the first link that breaks (a file changed by hand, an input changed since it was read)."""
        for link in verify_chain(folder):
            out.print(f"[green]ok[/green] {link}", soft_wrap=True)

    @app.command("inventory")
    def inventory(folder: Path = typer.Argument(..., help="A folder of shards.")) -> None:
        """Count records and bytes of every shard as a cached Prefect flow."""
        load_project_code()
        from flows.inventory import inventory as inventory_flow  # the project's code; Prefect: only here

        result = inventory_flow(str(folder.resolve()))
        out.print(result)

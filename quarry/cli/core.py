"""Foundation commands: check record files, count a shard folder through a Prefect flow."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

out = Console()


def register(app: typer.Typer) -> None:
    records = typer.Typer(help="Inspect jsonl / jsonl.zst record files.", no_args_is_help=True)
    app.add_typer(records, name="records")

    @records.command("check")
    def check(path: Path = typer.Argument(..., help="A jsonl / jsonl.zst file or a folder of shards."),
              lenient: bool = typer.Option(False, help="Quarantine corrupt lines instead of failing."),
              rejects: Path = typer.Option(None, help="Where quarantined lines go (jsonl)."),
              ) -> None:
        """Read every record; report counts, or the first corrupt line with file and offset."""
        from quarry.records import RecordReader, shard_paths

        table = Table("file", "records", "quarantined", "MB")
        for shard in shard_paths(path):
            reader = RecordReader(shard, strict=not lenient, rejects=rejects)
            for _ in reader:
                pass
            s = reader.stats
            table.add_row(str(shard), str(s.records), str(s.quarantined), f"{s.bytes / 1e6:.2f}")
        out.print(table)

    @app.command("inventory")
    def inventory(folder: Path = typer.Argument(..., help="A folder of shards.")) -> None:
        """Count records and bytes of every shard as a cached Prefect flow."""
        from flows.inventory import inventory as inventory_flow

        result = inventory_flow(str(folder.resolve()))
        out.print(result)

"""`quarry pii scan` (report only) and `quarry pii redact` (the stage)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from quarry.config import with_overrides
from quarry.engine import run_local
from quarry.config.values import load_params
from quarry.curation.pii.engine import PiiConfig
from quarry.curation.pii.files import holds_shards, redact_files
from quarry.curation.pii.shards import scan_path
from quarry.records import RecordWriter
from quarry.stages.pii import PII

out = Console()


def _config(params_file: Path | None, sensitivity: str | None):
    params = load_params(params_file)  # outside a project: every default
    if sensitivity:
        params = with_overrides(params, {"pii.sensitivity": sensitivity})
    return params, PiiConfig.from_params(params)


def register(app: typer.Typer) -> None:
    pii = typer.Typer(help="Find and redact personal data and credentials.", no_args_is_help=True)
    app.add_typer(pii, name="pii")

    @pii.command("scan")
    def scan(path: Path = typer.Argument(..., exists=True, help="A source file, a folder of source files, a "
                                                                   "shard or a folder of shards."),
             findings: Path = typer.Option(None, help="Write one JSON line per finding (offsets and a "
                                                      "sha256 prefix, never the value)."),
             sensitivity: str = typer.Option(None, help="low | medium | high (default: params.yaml pii.sensitivity)."),
             params_file: Path = typer.Option(None, "--params", help="params.yaml to read the pii section from."),
             ) -> None:
        """Report what the redact stage would replace, by type and detector; changes nothing."""
        from collections import Counter

        _, config = _config(params_file, sensitivity)
        by_type: Counter = Counter()
        by_kind: Counter = Counter()
        writer = RecordWriter(findings, validate=False) if findings else None
        try:
            for row in scan_path(path, config):
                by_type[row["type"]] += 1
                by_kind[(row["type"], row["kind"])] += 1
                if writer:
                    writer.write(row)
        except BaseException:
            if writer:
                writer.abort()
            raise
        if writer:
            writer.close()
        table = Table("type", "detector", "findings", title=f"PII in {path} (sensitivity {config.sensitivity})")
        for (type_, kind), n in sorted(by_kind.items()):
            table.add_row(type_, kind, str(n))
        table.add_row("[bold]total[/bold]", "", str(sum(by_type.values())))
        out.print(table)

    @pii.command("redact")
    def redact(src: Path = typer.Argument(..., exists=True, help="A source file, a folder of source files, a "
                                                                  "shard or a folder of shards."),
               dst: Path = typer.Argument(..., help="Output folder: the same file or shard names (for shards "
                                                    "also ledger.json and rejects/)."),
               workers: int = typer.Option(None, help="Processes (default: params.yaml pipeline.workers)."),
               sensitivity: str = typer.Option(None, help="low | medium | high (default: params.yaml "
                                                          "pii.sensitivity)."),
               params_file: Path = typer.Option(None, "--params", help="params.yaml to read the pii section from."),
               ) -> None:
        """Redact every record or file (typed placeholders, fake IPs); shards count findings in meta.pii."""
        params, config = _config(params_file, sensitivity)
        if not holds_shards(src):
            report = redact_files(src, dst, config)
            table = Table("files", "text files", "changed: type", "files changed", title=f"pii -> {dst}")
            for i, (type_, n) in enumerate((report["changed"] or {"-": 0}).items()):
                first = i == 0
                table.add_row(str(report["input"]) if first else "", str(report["text_files"]) if first else "",
                              type_, str(n))
            out.print(table)
            return
        ledger = run_local(PII, src, dst, params, workers=workers or params.pipeline.workers)
        table = Table("records", "changed: type", "records changed", title=f"pii -> {dst}")
        changed = ledger["changed"] or {"-": 0}
        for i, (type_, n) in enumerate(changed.items()):
            table.add_row(str(ledger["input"]) if i == 0 else "", type_, str(n))
        out.print(table)

"""`quarry snapshot`: content-addressed snapshot of the configured sources, or --show one."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from quarry.cli.project_code import load_project_code
from quarry.errors import ConfigError
from quarry.config.values import load_params
from quarry.records import read_json

out = Console()

KIND_HELP = ("A source as KIND:LOCATION, e.g. git:PATH_OR_URL@REF, archive:x.tar.gz, dir:src, corpus:x.jsonl.zst, "
             "parquet:shards/, hfdisk:saved/ (layout recognised from the columns, or --preset), stdlib, installed; "
             "repeatable.")
TABLE_KINDS = ("parquet", "hfdisk")


def parse_source(spec: str, before: str | None = None, preset: str | None = None, blobs: str | None = None) -> dict:
    """`git:/path/repo@v1.0`, `archive:x.tar.gz`, `dir:src`, `corpus:pile.jsonl.zst`, `stdlib`, `installed`;
    a table (`parquet:`, `hfdisk:`) takes ``preset`` (its layout) and ``blobs`` (its contents' store)."""
    from quarry.snapshot.settings import SOURCE_KINDS  # swh.model (the quarry.snapshot package): ~60 ms that `quarry --help` skips

    kind, _, location = spec.partition(":")
    if kind not in SOURCE_KINDS:
        raise ConfigError(f"--source {spec!r}: kind must be one of {', '.join(SOURCE_KINDS)}")
    source: dict = {"name": kind, "kind": kind}
    if kind == "git":
        url, _, ref = location.rpartition("@") if "@" in location.split("/")[-1] else (location, "", "")
        source.update({"url" if "://" in url else "path": url, **({"ref": ref} if ref else {})})
        if before:
            source["before"] = before
    elif kind in ("archive", "dir", "corpus", "parquet", "hfdisk"):
        if not location:
            raise ConfigError(f"--source {spec!r}: {kind} needs a path, e.g. {kind}:PATH")
        source["path"] = location
    if kind in TABLE_KINDS:
        from quarry.config.snapshot import COLUMN_PRESETS

        if preset and preset not in COLUMN_PRESETS:
            raise ConfigError(f"--preset {preset!r}: one of {', '.join(COLUMN_PRESETS)}")
        source.update({key: value for key, value in (("preset", preset), ("blobs", blobs)) if value})
    return source


SHOWN_ORIGINS = 200   # rows of the origins table; the count says how many more


def show(path: Path) -> None:
    from quarry.snapshot.listing import snapshot_origins
    from quarry.snapshot.manifest import load, verify  # swh.model (the quarry.snapshot package): ~60 ms that `quarry --help` skips

    manifest = load(path)
    folder = path if path.is_dir() else path.parent
    counts = manifest["counts"]
    state = "[green]verified[/green]" if verify(manifest) else "[red]does not match its content[/red]"
    out.print(f"snapshot [bold]{manifest['snapshot_id'][:16]}[/bold] ({state}): {counts['origins']} origins, "
              f"{counts['files']:,} files, {counts['bytes'] / 1e6:.2f} MB, {len(manifest['shards'])} shards")
    origins = Table("origin", "revision", "directory", "files", "MB", "refused", title="origins")
    hostile = []
    for number, origin in enumerate(snapshot_origins(folder)):
        hostile += [(origin["origin"], r) for r in origin.get("archive_refusals", [])]
        if number < SHOWN_ORIGINS:
            origins.add_row(origin["origin"], (origin.get("revision") or origin.get("version") or "")[:12],
                            origin["directory"][-12:], f"{origin['file_count']:,}", f"{origin['bytes'] / 1e6:.2f}",
                            f"{sum(origin['refused'].values()):,}")
        elif number == SHOWN_ORIGINS:
            origins.add_row(f"... {counts['origins'] - SHOWN_ORIGINS:,} more", "", "", "", "", "")
    out.print(origins)
    for title, values in (("languages", counts["languages"]), ("subsets", counts["subsets"]),
                          ("refusals", counts["refused"])):
        table = Table(title[:-1] if title != "refusals" else "reason", "files", title=title)
        for name, n in sorted(values.items(), key=lambda kv: (-kv[1], kv[0]))[:25]:
            table.add_row(name, f"{n:,}")
        out.print(table)
    ledger = folder / "ledger.json"
    kinds = read_json(ledger).get("kinds", {}) if ledger.is_file() else {}
    if kinds:   # a code rule that cut prose shows here
        table = Table("kind", "reason", "files", title="refusals by kind")
        for kind, reasons in kinds.items():
            for reason, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
                table.add_row(kind, reason, f"{n:,}")
        out.print(table)
    if hostile:
        table = Table("archive", "member", "reason", title="refused archive members")
        for origin, refusal in hostile:
            table.add_row(origin, refusal["member"], refusal["reason"])
        out.print(table)


def register(app: typer.Typer) -> None:
    @app.command("snapshot")
    def snapshot_cmd(
        out_dir: Path = typer.Argument(Path("data/snapshots/default"), help="Snapshot folder to write."),
        source: list[str] = typer.Option([], "--source", "-s", help=KIND_HELP),
        before: str = typer.Option(None, help="For git sources: the last commit at or before this ISO date."),
        preset: str = typer.Option(None, help="For parquet / hfdisk sources: their layout (stack-v2, stack-v2-repos, "
                                              "stack-v1, pile, text); default: recognised from the columns."),
        blobs: Path = typer.Option(None, help="For parquet / hfdisk sources without contents: the blob store "
                                              "(files named by content id; .gz, .zst; flat or ab/ fan-out)."),
        params_file: Path = typer.Option(None, "--params", help="params.yaml (default: the project's)."),
        workers: int = typer.Option(None, help="Processes (default params pipeline.workers); same bytes for any."),
        show_dir: Path = typer.Option(None, "--show", help="Print a snapshot's origins, files, languages, refusals."),
        as_flow: bool = typer.Option(False, "--flow", help="Run as a Prefect flow (a task run per worker, sharing the origins out)."),
    ) -> None:
        """Snapshot sources (default: params snapshot.sources) into shards + a manifest of SWHIDs."""
        if show_dir is not None:
            show(show_dir)
            return
        from quarry.stages.snapshot import run_snapshot  # swh.model (the quarry.snapshot package): ~60 ms that `quarry --help` skips

        params = load_params(params_file)
        sources = [parse_source(spec, before, preset, str(blobs) if blobs else None) for spec in source] or None
        if as_flow:
            load_project_code()
            from flows.snapshot import snapshot  # the project's code, loaded by load_project_code

            manifest = snapshot(str(out_dir), str(params_file) if params_file else None, sources=sources)
        else:
            manifest = run_snapshot(sources, out_dir, params, workers=workers or params.pipeline.workers)
        counts = manifest["counts"]
        out.print(f"snapshot {manifest['snapshot_id'][:16]}: {counts['origins']} origins, {counts['files']:,} files, "
                  f"{counts['bytes'] / 1e6:.2f} MB in {len(manifest['shards'])} shards → {out_dir}")
        from quarry.snapshot.driver import describe_caps  # swh.model (the quarry.snapshot package): as above

        if notice := describe_caps(read_json(Path(out_dir) / "ledger.json")["caps"]):
            out.print(f"snapshot: {notice}", soft_wrap=True)

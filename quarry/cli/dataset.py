"""Dataset commands: `quarry assemble`, `quarry dataset list|show|diff|derive|verify`, `quarry cite`."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from quarry.datasets import bibtex, derive_version, load_manifest, plain, releases
from quarry.datasets.changelog import compare, read_changes, render
from quarry.datasets.manifest import verify_sums, version_hash
from quarry.datasets.versions import locate
from quarry.errors import QuarryError
from quarry.config.values import load_params
from quarry.records import read_json, read_records
from quarry.stages.assemble import assemble
from quarry.tokenizer import Tokenizer

out = Console()


def _tokenizer(path: Path | None):
    """A Quarry / Hugging Face tokenizer (tokenizer.json or its folder), or None."""
    if path is None:
        return None
    return Tokenizer.load(path)


def _shown(path: Path) -> str:
    """A path relative to the working folder when it is below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _counts_table(title: str, rows: dict, total: dict) -> Table:
    table = Table(title=title)
    columns = ["documents", "bytes", *(["tokens"] if "tokens" in total else [])]
    for name in (title.split()[-1], *columns, "share"):
        table.add_column(name, justify="left" if name == title.split()[-1] else "right")
    for name, counts in rows.items():
        share = counts["bytes"] / total["bytes"] if total["bytes"] else 0
        table.add_row(name, *(f"{counts[c]:,}" for c in columns), f"{share:.1%}")
    return table


def register(app: typer.Typer) -> None:
    dataset = typer.Typer(help="Released dataset versions: list, show, diff, derive, verify.", no_args_is_help=True)
    app.add_typer(dataset, name="dataset")
    register_derive(dataset)

    @app.command("assemble")
    def assemble_cmd(
        src: Path = typer.Argument(..., help="Folder of curated shards (the last curation stage's output)."),
        dst: Path = typer.Argument(..., help="Dataset folder to write, e.g. data/datasets/<name>."),
        params_file: Path = typer.Option(None, "--params", help="params.yaml (default: the project's)."),
        ledger: list[Path] = typer.Option([], help="An upstream stage's ledger.json (or its folder); repeatable."),
        snapshot: Path = typer.Option(None, help="The snapshot's manifest (JSON), for its id."),
        optout_hash: str = typer.Option(None, help="Hash of the opt-out registry the curation applied."),
        tokenizer: Path = typer.Option(None, help="A tokenizer.json (or its folder): adds token counts."),
        parent: str = typer.Option(None, help="The previous version (hash, label, folder, or 'latest')."),
        workers: int = typer.Option(None, help="Processes (default params pipeline.workers); same bytes for any."),
        no_register: bool = typer.Option(False, "--no-register", help="Do not record it in the release registry."),
    ) -> None:
        """Assemble curated shards into a versioned dataset: shards, manifest, datacard, SHA256SUMS."""
        params = load_params(params_file)
        if parent == "latest":  # the newest registered version of this dataset; none for a first build
            name = params.assemble.name
            parent = f"{name}@latest" if releases(name) else None
        manifest = assemble(src, dst, params, snapshot_manifest=snapshot, ledgers=ledger,
                            optout_registry_hash=optout_hash, tokenizer=_tokenizer(tokenizer),
                            parent=parent, workers=workers or params.pipeline.workers,
                            register=not no_register)
        total = manifest["composition"]["total"]
        out.print(f"{manifest['name']} {manifest['label']} [bold]{manifest['version']}[/bold]: "
                  f"{total['documents']:,} documents, {total['bytes']:,} bytes -> {dst}", soft_wrap=True)

    @dataset.command("list")
    def list_cmd(name: str = typer.Argument(None, help="Only this dataset.")) -> None:
        """Every registered version, oldest first."""
        table = Table()
        for column in ("name", "label", "version", "parent", "documents", "bytes"):
            table.add_column(column, no_wrap=True, justify="right" if column in ("documents", "bytes") else "left")
        table.add_column("folder", overflow="fold")
        for release in releases(name):
            m = release["manifest"]
            total = m["composition"]["total"]
            table.add_row(m["name"], m["label"], m["version"][:12], (m.get("parent") or "-")[:12],
                          f"{total['documents']:,}", f"{total['bytes']:,}", _shown(release["path"]))
        out.print(table)

    @dataset.command("show")
    def show_cmd(ref: str = typer.Argument(..., help="Version hash / prefix, label, name, or folder."),
                 as_json: bool = typer.Option(False, "--json", help="Print the whole manifest.")) -> None:
        """A version's provenance and composition."""
        m = load_manifest(ref)
        if as_json:
            print(json.dumps(m, indent=2, sort_keys=True))
            return
        out.print(f"[bold]{m['name']} {m['label']}[/bold]  version {m['version']}", soft_wrap=True)
        for key in ("parent", "snapshot_id", "params_hash", "optout_registry_hash", "code_version", "tokenizer"):
            out.print(f"  {key}: {m.get(key) or '-'}", soft_wrap=True)
        comp = m["composition"]
        for dim in ("split", "subset", "language", "license_category"):
            out.print(_counts_table(f"by {dim}", comp[f"by_{dim}"], comp["total"]))

    @dataset.command("diff")
    def diff_cmd(old: str = typer.Argument(..., help="The older version (hash, label, folder)."),
                 new: str = typer.Argument(..., help="The newer version."),
                 as_json: bool = typer.Option(False, "--json", help="Print JSON lines: the summary (counts), "
                                              "then every change (added, removed with its reason, changed, split_changed)."),
                 limit: int = typer.Option(50, help="Ids shown per section.")) -> None:
        """Documents added, removed (by reason) and changed between two versions."""
        with tempfile.TemporaryDirectory(prefix="quarry-diff-") as scratch:
            changes = Path(scratch) / "changes.jsonl.zst"
            log = compare(old, new, changes)
            if not as_json:
                print(render(log, changes, limit=limit))
                return
            print(json.dumps(log, sort_keys=True))
            for row in read_changes(changes):
                print(json.dumps(row, sort_keys=True))

    @dataset.command("verify")
    def verify_cmd(folder: Path = typer.Argument(..., help="A dataset folder (e.g. after `dvc pull`).")) -> None:
        """Check every file against SHA256SUMS and the version hash against the shards."""
        manifest = load_manifest(folder)
        bad = verify_sums(folder)
        if bad:
            raise QuarryError(f"{folder}: {len(bad)} file(s) differ from SHA256SUMS: {', '.join(bad[:10])}")
        if version_hash(manifest) != manifest["version"]:
            raise QuarryError(f"{folder}: manifest.json does not hash to its version {manifest['version']}")
        out.print(f"{manifest['name']} {manifest['label']} {manifest['version']}: every file matches", soft_wrap=True)

    @app.command("cite")
    def cite_cmd(ref: str = typer.Argument(..., help="Dataset name, version hash / prefix, label, or folder."),
                 fmt: str = typer.Option("both", "--format", help="text, bibtex or both.")) -> None:
        """How to cite a dataset version: plain text and BibTeX with name, label and hash."""
        import datetime

        if fmt not in ("text", "bibtex", "both"):
            raise QuarryError(f"--format must be text, bibtex or both, not '{fmt}'")
        manifest, data, release = locate(ref)
        if manifest is None:
            raise QuarryError(f"{data}: not a dataset version (no manifest.json)")
        year = None
        if release is not None:
            stamp = read_json(release / "release.json").get("registered_at")
            year = datetime.datetime.fromtimestamp(stamp, datetime.UTC).year if stamp else None
        if fmt in ("text", "both"):
            print(plain(manifest, year))
        if fmt == "both":
            print()
        if fmt in ("bibtex", "both"):
            print(bibtex(manifest, year))


def _read_ids(path: Path) -> set[str]:
    """Ids from a text file (one per line) or a jsonl file of records / rejects (meta.id or id)."""
    if ".jsonl" in path.name:
        rows = read_records(path, require_text=False)
        return {str((row.get("meta") or {}).get("id") or row.get("id")) for row in rows}
    return {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


def register_derive(dataset: typer.Typer) -> None:
    @dataset.command("derive")
    def derive_cmd(parent: Path = typer.Argument(..., help="The dataset folder to derive from."),
                   dst: Path = typer.Argument(..., help="Folder of the new version (may be the parent's)."),
                   drop_ids: Path = typer.Option(None, help="Ids to remove: one per line, or jsonl records."),
                   drop_origins: Path = typer.Option(None, help="Repository origins to remove, one per line."),
                   reason: str = typer.Option(..., help="Why they are removed, e.g. opt-out."),
                   optout_hash: str = typer.Option(None, help="Hash of the opt-out registry applied."),
                   label: str = typer.Option(None, help="Version label (default: the parent's next patch)."),
                   tokenizer: Path = typer.Option(None, help="The tokenizer, when the parent counts tokens."),
                   ) -> None:
        """A new version with documents removed (new opt-outs) without rerunning the pipeline."""
        if drop_ids is None and drop_origins is None:
            raise QuarryError("give --drop-ids and/or --drop-origins")
        ids = _read_ids(drop_ids) if drop_ids else set()
        origins = _read_ids(drop_origins) if drop_origins else set()

        def keep(record: dict) -> bool:
            meta = record.get("meta") or {}
            return meta.get("id") not in ids and meta.get("origin") not in origins

        manifest = derive_version(parent, dst, keep, reason, optout_registry_hash=optout_hash, label=label,
                                  tokenizer=_tokenizer(tokenizer))
        removed = sum(manifest["ledger"]["derive"]["dropped"].values())
        out.print(f"{manifest['name']} {manifest['label']} [bold]{manifest['version']}[/bold]: "
                  f"{removed:,} documents removed ({reason}) -> {dst}", soft_wrap=True)

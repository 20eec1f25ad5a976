"""`quarry licenses`, `quarry audit`, `quarry optout add|remove|list|apply|reapply|impact`, `quarry whois`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from quarry.datasets.audit import summary
from quarry.cli.impact import register_impact
from quarry.config import Layout, with_overrides
from quarry.datasets.versions import locate
from quarry.engine import run_local
from quarry.errors import QuarryError
from quarry.curation.licenses.report import folder_governance, license_counts, subtree_rows
from quarry.curation.licenses.shards import stage_shards
from quarry.curation.optout import add_entry, load_registry, remove_entry
from quarry.datasets.reapply import entry_matches, folder_origins, latest_data, nearest_origins, reapply_optout
from quarry.config.values import Params, load_params
from quarry.stages.audit import run_audit
from quarry.stages.licenses import LICENSES
from quarry.stages.optout import OPTOUT

out = Console()
err = Console(stderr=True)

PARAMS = typer.Option(None, "--params", help="params.yaml to read (default: the project's).")
REGISTRY = typer.Option(None, "--registry", help="Opt-out registry file (default: data/optout/registry.tsv).")


def _params(path: Path | None) -> Params:
    return load_params(path)


def _data_folder(ref: Path) -> Path:
    """A folder as given, or the checked-out folder of a registered dataset version."""
    if ref.exists():
        return ref
    _, data, _ = locate(str(ref))
    if data is None:
        raise QuarryError(f"{ref}: the dataset version's shards are not checked out here (`dvc pull` restores them)")
    return data


def register(app: typer.Typer) -> None:
    @app.command("licenses")
    def licenses(path: Path = typer.Argument(..., help="A plain folder or git checkout, a snapshot or dataset "
                                                       "folder, or a dataset version (hash, label or name)."),
                 out_dir: Path = typer.Option(None, "--out", help="Run the stage: write licensed shards here."),
                 workers: int = typer.Option(None, help="Processes (default: params pipeline.workers)."),
                 params_file: Path = PARAMS) -> None:
        """The governing license per subtree of a plain folder (with evidence); for shards, a table of
        license expressions and categories with counts; with --out, run the licenses stage."""
        params = _params(params_file)
        path = _data_folder(path)
        if out_dir is None and path.is_dir() and not stage_shards(path):
            _print_folder_governance(path, params)
            return
        if out_dir is not None:
            ledger = run_local(LICENSES, path, out_dir, params, workers=workers or params.pipeline.workers)
            out.print(f"licenses: {ledger['kept']}/{ledger['input']} kept; dropped {ledger['dropped'] or 'none'}")
            path = out_dir
        counts = license_counts(path, params.licenses)
        table = Table("expression", "category", "records", title=f"licenses of {path}")
        for (spdx, category), n in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0]))):
            table.add_row(spdx or "—", category, str(n))
        out.print(table)

    def _print_folder_governance(folder: Path, params: Params) -> None:
        table = Table("subtree", "expression", "category", "evidence", "level", "files",
                      title=f"governing licenses of {folder}")
        for row in subtree_rows(folder_governance(folder, params.licenses)):
            table.add_row(row["subtree"], row["spdx"] or "—", row["category"], row["evidence"] or "—",
                          row["level"] or "—", str(row["files"]))
        out.print(table)

    optout = typer.Typer(help="The opt-out registry: origins left out of every build.", no_args_is_help=True)
    app.add_typer(optout, name="optout")
    register_impact(app, optout)

    @optout.command("add")
    def add(value: str = typer.Argument(..., help="An origin URL, an origin prefix, or an owner (host/owner)."),
            kind: str = typer.Option("origin", help="origin | prefix | owner"),
            reason: str = typer.Option("", help="Why (a request reference)."),
            date: str = typer.Option(None, help="ISO date of the request (default: today)."),
            data: list[Path] = typer.Option(None, "--data", help="Count matches in these folders of shards or "
                                            "dataset versions (default: the snapshot and the latest dataset)."),
            registry: Path = REGISTRY, params_file: Path = PARAMS) -> None:
        """Add (or update) an entry, and say how many documents of the latest data it matches."""
        entry = add_entry(value, kind=kind, date=date, reason=reason, path=registry)
        out.print(f"added {entry.kind} {entry.value} ({entry.date})")
        places = [{"where": str(f), "origins": folder_origins(f)} for f in data] if data else \
            latest_data(_params(params_file))
        if not places:
            out.print("no snapshot or dataset here to count its matches in")
            return
        matches = entry_matches(entry, places)
        for found in matches:
            out.print(f"matches {found['documents']} documents of {len(found['origins'])} origins in {found['where']}")
        if not any(found["documents"] for found in matches):
            near = nearest_origins(entry.value, places)
            err.print(f"warning: {entry.kind} {entry.value} matches no document of the latest data; check its "
                      f"spelling (origins look like pypi:name, https://host/owner/repo)"
                      + (f"; nearest: {', '.join(near)}" if near else ""), soft_wrap=True)

    @optout.command("remove")
    def remove(value: str = typer.Argument(...), registry: Path = REGISTRY) -> None:
        """Remove every entry with this value."""
        for entry in remove_entry(value, path=registry):
            out.print(f"removed {entry.kind} {entry.value}")

    @optout.command("list")
    def list_(registry: Path = REGISTRY) -> None:
        """Show the entries and the registry hash."""
        reg = load_registry(registry)
        table = Table("kind", "value", "date", "reason", title=f"{reg.path} — hash {reg.hash[:12]}")
        for e in reg.entries:
            table.add_row(e.kind, e.value, e.date, e.reason)
        out.print(table)

    @optout.command("apply")
    def apply(src: Path = typer.Argument(..., help="Folder of shards."),
              dst: Path = typer.Argument(..., help="Where the filtered shards go."),
              workers: int = typer.Option(1, help="Processes."), registry: Path = REGISTRY,
              params_file: Path = PARAMS) -> None:
        """Run the opt-out stage over a folder of shards."""
        params = _params(params_file)
        if registry is not None:  # instead of params optout.registry, which is relative to the project
            params = with_overrides(params, {"optout.registry": str(registry.resolve())})
        ledger = run_local(OPTOUT, src, dst, params, workers=workers)
        out.print(f"opt-out: {ledger['kept']}/{ledger['input']} kept, {ledger['dropped'].get('opt-out', 0)} removed "
                  f"(registry {ledger['registry_hash'][:12]})")

    @optout.command("reapply")
    def reapply(dataset: Path = typer.Argument(..., help="A dataset version folder."),
                out_dir: Path = typer.Argument(..., help="Folder of the new version."),
                force: bool = typer.Option(False, "--force", help="Make a new version even when nothing is removed."),
                registry: Path = REGISTRY) -> None:
        """A new dataset version without the origins the registry now covers (nothing recomputed)."""
        result = reapply_optout(dataset, registry, out_dir, force=force)
        log, manifest = result["changelog"], result["manifest"]
        if manifest is None:
            out.print(f"the registry covers no document of {dataset} ({log['from'][:12]}): 0 removed, no new version "
                      "made (--force makes one anyway)")
            return
        out.print(f"new version {manifest['version'][:12]} ({manifest.get('label')}): "
                  f"{log['removed_documents']} documents removed")
        for entry in log["entries"]:
            for origin, n in entry["origins"].items():
                out.print(f"  - {origin}: {n} ({entry['kind']} {entry['value']})")

    @app.command("audit")
    def audit_(dataset: Path = typer.Argument(..., help="A dataset version folder, or a version (hash, label or "
                                                         "name)."),
               snapshot: Path = typer.Option(None, help="The snapshot it was built from (default: params "
                                                        "pipeline.paths.snapshot)."),
               out_file: Path = typer.Option(None, "--out", help="Write the report (audit.json) here."),
               registry: Path = REGISTRY, params_file: Path = PARAMS,
               workers: int = typer.Option(None, help="Processes (default: params pipeline.workers)."),
               limit: int = typer.Option(20, help="Violations listed one by one (all are in audit.json).")) -> None:
        """Re-derive every document's license from the snapshot and check the policy, the opt-out
        registry, secrets and license evidence; exits 1 on any violation."""
        params = _params(params_file)
        snapshot = snapshot or Layout.of(params).snapshot
        report = run_audit(_data_folder(dataset), snapshot, params, out_file, registry_path=registry,
                           workers=workers or params.pipeline.workers)
        if not report["passed"]:
            table = Table("kind", "origin", "documents", title=f"violations in {dataset}")
            for row in report["violations_by_origin"]:
                table.add_row(row["kind"], row["origin"], str(row["documents"]))
            out.print(table)
            for v in report["violations"][:limit]:
                out.print(f"  {v['kind']}: {v['origin']} {v['path']} {v['detail'] if v['detail'] else ''}")
        out.print(summary(report))
        if not report["passed"]:
            raise typer.Exit(1)

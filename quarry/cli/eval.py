"""Evaluation and lineage commands: `quarry eval bpb` (`quarry evaluate` is its hidden alias), `quarry compare`,
`quarry lineage`, `quarry trace`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table
from rich.tree import Tree

from quarry.config import with_overrides
from quarry.config.training import EvaluateParams
from quarry.errors import ConfigError
from quarry.datasets.lineage import lineage_chain, openlineage_events
from quarry.datasets.lineage import trace as trace_document
from quarry.config.values import load_params
from quarry.records import JsonDict, atomic_write_bytes
from quarry.tracking import compare_runs, tracking_uri

out = Console()


def _print_report(report: JsonDict) -> None:
    table = Table("subset", "docs", "bytes", "tokens", "bits/byte", title=f"BPB of {report['checkpoint']['path']}")
    for name, score in report["subsets"].items():
        table.add_row(name, f"{score['docs']:,}", f"{score['bytes']:,}", f"{score['tokens']:,}", f"{score['bpb']:.4f}")
    total = report["aggregate"]
    table.add_row("[bold]all (byte-weighted)", f"{total['docs']:,}", f"{total['bytes']:,}", f"{total['tokens']:,}",
                  f"[bold]{total['bpb']:.4f}")
    out.print(table)
    for name, why in (report.get("unscored") or {}).items():
        out.print(f"[yellow]not scored[/yellow]: {name}: {why}")
    out.print(f"context {report['context_len']} tokens, stride {report['stride']}")
    if report.get("mlflow_run_id"):
        out.print(f"logged to MLflow run {report['mlflow_run_id']}")


def _cross_check(tool: str, checkpoint: Path, data: Path, cfg: EvaluateParams, as_json: bool) -> None:
    from quarry.eval.lm_eval_check import cross_check  # torch, lm-eval: only the cross-check loads them

    if tool != "lm-eval":
        raise ConfigError(f"--cross-check {tool}: the only cross-check is lm-eval")
    report = cross_check(checkpoint, data, cfg)
    if as_json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return
    table = Table("subset", "docs", "quarry", f"lm-eval {report['lm_eval_version']}", "difference",
                  title=f"bits per byte of {checkpoint}, context {report['context_len']}, stride {report['stride']}")
    for name, row in report["subsets"].items():
        table.add_row(name, str(row["docs"]), f"{row['quarry']:.6f}", f"{row['lm_eval']:.6f}", f"{row['difference']:+.2e}")
    out.print(table)
    out.print(f"largest difference {report['max_abs_difference']:.2e} bits per byte")


def register(app: typer.Typer) -> None:
    evals = typer.Typer(help="Evaluate checkpoints.", no_args_is_help=True)
    app.add_typer(evals, name="eval")

    @evals.command("bpb")
    def bpb(checkpoint: Path = typer.Argument(..., help="A checkpoint folder (config.json, model.safetensors, "
                                                         "tokenizer.json)."),
            data: Path = typer.Argument(..., help="A dataset version folder, or any jsonl / jsonl.zst file or folder."),
            out_dir: Path = typer.Option(None, "--out", help="Write bpb.json and plots here."),
            split: str = typer.Option(None, help="Split of a dataset version [evaluate.split]."),
            subset: list[str] = typer.Option(None, help="Only this pile_set_name (repeatable)."),
            context_len: int = typer.Option(None, help="Tokens per window [the model's context]."),
            stride: int = typer.Option(None, help="Tokens a window advances [half the context]."),
            batch_size: int = typer.Option(None, help="Windows per forward pass."),
            device: str = typer.Option(None, help="cpu, cuda, cuda:1 ... [auto]."),
            dtype: str = typer.Option(None, help="float32, bfloat16 or float16."),
            max_docs: int = typer.Option(None, help="Score only the first N documents."),
            mlflow: bool = typer.Option(None, "--mlflow/--no-mlflow", help="Log to the training run in MLflow."),
            register_model: str = typer.Option(None, "--register", help="Register the checkpoint under this name."),
            params_file: Path = typer.Option(None, "--params", help="params.yaml [the project's]."),
            as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
            cross_check: str = typer.Option(None, "--cross-check", help="lm-eval: score the split with "
                                            "lm-evaluation-harness too (non-overlapping windows) and compare."),
            ) -> None:
        """Bits per byte per subset and byte-weighted overall, by rolling windows."""
        from quarry.stages.evaluate import run_evaluate, score_checkpoint  # torch: only scoring loads it

        params = load_params(params_file)  # outside a project: every default
        overrides = {"split": split, "subsets": subset or None, "context_len": context_len, "stride": stride,
                     "batch_size": batch_size, "device": device, "dtype": dtype, "max_docs": max_docs,
                     "mlflow": mlflow, "register_model": register_model}
        params = with_overrides(params, {f"evaluate.{k}": v for k, v in overrides.items() if v is not None},
                                source="options")
        if cross_check is not None:
            _cross_check(cross_check, checkpoint, data, params.evaluate, as_json)
            return
        if out_dir is None:
            report = score_checkpoint(checkpoint, data, params)
        else:
            report = run_evaluate(checkpoint, data, out_dir, params)
        if as_json:
            print(json.dumps(report, indent=2, sort_keys=True))
        else:
            _print_report(report)

    @app.command("evaluate", hidden=True)
    def evaluate(checkpoint: Path = typer.Argument(..., help="A checkpoint folder."),
                 data: Path = typer.Argument(..., help="The dataset version folder."),
                 out_dir: Path = typer.Argument(..., help="Where bpb.json and the plots go."),
                 params_file: Path = typer.Option(None, "--params", help="params.yaml [the project's]."),
                 ) -> None:
        """Alias of `quarry eval bpb CHECKPOINT DATA --out OUT_DIR` (every setting from params.yaml)."""
        bpb(checkpoint, data, out_dir=out_dir, split=None, subset=None, context_len=None, stride=None,
            batch_size=None, device=None, dtype=None, max_docs=None, mlflow=None, register_model=None,
            params_file=params_file, as_json=False)

    @app.command("compare")
    def compare(runs: list[str] = typer.Argument(..., help="MLflow run ids, id prefixes or run names."),
                diff_only: bool = typer.Option(False, "--diff-only", help="Only the rows where the runs differ."),
                as_json: bool = typer.Option(False, "--json", help="Print the table as JSON."),
                ) -> None:
        """Side by side: lineage hashes, params and BPB per subset of MLflow runs."""
        headers, rows = compare_runs(runs)
        if diff_only:
            rows = [(label, values) for label, values in rows if label == "run id" or len(set(values)) > 1]
        if as_json:
            print(json.dumps({"runs": headers, "rows": {label: values for label, values in rows}}, indent=2))
            return
        table = Table("", *headers, title=f"MLflow runs ({tracking_uri()})")
        for label, values in rows:
            differs = len(set(values)) > 1
            shown = [_abbreviate(v) for v in values]
            table.add_row(label, *[f"[yellow]{v}" if differs else v for v in shown])
        out.print(table)

    @app.command("lineage")
    def lineage(checkpoint: Path = typer.Argument(..., help="A checkpoint folder."),
                as_json: bool = typer.Option(False, "--json", help="Print the resolved chain as JSON."),
                openlineage: Path = typer.Option(None, "--openlineage",
                                                 help="Write OpenLineage RunEvents here (JSON lines; '-' prints them)."),
                ) -> None:
        """The chain checkpoint <- recipe <- tokenizer <- dataset <- ledgers <- snapshot <- origins."""
        chain = lineage_chain(checkpoint)
        if openlineage is not None:
            lines = "".join(json.dumps(event, sort_keys=True) + "\n" for event in openlineage_events(chain))
            if str(openlineage) == "-":
                print(lines, end="")
                return
            atomic_write_bytes(openlineage, lines.encode())
            out.print(f"wrote {lines.count(chr(10))} OpenLineage events to {openlineage}")
        if as_json:
            print(json.dumps(chain, indent=2, sort_keys=True))
        elif openlineage is None:
            out.print(lineage_tree(chain))

    @app.command("trace")
    def trace(checkpoint: Path = typer.Argument(..., help="A checkpoint folder."),
              document: str = typer.Argument(..., help="A SWHID (swh:1:cnt:...), a path, or <origin>/<path>."),
              as_json: bool = typer.Option(False, "--json", help="Print the answer as JSON."),
              ) -> None:
        """Did this file go into the checkpoint's training data, and under which license?"""
        answer = trace_document(checkpoint, document)
        if as_json:
            print(json.dumps(answer, indent=2, sort_keys=True))
            return
        out.print(f"[bold]{answer['answer']}", highlight=False)
        for key in ("id", "path", "origin", "revision", "split", "subset", "license", "stage", "reason",
                    "dataset_version"):
            if answer.get(key) is not None:
                value = license_text(answer[key]) if key == "license" else answer[key]
                out.print(f"  {key}: {value}", highlight=False)


def license_text(license_info: Any) -> str:
    """A record's license as people write it: `MIT (permissive, from LICENSE)`."""
    if not isinstance(license_info, dict):
        return str(license_info)
    spdx = license_info.get("spdx") or "no license found"
    details = [str(license_info[k]) for k in ("category",) if license_info.get(k)]
    if license_info.get("evidence"):
        details.append(f"from {license_info['evidence']}")
    return f"{spdx} ({', '.join(details)})" if details else spdx


_LONG_HASH = re.compile(r"^([0-9a-f]{12})[0-9a-f]{28,}(-dirty)?$")


def _abbreviate(value: str) -> str:
    """A sha1 / sha256 hex shown by its first 12 digits (--json prints it whole)."""
    match = _LONG_HASH.match(value)
    return f"{match.group(1)}{match.group(2) or ''}" if match else value


def _short(value: Any, n: int = 12) -> str:
    return str(value)[:n] if value else "?"


def lineage_tree(chain: JsonDict) -> Tree:
    """The chain as a rich tree, newest first, one node per link with its hash and code version."""
    def flag(link: JsonDict) -> str:
        return "" if link.get("resolved", True) else f" [red](unresolved: {link.get('problem')})"

    ckpt, recipe, tok, data, snap = (chain["checkpoint"], chain["recipe"], chain["tokenizer"], chain["dataset"],
                                     chain["snapshot"])
    root = Tree(f"[bold]checkpoint[/] {ckpt['path']}  hash {_short(ckpt['hash'])}  code {_short(ckpt['code_version'])}"
                + (f"  mlflow {ckpt['mlflow_run_id']}" if ckpt.get("mlflow_run_id") else ""))
    runs = chain.get("run_checkpoints") or []
    if runs:
        steps = root.add("[bold]run checkpoints[/]")
        for c in runs:
            steps.add(f"{'final' if c['final'] else 'step'} {c['step']}  {c['path']}  hash {_short(c['hash'])}")
    node = root.add(f"[bold]recipe[/] {recipe['name']}  config {_short(recipe['config_hash'])}")
    if ckpt.get("base_model"):
        files = f"  files {_short(ckpt['base_model_hash'])}" if ckpt.get("base_model_hash") else ""
        node.add(f"[bold]base model[/] {ckpt['base_model']}{files}")
    checked = {True: "  [green]matches tokenizer.json", False: "  [red]differs from tokenizer.json"}.get(
        tok.get("verified"), "")
    node = node.add(f"[bold]tokenizer[/] {tok.get('path') or '-'}  hash {_short(tok.get('hash') or tok.get('file_hash'))}"
                    f"{checked}  trained on {_short(tok.get('dataset_hash'))}")
    node = node.add(f"[bold]dataset[/] {data.get('name')} {data.get('label') or ''}  version {_short(data.get('version'))}"
                    f"  params {_short(data.get('params_hash'))}  code {_short(data.get('code_version'))}{flag(data)}")
    stages = node.add("[bold]stage ledgers[/]")
    for stage in reversed(chain["stages"]):  # newest first, like the rest of the tree
        dropped = ", ".join(f"{reason} {n}" for reason, n in stage["dropped"].items()) or "none dropped"
        stages.add(f"{stage['stage']}: {stage['seen']} in, {stage['kept']} kept ({dropped})  "
                   f"ledger {_short(stage['hash'])}")
    code = f"  code {_short(snap['code_version'])}" if snap.get("code_version") else ""
    node = node.add(f"[bold]snapshot[/] {snap.get('snapshot_id') or '?'}  {snap.get('files', '?')} files"
                    f"  params {_short(snap.get('params_hash'))}{code}{flag(snap)}")
    for origin in chain["origins"]:
        # A git origin has a commit; a folder or an installed distribution is pinned by its tree's SWHID.
        pinned = origin.get("revision") or origin.get("directory") or "unpinned"
        node.add(f"[bold]origin[/] {origin['origin']} @ {pinned}")
    return root

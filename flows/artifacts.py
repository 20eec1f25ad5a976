"""What a stage shows in the Prefect UI: its ledger as a table, the dataset card, the BPB table,
each as a Prefect artifact of the flow run (dataset card and BPB also as a log line; stage
ledgers are logged by the engine as each stage ends).

Artifact keys are stable (``ledger-<stage>``, ``datacard-<dataset>``, ``bpb``), so the UI's
Artifacts page shows each one's history across runs.
"""

from __future__ import annotations

import re
from pathlib import Path

from prefect import get_run_logger
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from quarry.datasets.manifest import Manifest
from quarry.records import JsonDict


def artifact_key(*parts: str) -> str:
    """Prefect keys take lowercase letters, digits and dashes only."""
    return re.sub(r"[^a-z0-9-]+", "-", "-".join(parts).lower()).strip("-")


def ledger_rows(ledger: JsonDict) -> list[JsonDict]:
    rows = [{"outcome": "input", "documents": ledger.get("input", 0)},
            {"outcome": "kept", "documents": ledger.get("kept", 0)}]
    rows += [{"outcome": f"dropped: {reason}", "documents": n} for reason, n in ledger.get("dropped", {}).items()]
    rows += [{"outcome": f"changed: {reason}", "documents": n} for reason, n in ledger.get("changed", {}).items()]
    return rows


def publish_ledgers(ledgers: dict[str, JsonDict]) -> None:
    """One table artifact per stage ledger (the engine already logs each stage's ledger line)."""
    for stage, ledger in ledgers.items():
        create_table_artifact(ledger_rows(ledger), key=artifact_key("ledger", stage),
                              description=f"Ledger of the {stage} stage: documents kept, dropped and changed, by reason.")


def publish_datacard(dataset_dir: str | Path, manifest: Manifest) -> None:
    """The dataset card (composition, licenses, ledgers) as a markdown artifact."""
    card = Path(dataset_dir) / "datacard.md"
    text = card.read_text(encoding="utf-8") if card.is_file() else f"# {manifest.get('name')}\n"
    get_run_logger().info(f"dataset {manifest.get('name')} {manifest.get('label')} version {manifest.get('version')}: "
                          f"{manifest['composition']['total'].get('documents')} documents")
    create_markdown_artifact(text, key=artifact_key("datacard", str(manifest.get("name"))),
                             description=f"Dataset card of version {manifest.get('version', '')[:12]}")


def publish_bpb(reports: dict[str, JsonDict]) -> None:
    """Bits per byte per checkpoint and subset, as one table."""
    rows = []
    for checkpoint, report in reports.items():
        for subset, score in (report.get("subsets") or {}).items():
            rows.append({"checkpoint": checkpoint, "subset": subset, "bpb": round(float(score["bpb"]), 4),
                         "documents": score.get("docs"), "bytes": score.get("bytes")})
        aggregate = report.get("aggregate") or {}
        if aggregate:
            rows.append({"checkpoint": checkpoint, "subset": "all (byte-weighted)",
                         "bpb": round(float(aggregate["bpb"]), 4), "documents": aggregate.get("docs"),
                         "bytes": aggregate.get("bytes")})
            get_run_logger().info(f"{checkpoint}: {aggregate['bpb']:.4f} bits per byte on {aggregate.get('docs')} documents")
    create_table_artifact(rows, key="bpb", description="Bits per byte of each checkpoint on each subset of the test split.")

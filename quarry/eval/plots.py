"""Evaluation plots as PNG files: BPB per subset, and the training loss curve."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    return plt


def _save(plt, fig, path: str | Path) -> Path:
    """PNG without the library version in its metadata, so the same figure gives the same bytes."""
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return path


def bpb_bar_chart(result: dict[str, Any], path: str | Path, title: str = "bits per byte") -> Path:
    """A horizontal bar per subset (document count in the label) and the aggregate on top."""
    plt = _pyplot()
    subsets = result["subsets"]
    names = sorted(subsets, key=lambda name: subsets[name]["bpb"])
    labels = [f"{name} ({subsets[name]['docs']} docs)" for name in names] + ["all (byte-weighted)"]
    values = [subsets[name]["bpb"] for name in names] + [result["aggregate"]["bpb"]]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(values) + 1.2))
    bars = ax.barh(labels, values, color=["#4c72b0"] * len(names) + ["#dd8452"])
    ax.bar_label(bars, fmt="%.4f", padding=3)
    ax.set_xlabel("bits per byte (lower is better)")
    ax.set_title(title)
    ax.set_xlim(0, max(values, default=1.0) * 1.2 or 1.0)
    return _save(plt, fig, path)


def loss_curve(history: Sequence[tuple[int, float]], path: str | Path, title: str = "training loss") -> Path:
    """Loss against step, from (step, value) pairs (MLflow's metric history)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.5))
    if history:
        steps, values = zip(*history)
        ax.plot(steps, values, color="#4c72b0", linewidth=1.2)
    ax.set_xlabel("step")
    ax.set_ylabel("loss (nats / token)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    return _save(plt, fig, path)

"""Evaluation plots as PNG files: BPB per subset, and the training loss curve."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from quarry.infra.plots import ACCENT, COLOR, horizontal_bars, pyplot, save
from quarry.records import JsonDict


def bpb_bar_chart(result: JsonDict, path: str | Path, title: str = "bits per byte") -> Path:
    """A horizontal bar per subset (document count in the label) and the aggregate on top."""
    plt = pyplot()
    subsets = result["subsets"]
    names = sorted(subsets, key=lambda name: subsets[name]["bpb"])
    labels = [f"{name} ({subsets[name]['docs']} docs)" for name in names] + ["all (byte-weighted)"]
    values = [subsets[name]["bpb"] for name in names] + [result["aggregate"]["bpb"]]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(values) + 1.2))
    horizontal_bars(ax, labels, values, value_labels=[f"{v:.4f}" for v in values],
                    colors=[COLOR] * len(names) + [ACCENT], xlabel="bits per byte (lower is better)")
    ax.set_title(title)
    return save(fig, path)


def loss_curve(history: Sequence[tuple[int, float]], path: str | Path, title: str = "training loss") -> Path:
    """Loss against step, from (step, value) pairs (MLflow's metric history)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.5))
    if history:
        steps, values = zip(*history)
        ax.plot(steps, values, color=COLOR, linewidth=1.2)
    ax.set_xlabel("step")
    ax.set_ylabel("loss (nats / token)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    return save(fig, path)

"""One look for every PNG Quarry writes (dataset cards, BPB charts, loss curves): the same colours,
values written on the bars, a log axis when small bars would vanish, and bytes that do not depend
on the library version."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

COLOR = "#4c72b0"
ACCENT = "#dd8452"
DPI = 100
# Bars spanning more than this ratio get a log axis, so a 0.1% subset is still a visible bar.
LOG_AXIS_RATIO = 50


def pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    return plt


def save(fig, path: str | Path) -> Path:
    """PNG without the library version in its metadata, so the same figure gives the same bytes."""
    plt = pyplot()
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    return path


def horizontal_bars(ax, labels: Sequence[str], values: Sequence[float], *, value_labels: Sequence[str],
                    colors: Sequence[str] | None = None, xlabel: str = "") -> None:
    """Bars with their value written beside each; a log axis when the values span a wide range."""
    bars = ax.barh(list(labels), list(values), color=list(colors) if colors else COLOR)
    ax.bar_label(bars, labels=list(value_labels), padding=3, fontsize=8)
    positive = [v for v in values if v > 0]
    if positive and max(positive) / min(positive) > LOG_AXIS_RATIO:
        ax.set_xscale("log")
        ax.set_xlim(min(positive) / 2, max(positive) * 8)  # room for the labels on a log scale
        xlabel = f"{xlabel} (log scale)" if xlabel else "log scale"
    else:
        ax.set_xlim(0, (max(values, default=1.0) or 1.0) * 1.25)
    ax.set_xlabel(xlabel)

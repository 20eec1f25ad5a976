"""Plots people read: values on the bars, small subsets visible, the same bytes for the same figure."""

from quarry.datasets.datacard import plot
from quarry.infra.plots import horizontal_bars, pyplot

MANIFEST = {"name": "tiny", "label": "0.1.0", "version": "f" * 64, "composition": {
    "total": {"bytes": 10_000_000},
    "by_subset": {"code-python": {"bytes": 9_990_000}, "misc": {"bytes": 10_000}},
    "by_language": {"Python": {"bytes": 9_000_000}, "Text only": {"bytes": 1_000_000}}}}


def test_bars_carry_their_values_and_a_log_axis_keeps_small_ones_visible():
    plt = pyplot()
    fig, (wide, narrow) = plt.subplots(1, 2)
    horizontal_bars(wide, ["big", "small"], [99.9, 0.1], value_labels=["99.9%", "0.1%"])
    horizontal_bars(narrow, ["a", "b"], [60.0, 40.0], value_labels=["60%", "40%"])
    assert wide.get_xscale() == "log" and narrow.get_xscale() == "linear"
    assert [t.get_text() for t in wide.texts] == ["99.9%", "0.1%"]
    plt.close(fig)


def test_datacard_plot_is_deterministic(tmp_path):
    plot(MANIFEST, tmp_path / "a.png")
    plot(MANIFEST, tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    assert (tmp_path / "a.png").stat().st_size > 5000

"""The data behind each figure (rankscale.book.readout.figure_data) and its alt text (readout.describe), read
off the drawn figure: one kind of artist at a time, drawn through the book's plotting helpers where they exist."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from rankscale.book import plots, readout
from test_plots import a1_run
from rankscale.sets import get


@pytest.fixture(scope="module")
def model_set():
    return get("tiny")


# read off the drawn figure by plots.show: one kind of artist at a time, drawn through the book's helpers where they exist.


def rows_of(frame, panel, series, columns):
    """The values of one series of one panel, as a list of tuples of ``columns``."""
    sel = frame[(frame["panel"] == panel) & (frame["series"] == series)]
    return [tuple(row) for row in sel[columns].itertuples(index=False, name=None)]


def test_plain_text_drops_mathtext_markup():
    assert readout.plain_text(r"$-\log \mathrm{RBP}_1$") == "-log RBP_1"
    assert readout.plain_text(r"RBP$_{{{30}}}$ (ge)") == "RBP_30 (ge)"
    assert readout.plain_text(r"exponent $\alpha$ = -slope") == "exponent α = -slope"
    assert readout.plain_text(r"$\mu$, $\sigma^{2}$\,") == r"μ, σ^2\,"  # outside math a backslash is text
    assert readout.plain_text(r"$R = 1/p(t)$: no target above") == "R = 1/p(t): no target above"
    assert readout.plain_text(r"$Q_e$ (geometric mean of $s$)") == "Q_e (geometric mean of s)"
    assert readout.plain_text(r"$\frac{\mathrm{EE}}{\mathrm{CE}}\,\times 100$") == "EE/CE × 100"
    assert readout.plain_text("step 1,000\nEE = 2.10") == "step 1,000 EE = 2.10"
    assert readout.plain_text("a $5 note") == "a $5 note", "one $: no mathtext"


def test_figure_data_size_plot_points_fits_and_the_legend_below(model_set):
    from rankscale.analysis.fit import fit_power_law

    neox, llama = (family.name for family in model_set.families[:2])
    sizes = np.array([1e4, 1e5, 1e6])
    values = {neox: np.array([3.0, 2.5, 2.0]), llama: np.array([3.2, 0.0, 2.1])}  # 0: not on a log axis
    fig, axes = plots.corpus_panels(["pydocs", "stdlib"], 3.0, figure=Figure())
    for ax in axes[0]:
        for family in (neox, llama):
            fitted = fit_power_law(sizes, values[family]) if family == neox else None
            plots.size_plot(ax, model_set, family, sizes, values[family], fitted)
    axes[0, 0].set_ylabel("CE (nats)")
    plots.size_axes(axes, "S")
    plots.legend_below(fig, plots.family_handles(model_set, [neox, llama], ls="none"))
    frame = readout.figure_data(fig)
    x, y = "non-embedding parameters S", "CE (nats)"
    assert list(frame.columns) == ["panel", "series", x, y], "named by the axis labels, as plain text"
    for corpus in ("pydocs", "stdlib"):  # the right panel takes its neighbour's labels
        assert rows_of(frame, corpus, f"{neox} (points)", [x, y]) == [(1e4, 3.0), (1e5, 2.5), (1e6, 2.0)]
        assert rows_of(frame, corpus, llama, [x, y]) == [(1e4, 3.2), (1e6, 2.1)], "no fit: one look, no suffix"
        fit = frame[(frame["panel"] == corpus) & (frame["series"] == f"{neox} (line)")]
        assert len(fit) == 50 and fit[x].iloc[0] == pytest.approx(1e4) and fit[x].iloc[-1] == pytest.approx(1e6)
    assert len(frame) == 2 * (3 + 50 + 2)


def test_figure_data_axis_labels_from_the_bottom_row_and_the_figure():
    fig, axes = plots.panels(2, 1, 2.0, figure=Figure(), sharex=True)
    axes[0, 0].plot([1, 2], [3, 4])
    axes[1, 0].plot([1, 2], [5, 6])
    axes[1, 0].set(xlabel="step")
    axes[0, 0].set(ylabel="top", title="a")
    frame = readout.figure_data(fig)
    assert list(frame.columns) == ["panel", "series", "step", "top", "y"]
    assert rows_of(frame, "a", "line 1", ["step", "top"]) == [(1, 3), (2, 4)]
    assert rows_of(frame, "a (panel 2)", "line 1", ["step", "y"]) == [(1, 5), (2, 6)], \
        "the untitled bottom panel takes its column's title, numbered apart"
    # A5's layout: a grid whose spare panels are turned off, labelled by label_bottom and the figure's supylabel
    fig, axes = plots.panels(2, 2, 2.0, figure=Figure(), sharex=True, sharey=True)
    for i, ax in enumerate(axes.flat[:3]):
        ax.plot([1.0, 10.0], [0.5, 0.1 * i])
        ax.set_title(f"model {i}")
    plots.label_bottom(axes, 3, "rank $r$ (ge)")
    fig.supylabel("fraction of targets")
    frame = readout.figure_data(fig)
    assert list(frame.columns) == ["panel", "series", "rank r (ge)", "fraction of targets"]
    assert sorted(set(frame["panel"])) == ["model 0", "model 1", "model 2"], "the turned-off panel is no panel"
    # size_axes names the middle panel of three alone: the others of its grid take its label
    fig, axes = plots.corpus_panels(["a", "b", "c"], 2.0, figure=Figure())
    for ax in axes[0]:
        ax.plot([1e3, 1e4], [1.0, 2.0])
    plots.size_axes(axes)
    assert list(readout.figure_data(fig).columns) == ["panel", "series", plots.SIZE_LABEL, "y"]


def test_figure_data_same_label_on_both_axes_and_no_data():
    fig = Figure()
    ax = fig.subplots()
    assert list(readout.figure_data(fig).columns) == ["panel", "series"] and readout.figure_data(fig).empty
    assert "no data" in readout.describe(fig)
    ax.plot([1.0, 2.0], [1.5, 2.5], label="$p_A$")
    ax.set(xlabel="CE", ylabel="CE")
    frame = readout.figure_data(fig)
    assert list(frame.columns) == ["panel", "series", "CE (x)", "CE (y)"]
    assert rows_of(frame, "panel 1", "p_A", ["CE (x)", "CE (y)"]) == [(1.0, 1.5), (2.0, 2.5)]


def test_figure_data_scatter_plain_and_colour_mapped(model_set):
    fig = Figure()
    ax = fig.subplots()
    look = plots.family_style(model_set, "NeoX ladder")
    ax.scatter([0.1, 0.2], [0.5, 0.6], marker=look["marker"], color=look["color"])  # named by the legend
    ax.scatter([0.3, 0.4], [0.7, 0.8], marker=look["marker"], facecolors="none", edgecolors=look["color"])  # open
    mapped = ax.scatter([1.0, 2.0, np.nan], [3.0, 4.0, 5.0], c=[10.0, 20.0, 30.0], label="fits")
    fig.colorbar(mapped, ax=ax, label=r"$\mu$")
    ax.set(xlabel="$p_A$", ylabel="RBP$_1$", title="pydocs")
    plots.legend_below(fig, plots.family_handles(model_set, ["NeoX ladder"], ls="none"))
    frame = readout.figure_data(fig)
    assert list(frame.columns) == ["panel", "series", "p_A", "RBP_1", "μ"], "the colour bar is no panel"
    assert rows_of(frame, "pydocs", "NeoX ladder", ["p_A", "RBP_1"]) == [(0.1, 0.5), (0.2, 0.6)]
    assert rows_of(frame, "pydocs", "points 2", ["p_A", "RBP_1"]) == [(0.3, 0.7), (0.4, 0.8)], \
        "open markers are not the filled legend entry's"
    assert rows_of(frame, "pydocs", "fits", ["p_A", "RBP_1", "μ"]) == [(1.0, 3.0, 10.0), (2.0, 4.0, 20.0)]


def test_figure_data_errorbars_with_their_ends():
    fig = Figure()
    left, right = fig.subplots(1, 2)
    left.errorbar([1.0, 2.0, 3.0], [10.0, 20.0, 30.0], yerr=[[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]], fmt="o",
                  label="CE")
    left.set(xlabel="size", ylabel="CE (nats)")
    right.errorbar([5.0, 6.0], [1.0, 2.0], xerr=0.25, fmt="none")
    right.set(xlabel="share", ylabel="share")
    frame = readout.figure_data(fig)
    assert rows_of(frame, "panel 1", "CE", ["size", "CE (nats)", "CE (nats) low", "CE (nats) high"]) == [
        (1.0, 10.0, 9.0, 10.5), (2.0, 20.0, 18.0, 20.5), (3.0, 30.0, 27.0, 30.5)]
    assert rows_of(frame, "panel 2", "error bars 1", ["share (x)", "share (y)", "share (x) low", "share (x) high"]) \
        == [(5.0, 1.0, 4.75, 5.25), (6.0, 2.0, 5.75, 6.25)], "no markers: the bars' middles"


def test_figure_data_bars_stacked_by_category_grouped_and_horizontal(model_set):
    family = model_set.families[0].name
    bands = pd.DataFrame([{"corpus": "pydocs", "family": family, "model": "d16", "p(t) near": centre, "targets": n,
                           "rank 1": n // 4, "rank 2+": n - n // 4} for centre, n in ((0.1, 40), (0.28, 8))])
    fig = plots.rank_share_bars(model_set, bands, [(family, "d16")], ["pydocs"], ["rank 1", "rank 2+"], 0.1,
                                figure=Figure())
    frame = readout.figure_data(fig)
    x, y = "p(t) within 10% of", "share of targets"
    assert list(frame.columns) == ["panel", "series", x, y, f"{y} bottom"]
    panel = f"{family}: d16, pydocs"  # the subfigure's title heads its panel's
    assert rows_of(frame, panel, "rank 1", [x, y]) == [("0.1", 0.25), ("0.28", 0.25)]
    assert rows_of(frame, panel, "rank 2+", [x, y, f"{y} bottom"]) == [("0.1", 0.75, 0.25), ("0.28", 0.75, 0.25)]
    fig = Figure()
    grouped, across, histogram = fig.subplots(1, 3)
    for j, color in enumerate(["C0", "C2"]):  # B2's intervals: bars beside their tick take its name
        grouped.bar(np.arange(2) + (j - 0.5) * 0.3, [1.0 + j, 2.0 + j], width=0.3, color=color)
    grouped.set_xticks([0, 1], ["0→1k", "1k→\n2k"])
    grouped.legend(handles=[Patch(color="C0", label="EE drop"), Patch(color="C2", label="SA drop")])
    grouped.set(xlabel="interval", ylabel="nats")
    across.barh([0, 1], [3.0, 4.0], label="models")
    across.set_yticks([0, 1], ["d16", "d40"])
    across.set(xlabel="CE (nats)")
    histogram.hist([0.5, 1.5, 1.6, 3.5], bins=[0, 1, 2, 3, 4], label="ranks")
    histogram.set(xlabel="rank", ylabel="targets")
    frame = readout.figure_data(fig)
    assert rows_of(frame, "panel 1", "EE drop", ["interval", "nats"]) == [("0→1k", 1.0), ("1k→ 2k", 2.0)]
    assert rows_of(frame, "panel 1", "SA drop", ["interval", "nats"]) == [("0→1k", 2.0), ("1k→ 2k", 3.0)]
    assert rows_of(frame, "panel 2", "models", ["y", "CE (nats)"]) == [("d16", 3.0), ("d40", 4.0)]
    assert rows_of(frame, "panel 3", "ranks", ["rank", "targets"]) == [(0.5, 1.0), (1.5, 2.0), (2.5, 0.0),
                                                                      (3.5, 1.0)]


def test_figure_data_fill_between_bands_with_gaps():
    fig = Figure()
    ax, sideways = fig.subplots(1, 2)
    ax.semilogx([1.0, 10.0, 100.0], [2.0, 3.0, 4.0], color="C0", label="CE")
    ax.fill_between([1.0, 10.0, 100.0, 1000.0], [1.0, np.nan, 3.0, 3.5], [3.0, np.nan, 5.0, 4.5], color="C0",
                    alpha=0.2)
    ax.set(xlabel="targets", ylabel="CE (nats)")
    ax.legend()
    sideways.fill_betweenx([0.0, 1.0], [2.0, 2.5], [1.0, 3.0])
    sideways.set(xlabel="x", ylabel="y")
    frame = readout.figure_data(fig)
    assert rows_of(frame, "panel 1", "CE", ["targets", "CE (nats)"]) == [(1.0, 2.0), (10.0, 3.0), (100.0, 4.0)]
    assert rows_of(frame, "panel 1", "CE (band)", ["targets", "CE (nats) low", "CE (nats) high"]) == [
        (1.0, 1.0, 3.0), (100.0, 3.0, 5.0), (1000.0, 3.5, 4.5)], "the NaN is a gap, not a row"
    assert rows_of(frame, "panel 2", "band 1", ["y", "x low", "x high"]) == [(0.0, 1.0, 2.0), (1.0, 2.5, 3.0)]


def test_figure_data_maps_counts_and_contours(model_set):
    runs = [a1_run(model_set.families[0].name, "d16"), a1_run(None, "SmolLM2", seed=1)]
    fig = plots.rank_probability_panels(model_set, runs, np.array([[0.09, 0.11]]), figure=Figure())
    frame = readout.figure_data(fig)
    assert list(frame.columns[:5]) == ["panel", "series", "probability p(t)", "rank R (ge)", "targets"]
    for run, ax in zip(runs, fig.axes):
        cells = frame[(frame["panel"] == (run.name if run.family is None else f"{run.family}: {run.name}"))
                      & (frame["series"] == "map 1")]
        counts = ax.collections[0].get_array()
        assert len(cells) == counts.count() and cells["targets"].sum() == counts.sum() > 190, "every non-empty cell"
        assert (cells["targets"] > 0).all()
        assert len(cells) == len(set(zip(cells["probability p(t)"], cells["rank R (ge)"])))
        rec = run.records  # a target's cell: its p(t) and rank lie within the cell around the centre
        p, rank = np.exp(rec.logp[0]), rec.gt[0] + 1
        ratio = np.abs(np.log(cells["probability p(t)"] / p)) + np.abs(np.log(cells["rank R (ge)"] / rank))
        assert ratio.min() < 0.5
    assert rows_of(frame, "SmolLM2", "probability bands", ["probability p(t) low", "probability p(t) high"]) == [
        (0.09, 0.11)], "the shaded band, named by the legend in the spare panel"
    bound = frame[(frame["panel"] == "SmolLM2") & (frame["series"] == "R = 1/p(t): no target above")]
    assert len(bound) == 60
    # A5's error maps: one colour bar, on an inset of the spare panel, keys them all
    mus, sigmas = np.array([0.0, 1.0, 2.0]), np.array([1.0, 2.0])
    errors = np.array([[np.nan, 1e-3, 1e-2], [1e-1, 1.0, 1e-4]])
    fig, axes = plots.panels(1, 3, 2.0, figure=Figure(), sharey=True)
    for ax in axes[0, :2]:
        mesh = plots.error_map(ax, mus, sigmas, errors, 0.05)
    plots.label_bottom(axes, 2, r"$\mu$")
    axes[0, 0].set_ylabel(r"$\sigma$")
    key = axes[0, 2]
    key.legend(handles=[Line2D([], [], color="tab:cyan", lw=1, label="|error| = 0.05")])
    fig.colorbar(mesh, cax=key.inset_axes([0.05, 0.1, 0.9, 0.1]), orientation="horizontal", label="log10 |error|")
    frame = readout.figure_data(fig)
    assert list(frame.columns) == ["panel", "series", "μ", "σ", "log10 |error|"]
    cells = rows_of(frame, "panel 2", "map 1", ["μ", "σ", "log10 |error|"])
    assert cells == [(1.0, 1.0, pytest.approx(-3)), (2.0, 1.0, pytest.approx(-2)), (0.0, 2.0, pytest.approx(-1)),
                     (1.0, 2.0, pytest.approx(0)), (2.0, 2.0, pytest.approx(-4))], "the NaN cell left out"
    contour = frame[(frame["panel"] == "panel 1") & (frame["series"] == "|error| = 0.05")]
    assert len(contour) > 0, "the contour's line, named by the key's legend"
    # hist2d without a colour bar: counts
    fig = Figure()
    ax = fig.subplots()
    ax.hist2d([0.5, 0.5, 1.5], [0.5, 0.5, 0.5], bins=[[0, 1, 2], [0, 1, 2]])
    assert rows_of(readout.figure_data(fig), "panel 1", "map 1", ["x", "y", "count"]) == [(0.5, 0.5, 2.0),
                                                                                       (1.5, 0.5, 1.0)]
    fig = Figure()
    ax = fig.subplots()
    ax.hexbin([0.0, 0.0, 10.0], [0.0, 0.0, 10.0], gridsize=2, label="targets")
    hexagons = readout.figure_data(fig)
    assert sorted(hexagons["count"]) == [1.0, 2.0] and set(hexagons["series"]) == {"targets"}, "empty ones left out"


def test_figure_data_images_by_tick_label_and_legend_colour():
    from rankscale.book import scorecard

    grid = pd.DataFrame([["holds", "fails"], ["fails", "holds"]], index=pd.Index(["A2.1", "B1.1"], name="key"),
                        columns=pd.MultiIndex.from_tuples([("pydocs", "NeoX"), ("pydocs", "Llama")]))
    frame = readout.figure_data(scorecard.draw_grid(grid, {"A2.1": "holds", "B1.1": "partly"}, figure=Figure()))
    cells = frame[frame["series"] == "map 1"]
    assert list(zip(cells["x"], cells["y"], cells["value"])) == [
        ("NeoX", "A2.1", "✓ holds"), ("Llama", "A2.1", "✗ fails"), ("NeoX", "B1.1", "✗ fails"),
        ("Llama", "B1.1", "✓ holds")], "cells named by their ticks, outcomes by the legend's colours"
    fig = Figure()
    ax = fig.subplots()
    image = ax.imshow(np.ma.masked_invalid([[1.0, 2.0], [np.nan, 4.0]]), extent=(0, 4, 0, 2), origin="lower")
    fig.colorbar(image, ax=ax, label="nats")
    assert rows_of(readout.figure_data(fig), "panel 1", "map 1", ["x", "y", "nats"]) == [
        (1.0, 0.5, 1.0), (3.0, 0.5, 2.0), (3.0, 1.5, 4.0)]


def test_figure_data_reference_lines_and_spans():
    fig = Figure()
    ax = fig.subplots()
    ax.plot([1.0, 2.0], [0.5, 0.7], color="C0")
    ax.axhline(1 / 4096, color="grey", ls="--")
    ax.axvline(1.5, color="k", label="seeded sizes")
    ax.axvspan(1.2, 1.4, color="tab:red", alpha=0.25)
    ax.set(xlabel="size", ylabel="p_e")
    plots.legend_below(fig, [Line2D([], [], color="grey", ls="--", label="uniform $1/V$")])
    frame = readout.figure_data(fig)
    assert rows_of(frame, "panel 1", "uniform 1/V", ["size", "p_e"])[0][1] == 1 / 4096
    assert np.isnan(rows_of(frame, "panel 1", "uniform 1/V", ["size", "p_e"])[0][0])
    assert rows_of(frame, "panel 1", "seeded sizes", ["size"]) == [(1.5,)]
    assert rows_of(frame, "panel 1", "shaded span 1", ["size low", "size high"]) == [(1.2, 1.4)]
    assert rows_of(frame, "panel 1", "line 1", ["size", "p_e"]) == [(1.0, 0.5), (2.0, 0.7)]
    fig = Figure()
    ax = fig.subplots()
    ax.axhline(0.0)
    assert rows_of(readout.figure_data(fig), "panel 1", "reference line", ["y"]) == [(0.0,)]


def test_figure_data_rank_distribution_and_step_lines_named_by_their_legends(model_set):
    from rankscale.analysis import rank_models

    rank = np.minimum(np.ceil(np.random.default_rng(0).lognormal(1.0, 1.5, 3000)), 200).astype(int)
    fitted = rank_models.fit_rank_models(rank, 200)
    fig, ((ax, other),) = plots.panels(1, 2, 2.4, figure=Figure())
    plots.rank_distribution(ax, fitted, 20, plots.family_style(model_set, "NeoX ladder"), "NeoX ladder: d16")
    labels = {"powerlaw": "authors' fit", "1..inf": "eq. 10", "1..V": "eq. 10 over 1..V"}
    plots.step_lines(other, model_set, [("NeoX ladder", "d16", [0, 10], [2.0, 1.0]),
                                        ("Llama ladder", "d16", [0, 10], [2.5, 1.5])])
    other.set(xlabel="step", ylabel="CE")
    plots.legend_below(fig, plots.family_handles(model_set, ["NeoX ladder"], ls="none")
                       + plots.rank_fit_handles(labels))
    frame = readout.figure_data(fig)
    series = frame[frame["panel"] == "NeoX ladder: d16"].groupby("series", sort=False).size()
    assert series.to_dict() == {"NeoX ladder": len(ax.lines[0].get_xdata()), "authors' fit": 200, "eq. 10": 200,
                                "eq. 10 over 1..V": 200, "power law over 1..V": 200}
    assert rows_of(frame, "panel 2", "Llama ladder: d16", ["step", "CE"]) == [(0, 2.5), (10, 1.5)], "own labels"


def test_figure_data_tells_apart_what_one_legend_entry_names():
    fig = Figure()
    ax = fig.subplots()
    for ls in ("-", "--"):  # A3: a family's colour and marker, a corpus's line style
        ax.plot([1.0, 2.0], [1.0, 2.0], ls=ls, color="C0", marker="o")
    ax.plot([1.0], [3.0], color="C1")  # a colour no entry has
    ax.plot([2.0], [3.0], color="C2")
    ax.plot([2.0], [4.0], color="C2", marker="x", ls="none")  # C2 twice in the legend: no one name
    ax.legend(handles=[Line2D([], [], color="C0", marker="o", label="NeoX"),
                       Line2D([], [], color="C2", label="a"), Line2D([], [], color="C2", ls=":", label="b")])
    assert list(dict.fromkeys(readout.figure_data(fig)["series"])) == [
        "NeoX (line)", "NeoX (dashed line)", "line 3", "a", "points 1"]


def test_show_puts_the_figures_data_and_alt_text_into_the_output_metadata(monkeypatch, model_set):
    import json

    import matplotlib
    from IPython.display import Image

    def figure():
        fig, ((sizes, bands),) = plots.corpus_panels(["pydocs", "stdlib"], 2.5)
        plots.size_plot(sizes, model_set, "NeoX ladder", [1e3, 1e4, 1e5], [3.0, 2.5, np.inf])  # inf: not drawn
        sizes.axhline(2.0, label="$\\log V$")
        sizes.set_ylabel(r"$-\log \mathrm{RBP}_1$")
        plots.size_axes(sizes)
        bands.bar(["a", "b", "c"], [np.nan, 1.0, 0.5], color="C3")
        bands.set(xlabel="band", ylabel="share")
        plots.legend_below(fig, plots.family_handles(model_set, ["NeoX ladder"], ls="none"))
        return fig

    fig = figure()
    expected, alt = readout.figure_data(fig), readout.describe(fig)
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *args, **kwargs: shown.append((args, kwargs)))
    with matplotlib.rc_context(plots.STYLE):  # the book's text size: no warning
        plots.show(figure())
    ((image,), kwargs), = shown
    assert isinstance(image, Image) and set(kwargs) == {"metadata"}
    meta = kwargs["metadata"][readout.FIGURE_KEY]
    json.dumps(meta, allow_nan=False)  # JSON-safe: no NaN, no numpy
    assert meta["alt"] == alt and meta["columns"] == list(expected.columns)
    assert all(type(v) in (str, float, int, type(None)) for row in meta["rows"] for v in row)
    pd.testing.assert_frame_equal(readout.figure_table(json.loads(json.dumps(meta))), expected)
    assert list(expected.columns) == ["panel", "series", plots.SIZE_LABEL, "-log RBP_1", "band", "share"]
    assert rows_of(expected, "pydocs", "log V", ["-log RBP_1"]) == [(2.0,)]
    assert rows_of(expected, "pydocs", "NeoX ladder", [plots.SIZE_LABEL, "-log RBP_1"]) == [(1e3, 3.0), (1e4, 2.5)]
    assert rows_of(expected, "stdlib", "bars 1", ["band", "share"]) == [("b", 1.0), ("c", 0.5)], "a NaN bar is none"
    assert alt == ("Figure of 2 panels: pydocs plots -log RBP_1 (2 to 3, log scale) against non-embedding parameters "
                   "(1e3 to 1e4, log scale); stdlib plots share (0.5 to 1) against band (b and c). 3 series: NeoX "
                   "ladder, log V and 1 more.")


def test_describe_names_the_panels_axes_and_series_in_plain_text(model_set):
    from rankscale.analysis.fit import fit_power_law

    families = [family.name for family in model_set.families]
    sizes = np.array([1.2e5, 1e6, 3.4e7])
    curves = {corpus: [(family, sizes, [(k, 3.0 * sizes ** -0.1 / k, fit_power_law(sizes, 3.0 * sizes ** -0.1 / k))
                                        for k in (1, 10, 100)]) for family in families]
              for corpus in ("pydocs", "stdlib")}
    fig = plots.size_lines(model_set, families, curves, "moderate $k$", figure=Figure())
    alt = readout.describe(fig)
    assert alt.startswith("Figure 'moderate k' of 2 panels (pydocs and stdlib); each plots -log RBP_k (ge) (")
    assert "against non-embedding parameters S (1.2e5 to 3.4e7, log scale)" in alt
    assert "k=1: slope -0.100" in alt and " more." in alt, "a few series, then how many more"
    assert "$" not in alt and "\\" not in alt and len(alt) <= readout.ALT_CHARS
    fig = Figure()
    left, right = fig.subplots(1, 2)
    left.plot([1, 2], [3, 4], label="EE")
    left.set(title="fit quality", xlabel="$k$ / V", ylabel="$R^2$")
    right.bar([1, 2], [0.5, 0.7])
    right.set(title="shares", xlabel="model", ylabel="share (%)")
    alt = readout.describe(fig, caption="Left: the $R^2$ of each fit. Right: shares, in {numref}`fig-b4`.")
    assert alt.startswith("Left: the R^2 of each fit. Figure of 2 panels: fit quality plots R^2 (3 to 4) against "
                          "k / V (1 to 2); shares plots share (%)")
    assert "png" not in alt and "$" not in alt
    many = Figure()
    axes = many.subplots(3, 4)
    for i, ax in enumerate(axes.flat):
        ax.plot([1, 2], [1, 2], label="a fairly long series name that goes on " + str(i))
        ax.set(title=f"a long panel title number {i}", xlabel="the quantity on x", ylabel="the quantity on y")
    alt = readout.describe(many, caption="A very long caption " + "that keeps going " * 40 + ".")
    assert len(alt) <= readout.ALT_CHARS and "12 panels" in alt


def test_a_long_curve_is_given_at_curve_points_and_data_points_whole():
    fig = Figure()
    ax = fig.subplots()
    ranks = np.arange(1, 4097, dtype=float)
    ax.loglog(ranks, 1 / ranks, label="fit")  # a fit drawn at every rank of a vocabulary
    ax.plot(ranks[::2], 1 / ranks[::2], "o", label="measured")  # 2,048 points: data, all of them
    ax.set(xlabel="rank", ylabel="share")
    frame = readout.figure_data(fig)
    fit = frame[frame["series"] == "fit"]
    assert len(fit) <= readout.CURVE_POINTS and fit["rank"].iloc[[0, -1]].tolist() == [1.0, 4096.0]
    assert np.allclose(fit["share"], 1 / fit["rank"])  # points of the curve, not an approximation of it
    assert len(frame[frame["series"] == "measured"]) == 2048

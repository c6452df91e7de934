"""The plotting steps and text helpers the chapters share (rankscale.book.plots): each draws what
the chapters drew before it moved there."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from rankscale.book import plots
from rankscale.sets import get


@pytest.fixture(scope="module")
def model_set():
    return get("tiny")


def test_family_handles_one_per_family_in_its_look(model_set):
    families = [family.name for family in model_set.families]
    handles = plots.family_handles(model_set, families, ls="none")
    assert [h.get_label() for h in handles] == families
    for handle, family in zip(handles, families):
        look = plots.family_style(model_set, family)
        assert handle.get_color() == look["color"]
        assert handle.get_marker() == look["marker"]
        assert handle.get_linestyle() == "None"
    assert len({h.get_color() for h in handles}) == len(families)  # families tell apart


def test_family_handles_reference_labels_and_overrides(model_set):
    family = model_set.families[0].name
    ref, line = plots.family_handles(model_set, [None, family], ["reference model", "a line"], markersize=12)
    assert (ref.get_label(), ref.get_color(), ref.get_marker(), ref.get_markersize()) == \
        ("reference model", "black", "*", 12)
    assert line.get_label() == "a line" and line.get_linestyle() == "-"
    bare = plots.family_handles(model_set, [family], marker=None)[0]  # colour alone, as A4's independence figure
    assert bare.get_marker() == "None" and bare.get_color() == plots.family_style(model_set, family)["color"]
    with pytest.raises(ValueError):
        plots.family_handles(model_set, [family], ["one", "two"])


def test_size_axes_log_scale_label_under_the_bottom_row():
    axes = Figure().subplots(2, 3, squeeze=False)
    plots.size_axes(axes, "S")
    for ax in axes.flat:
        assert ax.get_xscale() == "log"
        assert isinstance(ax.xaxis.get_minor_formatter(), NullFormatter)
    assert [ax.get_xlabel() for ax in axes[-1]] == ["", "non-embedding parameters $S$", ""]  # once, in the middle
    assert [ax.get_xlabel() for ax in axes[0]] == [""] * 3


def test_size_axes_one_panel_or_a_row_and_after_size_plot(model_set):
    ax = Figure().subplots()
    plots.size_plot(ax, model_set, model_set.families[0].name, [1e3, 1e4, 1e5], [3.0, 2.0, 1.5])
    plots.size_axes(ax)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_xlabel() == plots.SIZE_LABEL == "non-embedding parameters"
    assert isinstance(ax.xaxis.get_minor_formatter(), NullFormatter)
    row = Figure().subplots(1, 2)
    plots.size_axes(row)
    assert [a.get_xlabel() for a in row] == ["non-embedding parameters"] * 2  # two panels hold it each


def test_corpus_panels_one_column_per_corpus_at_the_books_width():
    corpora = ["pydocs", "stdlib", "humaneval"]
    fig, axes = plots.corpus_panels(corpora, 3.4, title="{corpus}: CE", figure=Figure())
    assert axes.shape == (1, 3)
    assert fig.get_size_inches().tolist() == [plots.WIDTH, 3.4]
    assert [ax.get_title() for ax in axes[0]] == ["pydocs: CE", "stdlib: CE", "humaneval: CE"]


def test_corpus_panels_rows_shared_axes_and_no_title():
    fig, axes = plots.corpus_panels(["pydocs"], 2.8, rows=2, title=None, sharey="row", figure=Figure())
    assert axes.shape == (2, 1)  # still two-dimensional with one corpus
    assert fig.get_size_inches().tolist() == [plots.WIDTH, 2.8 * 2]
    assert [ax.get_title() for ax in axes.flat] == ["", ""]
    fig, axes = plots.corpus_panels(["a", "b"], 3.0, figure=Figure(), sharey=True)
    assert axes[0, 0].get_shared_y_axes().joined(axes[0, 0], axes[0, 1])
    assert [ax.get_title() for ax in axes[0]] == ["a", "b"]


def test_panel_blocks_wrap_each_items_panels_and_hide_the_spare_ones():
    fig, axes, blocks = plots.panel_blocks([3, 2], 2.0, figure=Figure(), sharey="row")
    assert axes.shape == (2, 3) and fig.get_size_inches().tolist() == [plots.WIDTH, 4.0]
    assert [[ax.get_visible() for ax in block.flat] for block in blocks] == [[True] * 3, [True, True, False]]
    fig, axes, blocks = plots.panel_blocks([4, 4, 1], 2.0, figure=Figure())  # four: two rows of two
    assert axes.shape == (6, 2) and [block.shape for block in blocks] == [(2, 2)] * 3
    assert blocks[1][1, 0] is axes[3, 0]  # blocks are the grid's rows, in order
    assert sum(ax.get_visible() for ax in blocks[2].flat) == 1
    fig, axes, blocks = plots.panel_blocks([7], 2.0, figure=Figure())  # seven: three rows of three
    assert axes.shape == (3, 3) and sum(ax.get_visible() for ax in axes.flat) == 7


def book_figure(inches: float, pt: float):
    import matplotlib

    with matplotlib.rc_context(plots.STYLE):
        fig, axes = plots.panels(1, 2, 2.5)
    fig.set_size_inches(inches, 2.5)
    axes[0, 0].set_title("title", fontsize=pt)
    axes[0, 1].tick_params(labelsize=pt)
    return fig


def test_text_sizes_sees_every_drawn_text_and_only_those():
    fig = Figure()
    ax = fig.subplots()
    ax.plot([1, 10], [1, 2])
    ax.set(xlabel="size", ylabel="CE")
    ax.legend(["a family"], fontsize=7)
    ax.annotate("a point", (5, 1.5), fontsize=5.5)
    ax.set_title("")  # empty: not drawn
    ax.text(2, 1.2, "off", fontsize=3, visible=False)
    sizes = plots.text_sizes(fig)
    assert min(sizes) == 5.5 and 7 in sizes and 3 not in sizes
    assert sizes.count(7) == 1  # one legend entry


def test_show_warns_where_the_column_would_shrink_the_text(monkeypatch):
    import PIL.Image

    shown = []
    monkeypatch.setattr("IPython.display.display", lambda image: shown.append(image))
    with pytest.warns(UserWarning, match=r"smallest text \(12 pt\) reads at [0-9.]+ px"):
        plots.show(book_figure(16.0, 12))  # 1,600 px wide: halved in the column
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plots.show(book_figure(plots.WIDTH, 12))  # the book's width: shown at its own size
        with pytest.raises(UserWarning, match="10 pt"):
            plots.show(book_figure(plots.WIDTH, 10))
    image = PIL.Image.open(io.BytesIO(shown[1].data))
    assert image.info[plots.TEXT_KEY] == "12" and round(image.info["dpi"][0]) == plots.DPI
    assert plots.displayed_text_px(12, plots.DPI, image.width) >= plots.BODY_PX


def test_rank_distribution_draws_the_histogram_three_lognormals_and_the_power_law(model_set):
    from rankscale.analysis import rank_models

    rank = np.minimum(np.ceil(np.random.default_rng(0).lognormal(1.0, 1.5, 3000)), 200).astype(int)
    fitted = rank_models.fit_rank_models(rank, 200)
    fig, ((ax,),) = plots.panels(1, 1, 2.4)
    plots.rank_distribution(ax, fitted, 20, plots.family_style(model_set, "NeoX ladder"), "NeoX ladder: d16")
    points, *lognormals, power_law = ax.lines
    assert points.get_color() == "tab:blue" and points.get_linestyle() == "None"
    assert [line.get_linestyle() for line in lognormals] == ["-", "--", ":"], "one line per form, as the legend says"
    assert len(power_law.get_xdata()) == 200 and power_law.get_color() == plots.POWER_LAW_GREY
    np.testing.assert_allclose(lognormals[2].get_ydata(), np.exp(fitted.forms["1..V"].fit.log_pmf()))
    assert f"{fitted.zipf.alpha:.2f}" in ax.texts[0].get_text() and ax.get_title() == "NeoX ladder: d16"
    assert ax.get_xscale() == ax.get_yscale() == "log"


def test_error_map_and_fitted_points(model_set):
    mus, sigmas = np.linspace(-2.0, 2.0, 4), np.linspace(1.0, 3.0, 3)
    errors = np.full((3, 4), 0.01)
    errors[0, 0], errors[2, 3] = np.nan, 0.5
    fig, ((ax,),) = plots.panels(1, 1, 2.4)
    mesh = plots.error_map(ax, mus, sigmas, errors, 0.05)
    shown = mesh.get_array()
    assert shown.mask.sum() == 1 and shown.max() == pytest.approx(np.log10(0.5)), "log10 |error|, NaN left blank"
    fits = pd.DataFrame({"family": ["NeoX ladder", "reference"], "mu": [0.0, 1.0], "sigma": [2.0, 1.5]})
    plots.fitted_points(ax, model_set, fits, ["NeoX ladder"])
    family, reference = ax.lines
    assert (family.get_markerfacecolor(), family.get_markeredgecolor()) == ("white", "tab:blue")
    assert (list(reference.get_xdata()), reference.get_marker()) == ([1.0], "*")

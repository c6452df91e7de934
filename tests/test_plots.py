"""The plotting steps and text helpers the chapters share (rankscale.book.plots): each draws what
the chapters drew before it moved there."""

from __future__ import annotations

import io
import warnings
from types import SimpleNamespace

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


def a1_run(family, name, n=200, seed=0):
    """A run of ``n`` targets of random probability, ranked within the bound R p(t) <= 1."""
    from rankscale.records.runs import Run

    rng = np.random.default_rng(seed)
    p = rng.uniform(0.005, 0.9, n)
    gt = (rng.uniform(0, 1, n) / p).astype(np.int32)  # below 1 / p(t)
    records = SimpleNamespace(logp=np.log(p).astype(np.float32), gt=gt, ge=gt, manifest=SimpleNamespace(vocab_size=500))
    return Run(family, name, None, 0, 0, records)


def test_rank_probability_panels_one_per_run_titled_in_its_familys_colour(model_set):
    family = model_set.families[0].name
    runs = [a1_run(family, "d16"), a1_run(None, "SmolLM2", seed=1), a1_run(family, "d40", seed=2)]
    fig = plots.rank_probability_panels(model_set, runs, np.array([[0.09, 0.11], [0.25, 0.31]]), figure=Figure())
    axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"][:4]
    assert [ax.get_title() for ax in axes[:3]] == [f"{family}: d16", "SmolLM2", f"{family}: d40"]
    assert axes[0].title.get_color() == plots.family_style(model_set, family)["color"]
    assert axes[1].title.get_color() == "black", "a reference model's title is black"
    assert [ax.get_ylabel() for ax in axes[:3]] == ["rank $R$ (ge)", "", "rank $R$ (ge)"]
    assert not axes[3].axison and axes[3].get_legend() is not None, "the legend takes the spare panel"
    assert len(axes[0].patches) == 2, "one shaded strip per band"


def test_rank_share_bars_stack_the_shares_of_each_band(model_set):
    family = model_set.families[0].name
    bands = pd.DataFrame([{"corpus": corpus, "family": family, "model": "d16", "p(t) near": centre, "targets": n,
                           "rank 1": n // 2, "rank 2+": n - n // 2}
                          for corpus in ("pydocs", "stdlib") for centre, n in ((0.1, 40), (0.28, 0))])
    fig = plots.rank_share_bars(model_set, bands, [(family, "d16")], ["pydocs", "stdlib"], ["rank 1", "rank 2+"],
                                0.1, figure=Figure())
    (row,) = fig.subfigs
    assert row._suptitle.get_text() == f"{family}: d16"
    first = row.axes[0]
    heights = [bar.get_height() for bar in first.patches]
    assert heights == pytest.approx([0.5, 0.0, 0.5, 0.0]), "each group's share of its band; none of an empty band"
    assert [t.get_text() for t in first.texts] == ["40", "0"] and first.get_title() == "pydocs"
    assert first.get_xlabel() == "$p(t)$ within 10% of"


def test_size_lines_one_panel_per_corpus_one_line_per_family_and_setting(model_set):
    from rankscale.analysis.fit import fit_power_law

    family = model_set.families[0].name
    sizes = [1e3, 1e4, 1e5]
    values = {k: np.array([3.0, 2.0, 1.5]) / k for k in (1, 10)}
    curves = {"pydocs": [(family, sizes, [(k, values[k], fit_power_law(sizes, values[k])) for k in (1, 10)])],
              "stdlib": [(family, sizes, [(1, values[1], None)])]}
    fig = plots.size_lines(model_set, [family], curves, "moderate $k$", figure=Figure())
    top, bottom = fig.axes[:2]
    assert [ax.get_title() for ax in (top, bottom)] == ["pydocs", "stdlib"]
    assert fig._suptitle.get_text() == "moderate $k$"
    labels = [t.get_text() for t in top.get_legend().get_texts()]
    assert labels[0].startswith("k=1: slope ") and labels[1].startswith("k=10: slope ")
    assert [t.get_text() for t in bottom.get_legend().get_texts()] == ["k=1: not fittable"]
    assert [line.get_alpha() for line in top.lines[::2]] == pytest.approx([1.0, 0.45]), "later settings lighter"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [family]


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
    monkeypatch.setattr("IPython.display.display", lambda image, **kwargs: shown.append(image))
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

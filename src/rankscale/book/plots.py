"""The chapters' figures: one look per family, and the plotting steps that several chapters share
(a row of panels per corpus, the model-size axis, the families' legend).

Every function draws on axes it is given (or on a figure it makes) and returns nothing it
computed; the numbers come from ``rankscale.analysis``. A family's colour and marker follow its
place in the model set, so a family looks the same in every figure of the book.
"""

from __future__ import annotations

from rankscale.sets.schema import ModelSet

SIZE_LABEL = "non-embedding parameters"  # the model-size axis of every figure against size

# How the book shows a figure. Measured in the built site at a 1400 px wide window: a chapter's
# body text is 16 px and an output image is scaled down to at most 768 px. A figure drawn
# ``WIDTH`` inches wide at ``DPI`` fills the column at its own size, and ``STYLE``'s 12 pt text then
# reads at 12/72 * 100 = 16.7 px, no smaller than the prose around it.
COLUMN_PX = 768
BODY_PX = 16
DPI = 100
WIDTH = 7.6  # inches; the tight bounding box adds 0.1 in on each side
MOST_ACROSS = 3  # panels side by side whose 12 pt text still reads at body size in the column
STYLE = {"figure.dpi": DPI, "savefig.dpi": DPI, "font.size": 12, "axes.titlesize": 12, "axes.labelsize": 12,
         "xtick.labelsize": 12, "ytick.labelsize": 12, "legend.fontsize": 12, "legend.title_fontsize": 12,
         "figure.titlesize": 12, "figure.labelsize": 12, "figure.constrained_layout.use": True,
         "legend.handlelength": 1.5, "legend.borderaxespad": 0.3, "axes.titlepad": 4.0}
TEXT_KEY = "Smallest text (pt)"  # the PNG text chunk that carries a figure's smallest font size


# One colour and marker per family, in the order families appear in a set; references in black.
FAMILY_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
                 "tab:olive", "tab:cyan")


FAMILY_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "h", "*")


def family_style(model_set: ModelSet, family: str | None) -> dict:
    """Matplotlib keywords (``color``, ``marker``) of a family, the same in every chapter.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The chapter's model set; a family's look follows its place in the set.
    family : str or None
        A family of the set; None (a reference model) is black stars.

    Returns
    -------
    dict
        ``{"color": ..., "marker": ...}``.

    Examples
    --------
    >>> from rankscale.sets import get
    >>> family_style(get("tiny"), "Llama ladder"), family_style(get("tiny"), None)
    ({'color': 'tab:orange', 'marker': 's'}, {'color': 'black', 'marker': '*'})
    """
    if family is None:
        return {"color": "black", "marker": "*"}
    names = [f.name for f in model_set.families]
    i = names.index(family) if family in names else len(names)
    return {"color": FAMILY_COLORS[i % len(FAMILY_COLORS)], "marker": FAMILY_MARKERS[i % len(FAMILY_MARKERS)]}


def size_plot(ax, model_set: ModelSet, family: str | None, sizes, values, fitted=None, label: str = "", **style) -> None:
    """Draw one family's points against non-embedding size on log-log axes, with its fit.

    In the family's colour and marker (``family_style``); non-positive values, which a log axis
    cannot show, are left out; the fitted power law is a line over the range of ``sizes``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw on; set to log-log scales.
    model_set : rankscale.sets.schema.ModelSet
        The chapter's model set (for the family's look).
    family : str or None
        The family; None for a reference model.
    sizes, values : array_like of shape (n,)
        Non-embedding parameters and the quantity plotted, one per model.
    fitted : rankscale.analysis.fit.PowerLawFit, optional
        Anything with ``predict(sizes)``; None: points only.
    label, **style
        Legend label of the points; overrides of ``color`` and ``marker``, and ``alpha``.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> from rankscale.sets import get
    >>> size_plot(ax, get("tiny"), "NeoX ladder", [3e3, 3e4, 3e5], [2.0, 0.0, 1.0], label="CE")
    >>> len(ax.lines[0].get_xdata()), ax.get_xscale(), ax.lines[0].get_color()
    (2, 'log', 'tab:blue')
    """
    import numpy as np

    sizes, values = np.asarray(sizes, float), np.asarray(values, float)
    look = {**family_style(model_set, family), **style}
    shown = values > 0
    ax.plot(sizes[shown], values[shown], linestyle="none", label=label, color=look["color"],
            marker=look["marker"], alpha=look.get("alpha", 1.0))
    if fitted is not None:
        grid = np.geomspace(sizes.min(), sizes.max(), 50)
        ax.plot(grid, fitted.predict(grid), "-", color=look["color"], alpha=0.7 * look.get("alpha", 1.0),
                lw=1)
    ax.set(xscale="log", yscale="log")


def size_axes(axes, symbol: str = "") -> None:
    """Make the x axis of every panel the model-size axis: logarithmic, with only its decades
    labelled, and named under the bottom row of panels; under its middle panel only where the row
    holds three or more, whose width the name would overrun.

    Call it after drawing (``size_plot`` sets the log scale again, which resets the ticks).

    Parameters
    ----------
    axes : matplotlib.axes.Axes or array_like of Axes
        One panel, a row of panels, or a grid (rows of panels); only the last row gets the label.
    symbol : str
        The size's symbol in the label, in math mode ("S" gives "non-embedding parameters $S$");
        empty: the label alone.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> axes = Figure().subplots(2, 2, squeeze=False)
    >>> size_axes(axes, "S")
    >>> axes[1, 0].get_xscale(), axes[1, 0].get_xlabel(), axes[0, 0].get_xlabel()
    ('log', 'non-embedding parameters $S$', '')
    >>> row = Figure().subplots(1, 3)
    >>> size_axes(row)
    >>> [ax.get_xlabel() for ax in row]
    ['', 'non-embedding parameters', '']
    >>> type(axes[0, 1].xaxis.get_minor_formatter()).__name__
    'NullFormatter'
    """
    import numpy as np
    from matplotlib.ticker import NullFormatter

    grid = np.atleast_2d(np.asarray(axes, dtype=object))
    for ax in grid.flat:
        if ax.get_xscale() != "log":  # already log after size_plot: left as it is
            ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
    last = grid[-1]
    for ax in last if len(last) < 3 else [last[len(last) // 2]]:
        ax.set_xlabel(SIZE_LABEL + (f" ${symbol}$" if symbol else ""))


def plain_log_ticks(ax) -> None:
    """Label a log y axis with plain numbers (0.4, not 4×10⁻¹) that do not collide at the book's
    12 pt: over less than a decade, where no power of ten falls, at a few evenly spaced values;
    over less than two, at 1, 2 and 5 times each power of ten (matplotlib labels 2, 3, 4 and 6
    times there); wider axes keep their decades. Call it once the axis has its range.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> _ = ax.set(yscale="log", ylim=(1.5, 1.85))
    >>> plain_log_ticks(ax)
    >>> [ax.yaxis.get_major_formatter()(v) for v in ax.get_yticks() if 1.5 <= v <= 1.85]
    ['1.5', '1.6', '1.7', '1.8']
    >>> _ = ax.set_ylim(0.03, 0.5)
    >>> plain_log_ticks(ax)
    >>> [ax.yaxis.get_major_formatter()(v) for v in ax.get_yticks() if 0.03 <= v <= 0.5]
    ['0.05', '0.1', '0.2', '0.5']
    """
    from matplotlib.ticker import LogLocator, MaxNLocator, NullFormatter, StrMethodFormatter

    low, high = ax.get_ylim()
    if high / low < 10:
        ax.yaxis.set_major_locator(MaxNLocator(4, steps=[1, 2, 5, 10]))
    elif high / low < 100:
        ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def plain_minor_labels(minor_thresholds: tuple[float, float] = (1, 0.5)):
    """A formatter for the minor ticks of a log axis: matplotlib's choice of which to label (every one on a
    narrow axis, a few on a wider one, none over decades, ``LogFormatter``'s ``minor_thresholds``), written as
    plain numbers ("0.4", not "4×10⁻¹").

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> _ = ax.set(yscale="log", ylim=(0.3, 0.5))
    >>> formatter = plain_minor_labels()
    >>> ax.yaxis.set_minor_formatter(formatter)
    >>> formatter.set_locs(ax.yaxis.get_minorticklocs())
    >>> formatter(0.4)
    '0.4'
    """
    from matplotlib.ticker import LogFormatter

    class PlainMinorLabels(LogFormatter):
        def __call__(self, x, pos=None):
            return f"{x:.3g}" if super().__call__(x, pos) else ""

    return PlainMinorLabels(labelOnlyBase=False, minor_thresholds=minor_thresholds)


def legend_above_data(ax, share: float) -> None:
    """Raise the top of a log y axis so that the data fill its lower ``1 - share`` only, and put the panel's legend,
    compact, in the room left above them, where it covers none.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> _ = ax.plot([1, 2], [1.0, 10.0], label="x")
    >>> _ = ax.set(yscale="log", ylim=(1.0, 10.0))
    >>> legend_above_data(ax, 0.5)
    >>> [float(y) for y in ax.get_ylim()], ax.get_legend() is not None
    ([1.0, 100.0], True)
    """
    low, high = ax.get_ylim()
    ax.set_ylim(low, high * (high / low) ** (share / (1 - share)))
    ax.legend(loc="upper center", borderaxespad=0.2, borderpad=0.3, labelspacing=0.2, handlelength=1.0,
              handletextpad=0.4)


def fit_label(fitted, n_sizes: int, min_sizes: int) -> str:
    """A size fit's entry in a panel's legend: its exponent and R², or why it has no R² (short, to fit a panel).

    Parameters
    ----------
    fitted : rankscale.analysis.fit.PowerLawFit or None
        None where the group has one size.
    n_sizes : int
        The group's distinct sizes.
    min_sizes : int
        Sizes an R² needs to say anything (a line through two points fits them exactly).

    Examples
    --------
    >>> from rankscale.analysis.fit import PowerLawFit
    >>> f = PowerLawFit(-0.1234, 0.0, 0.987, 3)
    >>> fit_label(f, 3, 3), fit_label(f, 2, 3), fit_label(None, 1, 3)
    ('-0.123, R² 0.99', '-0.123 (2 sizes)', 'one size, no fit')
    """
    if fitted is None:
        return "one size, no fit"
    if n_sizes < min_sizes:
        return f"{fitted.slope:+.3f} ({n_sizes} sizes)"
    return f"{fitted.slope:+.3f}, R² {fitted.r2:.2f}"


def panels(rows: int, cols: int, height: float, figure=None, **subplots):
    """A figure of the book's width (``WIDTH``) with a grid of panels.

    Parameters
    ----------
    rows, cols : int
        Panels down and across; the book's text stays legible with up to ``MOST_ACROSS`` across.
    height : float
        Inches per row of panels.
    figure : matplotlib.figure.Figure, optional
        Draw on this figure (resized); None: a new pyplot figure, for ``show``.
    **subplots
        Passed on to ``Figure.subplots`` (``sharex``, ``sharey``, ...).

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : numpy.ndarray of Axes, shape (rows, cols)
        Always two-dimensional.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig, axes = panels(2, 3, 2.5, figure=Figure())
    >>> axes.shape, fig.get_size_inches().tolist()
    ((2, 3), [7.6, 5.0])
    """
    figsize = (WIDTH, height * rows)
    if figure is None:
        import matplotlib.pyplot as plt

        figure = plt.figure(figsize=figsize)
    else:
        figure.set_size_inches(figsize)
    return figure, figure.subplots(rows, cols, squeeze=False, **subplots)


def panel_blocks(counts: list[int], height: float, figure=None, **subplots):
    """A figure of the book's width (``panels``) in blocks stacked down, one per item (a model, a
    family), each holding that item's panels in rows of at most ``MOST_ACROSS``: four go two by two
    rather than four across. A block's panels beyond its count are hidden.

    Parameters
    ----------
    counts : list of int
        Panels in each block, top to bottom; the largest sets every block's rows and columns.
    height, figure, **subplots
        As in ``panels``.

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : numpy.ndarray of Axes, shape (rows, across)
        The whole grid.
    blocks : list of numpy.ndarray of Axes, each of shape (rows per block, across)
        One per count: ``block.flat`` in reading order, ``block[:, 0]`` the first panel of each row.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig, axes, blocks = panel_blocks([4, 3], 2.0, figure=Figure())
    >>> axes.shape, [block.shape for block in blocks], [ax.get_visible() for ax in blocks[1].flat]
    ((4, 2), [(2, 2), (2, 2)], [True, True, True, False])
    >>> panel_blocks([3, 3, 3], 2.0, figure=Figure())[1].shape
    (3, 3)
    """
    rows_per_block = -(-max(counts) // MOST_ACROSS)
    across = -(-max(counts) // rows_per_block)
    fig, axes = panels(len(counts) * rows_per_block, across, height, figure=figure, **subplots)
    blocks = list(axes.reshape(len(counts), rows_per_block, across))
    for block, count in zip(blocks, counts, strict=True):
        for ax in block.flat[count:]:
            ax.set_visible(False)
    return fig, axes, blocks


def model_blocks(models: list[tuple[str, str]], items: list[list], height: float, quantity: str, xlabel: str = "",
                 figure=None, **subplots):
    """A block of panels per model (``panel_blocks``), one panel per item of that model (a corpus, a training
    step), the model named on the left of each of its rows (its group over its name, wrapped to stay within the
    row); each item named above its panel in the first block (in every block where a model takes more than one
    row), ``xlabel`` under the bottom panels and ``quantity`` along the figure's side.

    Parameters
    ----------
    models : list of (str, str)
        Each model's group (its family, or "reference") and name, top to bottom.
    items : list of list
        Each model's panels' items, in reading order.
    height, figure, **subplots
        As in ``panels`` (``sharey="row"``, ...).

    Returns
    -------
    fig : matplotlib.figure.Figure
    drawn : list of (Axes, int, object)
        Each panel with its model's place in ``models`` and its item, model by model.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig, drawn = model_blocks([("NeoX", "d16"), ("reference", "SmolLM")], [["pydocs", "stdlib"]] * 2, 2.0,
    ...                           "nats", figure=Figure())
    >>> [(i, corpus, ax.get_title()) for ax, i, corpus in drawn]
    [(0, 'pydocs', 'pydocs'), (0, 'stdlib', 'stdlib'), (1, 'pydocs', ''), (1, 'stdlib', '')]
    """
    import textwrap

    fig, axes, blocks = panel_blocks([len(each) for each in items], height, figure=figure, **subplots)
    drawn = []
    for i, (block, (group, name), each) in enumerate(zip(blocks, models, items, strict=True)):
        for ax in block[:, 0]:
            ax.set_ylabel(f"{group}\n" + textwrap.fill(name, 22))
        for ax, item in zip(block.flat, each):
            if i == 0 or len(block) > 1:
                ax.set_title(str(item))
            drawn.append((ax, i, item))
    for ax in axes[-1]:
        ax.set_xlabel(xlabel)
    fig.supylabel(quantity)
    return fig, drawn


LINE_STYLES = ("-", "--", ":", "-.")  # the models of one family, told apart in ``step_lines``


def step_lines(ax, model_set: ModelSet, lines) -> None:
    """Models' values over their training checkpoints, against a step axis that is linear up to 1 and logarithmic
    beyond (so that step 0 has a place): colour and marker by family (``family_style``), line style by the
    model's place in its family, each labelled "family: model" for a legend.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    model_set : ModelSet
    lines : iterable of (str, str, array_like, array_like)
        Each model's family, name, steps and values, a family's models together.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from rankscale.sets import get
    >>> ax = Figure().subplots()
    >>> step_lines(ax, get("tiny"), [("NeoX ladder", "d16", [0, 10], [2.0, 1.0]), ("NeoX ladder", "d40", [0, 10],
    ...                                                                          [2.0, 0.5])])
    >>> [(line.get_label(), line.get_linestyle()) for line in ax.get_lines()], ax.get_xscale()
    ([('NeoX ladder: d16', '-'), ('NeoX ladder: d40', '--')], 'symlog')
    """
    seen: dict[str, int] = {}
    for family, name, steps, values in lines:
        i = seen[family] = seen.get(family, -1) + 1
        ax.plot(steps, values, ls=LINE_STYLES[i % len(LINE_STYLES)], ms=4, label=f"{family}: {name}",
                **family_style(model_set, family))
    ax.set_xscale("symlog", linthresh=1)


def short_step(step: int) -> str:
    """A training step as an axis names it: thousands as "10k".

    >>> short_step(128), short_step(10_000), short_step(1500)
    ('128', '10k', '1500')
    """
    return f"{step // 1000}k" if step >= 1000 and step % 1000 == 0 else str(step)

def corpus_panels(corpora: list[str], height: float, rows: int = 1, title: str | None = "{corpus}", figure=None,
                  **subplots):
    """A figure of the book's width with one column of panels per corpus (``panels``).

    Parameters
    ----------
    corpora : list of str
        The corpora, one column each, in order.
    height : float
        Inches per row of panels.
    rows : int
        Rows of panels.
    title : str or None
        Title of each top panel, a format string of ``corpus``; None: no title.
    figure, **subplots
        As in ``panels``.

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : numpy.ndarray of Axes, shape (rows, len(corpora))

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig, axes = corpus_panels(["pydocs", "stdlib"], 3.0, title="{corpus}: CE", figure=Figure())
    >>> axes.shape, [ax.get_title() for ax in axes[0]], fig.get_size_inches().tolist()
    ((1, 2), ['pydocs: CE', 'stdlib: CE'], [7.6, 3.0])
    """
    figure, axes = panels(rows, len(corpora), height, figure=figure, **subplots)
    if title is not None:
        for ax, corpus in zip(axes[0], corpora):
            ax.set_title(title.format(corpus=corpus))
    return figure, axes


def legend_below(fig, handles: list, ncol: int | None = None) -> None:
    """One legend for every panel of a figure, under the panels, where it covers no data.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Drawn with constrained layout (the book's ``STYLE``), which makes room for the legend.
    handles : list of matplotlib artists
        The entries (``family_handles``, or lines with labels).
    ncol : int, optional
        Entries per row; default all in one row.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from matplotlib.lines import Line2D
    >>> fig = Figure(layout="constrained")
    >>> legend_below(fig, [Line2D([], [], label="NeoX"), Line2D([], [], label="Llama")])
    >>> [t.get_text() for t in fig.legends[0].get_texts()], fig.legends[0]._ncols
    (['NeoX', 'Llama'], 2)
    """
    fig.legend(handles=handles, loc="outside lower center", ncol=ncol or len(handles), frameon=False)


def family_handles(model_set: ModelSet, families: list, labels: list[str] | None = None, **line) -> list:
    """Legend entries for families, each in its colour and marker (``family_style``).

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The chapter's model set.
    families : list of str or None
        The families, in legend order; None stands for the reference models (black stars).
    labels : list of str, optional
        One label per family; default the family's name ("reference" for None).
    **line
        Matplotlib ``Line2D`` keywords for every entry (``ls="none"`` for markers alone,
        ``marker=None`` for a line alone, ``markersize``), overriding the family's look.

    Returns
    -------
    list of matplotlib.lines.Line2D
        For ``ax.legend(handles=...)``.

    Examples
    --------
    >>> from rankscale.sets import get
    >>> handles = family_handles(get("tiny"), ["NeoX ladder", "Llama ladder", None], ls="none")
    >>> [(h.get_label(), h.get_color(), h.get_marker(), h.get_linestyle()) for h in handles]
    [('NeoX ladder', 'tab:blue', 'o', 'None'), ('Llama ladder', 'tab:orange', 's', 'None'), ('reference', 'black', '*', 'None')]
    """
    from matplotlib.lines import Line2D

    labels = [family or "reference" for family in families] if labels is None else labels
    return [Line2D([], [], label=label, **{**family_style(model_set, family), **line})
            for family, label in zip(families, labels, strict=True)]


def rank_probability_panels(model_set: ModelSet, runs: list, bands, figure=None):
    """Paper A's Fig. 1 on real predictions (chapter A1): one panel per run, the joint histogram of its targets'
    probability p(t) and rank R (ge ties, eq. 3), with the bound R = 1/p(t) above which no target can lie and the
    probability ``bands`` shaded; two panels across, each with its own colour bar, the legend in a spare panel.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        For each family's colour (a panel's title).
    runs : list of rankscale.records.runs.Run
        The runs shown, one panel each (a reference model's title is black).
    bands : ndarray of shape (bands, 2)
        The lower and upper edges of the probability bands shaded.
    figure : matplotlib.figure.Figure, optional
        As in ``panels``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import numpy as np
    from matplotlib.colors import LogNorm
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import LogLocator

    from rankscale.analysis.metrics import rank_1based

    across = min(2, len(runs))  # two across: each panel has its own colour bar
    fig, axes = panels(-(-len(runs) // across), across, 3.0, figure=figure)
    for ax, run in zip(axes.flat, runs):
        rec = run.records
        prob = np.exp(rec.logp.astype(np.float64))
        x_edges = np.logspace(np.log10(max(prob.min(), 1e-7)), 0, 60)
        y_edges = np.logspace(0, np.log10(run.vocab_size + 1), 50)
        counts, _, _ = np.histogram2d(prob, rank_1based(rec.gt, rec.ge), bins=[x_edges, y_edges])
        mesh = ax.pcolormesh(x_edges, y_edges, np.ma.masked_equal(counts.T, 0), cmap="viridis", norm=LogNorm())
        ax.plot(x_edges, np.minimum(1 / x_edges, run.vocab_size), "k--", lw=1)
        for lo, hi in bands:
            ax.axvspan(lo, hi, color="tab:red", alpha=0.25)
        ax.set(xscale="log", yscale="log", xlabel="probability $p(t)$",
               title=run.name if run.family is None else f"{run.family}: {run.name}")
        ax.xaxis.set_major_locator(LogLocator(numticks=4))
        ax.title.set_color(family_style(model_set, run.family)["color"])
        fig.colorbar(mesh, ax=ax, label="targets")
    for ax in axes[:, 0]:  # only the left column: further right, the label would run into a colour bar's
        ax.set_ylabel("rank $R$ (ge)")
    bound_and_bands = [Line2D([], [], ls="--", color="k", lw=1, label=r"$R = 1/p(t)$: no target above"),
                       Patch(color="tab:red", alpha=0.25, label="probability bands")]
    spare = axes.flat[len(runs):]
    for ax in spare:
        ax.axis("off")
    if len(spare):  # the legend takes an empty panel's place, else it goes under the panels
        spare[0].legend(handles=bound_and_bands, loc="center", frameon=False)
    else:
        legend_below(fig, bound_and_bands)
    return fig


def rank_share_bars(model_set: ModelSet, bands, shown: list[tuple[str, str]], corpora: list[str],
                    groups: list[str], half_width: float, figure=None):
    """How targets of nearly equal probability spread over ranks (chapter A1): one row of panels per model, one
    panel per corpus, a stacked bar per probability band of the shares of ``groups``, each bar headed by its
    count of targets.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        For each family's colour (a row's title).
    bands : pandas.DataFrame
        One row per corpus, model and band (``rankscale.claims.a1.MetricTables.bands``): ``corpus``, ``family``
        ("reference" for a reference model), ``model``, ``p(t) near``, ``targets`` and a count per group.
    shown : list of (str, str)
        The (family, model) of each row, top to bottom.
    corpora : list of str
        One column each.
    groups : list of str
        The rank groups stacked, columns of ``bands``.
    half_width : float
        How wide a band is around its centre, as a fraction (the axis label).
    figure : matplotlib.figure.Figure, optional
        Draw on this figure (resized); None: a new pyplot figure, for ``show``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import numpy as np

    # one subfigure per model, so that its name, too long for a panel, can head its row; the top row is taller by
    # the corpus titles and the bottom row by the axis label, so that every row's panels are as tall
    row_heights = np.full(len(shown), 2.2)
    row_heights[0] += 0.25
    row_heights[-1] += 0.3
    if figure is None:
        import matplotlib.pyplot as plt

        figure = plt.figure(figsize=(WIDTH, row_heights.sum()))
    else:
        figure.set_size_inches((WIDTH, row_heights.sum()))
    model_rows = figure.subfigures(len(shown), 1, squeeze=False, height_ratios=row_heights)[:, 0]
    from matplotlib import colormaps

    colors = colormaps["viridis"](np.linspace(0, 0.9, len(groups)))
    for row_number, (subfig, (family, name)) in enumerate(zip(model_rows, shown)):
        subfig.suptitle(f"{family}: {name}", color=family_style(model_set, None if family == "reference"
                                                                 else family)["color"])
        row_axes = subfig.subplots(1, len(corpora), sharey=True, squeeze=False)[0]
        for ax, corpus in zip(row_axes, corpora):
            rows = bands[(bands["corpus"] == corpus) & (bands["family"] == family) & (bands["model"] == name)]
            shares = rows[list(groups)].div(rows["targets"].where(rows["targets"] > 0), axis=0).fillna(0)
            bottom = np.zeros(len(rows))
            labels = [f"{c:g}" for c in rows["p(t) near"]]
            for group, color in zip(groups, colors):
                ax.bar(labels, shares[group], bottom=bottom, color=color, label=group)
                bottom += shares[group].to_numpy()
            for i, n in enumerate(rows["targets"]):
                ax.text(i, 1.01, f"{n}", ha="center")
            ax.set(ylim=(0, 1.17), yticks=[0, 0.5, 1])
            if row_number == 0:
                ax.set_title(corpus)
            if row_number == len(shown) - 1:
                ax.set_xlabel(f"$p(t)$ within {half_width:.0%} of")
        row_axes[0].set_ylabel("share of targets")
    legend_below(figure, row_axes[0].get_legend_handles_labels()[0])
    return figure


def size_lines(model_set: ModelSet, families: list[str], curves: dict, title: str,
               ylabel: str = r"$-\log \mathrm{RBP}_k$ (ge)", figure=None):
    """One quantity at several settings (chapter A2's k) against size: one panel per corpus, one above the other,
    each family's points and fitted power law per setting (lighter for later settings), each line's slope and R^2
    in a legend beside its panel, the families named under the panels.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        For each family's look.
    families : list of str
        Every family of the set, for the legend under the panels.
    curves : dict of str to list of (str, array_like, list of (int, array_like, PowerLawFit or None))
        Per corpus (a panel each, in order): each family's sizes and, per setting k, the values and their fit
        (None where none could be fitted) (``rankscale.claims.a2.regime_curves``).
    title, ylabel : str
        The figure's title; every panel's label of the quantity.
    figure : matplotlib.figure.Figure, optional
        As in ``panels``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panels(len(curves), 1, 2.3, figure=figure, sharex=True)
    for ax, (corpus, lines) in zip(axes[:, 0], curves.items()):
        for family, sizes, settings in lines:
            for i, (k, values, fitted) in enumerate(settings):
                label = (f"k={k:,}: slope {fitted.slope:.3f}, $R^2$={fitted.r2:.3f}" if fitted
                         else f"k={k:,}: not fittable")
                size_plot(ax, model_set, family, sizes, values, fitted, label=label,
                          alpha=1.0 - 0.55 * i / max(1, len(settings) - 1))
        plain_log_ticks(ax)
        ax.set(title=corpus, ylabel=ylabel)
        ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    size_axes(axes, "S")
    legend_below(fig, family_handles(model_set, families, ls="none"))
    fig.suptitle(title)
    return fig


# How a rank distribution's three fitted lognormals are drawn (``rank_distribution``), by form
# (rankscale.analysis.rank_models.FORMS): the authors' fit solid, eq. 10 as written dashed, eq. 10 over 1..V dotted
LOGNORMAL_LINES = {"powerlaw": "-", "1..inf": "--", "1..V": ":"}
POWER_LAW_GREY = "0.6"  # the power law over 1..V beside them


def rank_distribution(ax, fitted, n_bins: int, look: dict, title: str) -> None:
    """One model's rank histogram (frequencies averaged over logarithmic bins, in ``look``) with its three fitted
    lognormals and its power law over 1..V, whose exponent is written in the corner the distribution leaves empty.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    fitted : rankscale.analysis.rank_models.RankModels
        The model's fits (``rank_models.fit_rank_models``).
    n_bins : int
        Logarithmic bins of the histogram.
    look : dict
        Matplotlib keywords of the points (``family_style``).
    title : str
    """
    import numpy as np

    from rankscale.analysis.rank_models import log_binned_frequency

    ranks = np.arange(1, len(fitted.counts))
    centres, freq = log_binned_frequency(fitted.counts, n_bins)
    ax.plot(centres, freq, linestyle="none", ms=4, **look)
    for form, ls in LOGNORMAL_LINES.items():
        ax.plot(ranks, np.exp(fitted.forms[form].fit.log_pmf()), color="0.15", ls=ls, lw=1)
    ax.plot(ranks, np.exp(fitted.zipf.log_pmf()), color=POWER_LAW_GREY, lw=1)
    ax.text(0.97, 0.95, f"$\\alpha$ = {fitted.zipf.alpha:.2f}", transform=ax.transAxes, ha="right", va="top")
    ax.set(xscale="log", yscale="log", title=title)
    ax.set_ylim(bottom=max(freq.min() / 10, 1e-12))


def rank_fit_handles(labels: dict[str, str]) -> list:
    """Legend entries of the lines ``rank_distribution`` draws: the three lognormals, named by ``labels`` (form ->
    label), and the power law.

    >>> [h.get_label() for h in rank_fit_handles({"powerlaw": "a", "1..inf": "b", "1..V": "c"})]
    ['a', 'b', 'c', 'power law over 1..V']
    """
    from matplotlib.lines import Line2D

    return ([Line2D([], [], color="0.15", ls=ls, lw=1, label=labels[form]) for form, ls in LOGNORMAL_LINES.items()]
            + [Line2D([], [], color=POWER_LAW_GREY, lw=1, label="power law over 1..V")])


def label_bottom(axes, used: int, xlabel: str) -> None:
    """Blank the panels of a grid with shared x axes after the first ``used`` (free for a legend), and label the
    x axis under the lowest panel in use of each column.

    Examples
    --------
    >>> fig, axes = panels(2, 3, 2.0, sharex=True)
    >>> label_bottom(axes, 4, "rank")
    >>> [ax.axison for ax in axes.flat], [ax.get_xlabel() for ax in axes.flat]
    ([True, True, True, True, False, False], ['', 'rank', 'rank', 'rank', '', ''])
    """
    cols = axes.shape[1]
    for i, ax in enumerate(axes.flat):
        if i >= used:
            ax.axis("off")
        elif used <= i + cols:  # nothing under it: shared x axes show tick labels on the bottom row only
            ax.xaxis.set_tick_params(labelbottom=True)
            ax.set_xlabel(xlabel)


def error_map(ax, mus, sigmas, errors, tolerance: float):
    """A map of relative errors over a (mu, sigma) grid: log10 |error| from 1e-6 (light) to 1 (dark), blank where
    the error is undefined (NaN), and a cyan contour where |error| = ``tolerance``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    mus, sigmas : ndarray of shape (m,) and (s,)
    errors : ndarray of shape (s, m)
    tolerance : float

    Returns
    -------
    matplotlib.collections.QuadMesh
        The map, for a colour bar.
    """
    import numpy as np

    log_error = np.ma.masked_invalid(np.log10(np.abs(errors) + 1e-16))
    mesh = ax.pcolormesh(mus, sigmas, log_error, cmap="magma_r", vmin=-6, vmax=0, shading="nearest")
    ax.contour(mus, sigmas, np.ma.masked_invalid(np.abs(errors)), levels=[tolerance], colors="tab:cyan", linewidths=1)
    return mesh


def fitted_points(ax, model_set: ModelSet, fits, families: list[str]) -> None:
    """The (mu, sigma) of fitted lognormals on a map: each family's in white edged in its colour, the reference
    models' (``family`` "reference") as large black stars.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    model_set : rankscale.sets.schema.ModelSet
    fits : pandas.DataFrame
        ``family``, ``mu`` and ``sigma`` of each fit.
    families : list of str
    """
    for family in families:
        sel, look = fits[fits["family"] == family], family_style(model_set, family)
        ax.plot(sel["mu"], sel["sigma"], linestyle="none", marker=look["marker"], mfc="white", mec=look["color"], ms=4)
    refs = fits[fits["family"] == "reference"]
    ax.plot(refs["mu"], refs["sigma"], linestyle="none", mfc="black", mec="white", ms=9,
            marker=family_style(model_set, None)["marker"])


def identity_line(ax, values) -> None:
    """The diagonal y = x over the finite ``values`` (5% margins), both axes set to its range: where a
    prediction plotted against its measurement is right.

    Examples
    --------
    >>> fig, ((ax,),) = panels(1, 1, 2.0)
    >>> identity_line(ax, [[1.0, 2.0], [float("nan"), 4.0]])
    >>> [float(end) for end in ax.get_xlim() + ax.get_ylim()]
    [0.95, 4.2, 0.95, 4.2]
    """
    import numpy as np

    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    lims = [values.min() * 0.95, values.max() * 1.05]
    ax.plot(lims, lims, "k-", lw=0.7)
    ax.set(xlim=lims, ylim=lims)


def use_book_style() -> None:
    """Set matplotlib's defaults to the book's (``STYLE``): every text 12 pt, figures at 100 dpi,
    constrained layout. ``rankscale.book.chapter.open_chapter`` calls it for every chapter."""
    import matplotlib

    matplotlib.rcParams.update(STYLE)


def text_sizes(fig) -> list[float]:
    """The font size, in points, of every text a figure draws: titles, labels, tick labels that
    fall inside their axis, legends and annotations, but not empty or hidden texts.

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    list of float
        One entry per text drawn, in drawing order.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> ax = fig.subplots()
    >>> _ = ax.set_title("a title", fontsize=14), ax.set_xticks([0, 2], ["0", "2"], fontsize=7), ax.set_xlim(0, 1)
    >>> _ = ax.set_yticks([]), ax.text(0.5, 0.5, "", fontsize=3), ax.text(0.5, 0.5, "hidden", fontsize=4, visible=False)
    >>> sorted(text_sizes(fig))
    [7.0, 14.0]
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    sizes, draw = [], Text.draw

    def recording(text, renderer):  # Text.draw itself skips hidden and empty texts
        if text.get_visible() and text.get_text():
            sizes.append(float(text.get_fontsize()))
        return draw(text, renderer)

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    Text.draw = recording
    try:
        canvas.draw()
    finally:
        Text.draw = draw
    return sizes


def displayed_text_px(pt: float, dpi: float, width_px: float, column_px: float = COLUMN_PX) -> float:
    """How tall text of ``pt`` points reads on the page: an image ``width_px`` wide, drawn at
    ``dpi``, is shown at its own size, or scaled down to the column where it is wider.

    Examples
    --------
    >>> round(displayed_text_px(12, 100, 700), 2), round(displayed_text_px(12, 100, 1536), 2)
    (16.67, 8.33)
    """
    return pt * dpi / 72 * min(1.0, column_px / width_px)


def png(fig) -> bytes:
    """A figure as the book shows it: a PNG at the figure's dpi, cut to its tight bounding box,
    that carries its smallest font size (``text_sizes``) in a text chunk named ``TEXT_KEY``.

    Examples
    --------
    >>> import io, PIL.Image
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(4, 3), dpi=100)
    >>> ax = fig.subplots()
    >>> _ = ax.set_title("a title", fontsize=15), ax.tick_params(labelsize=9)
    >>> image = PIL.Image.open(io.BytesIO(png(fig)))
    >>> image.info[TEXT_KEY], round(image.info["dpi"][0])
    ('9', 100)
    """
    import io

    smallest = min(text_sizes(fig), default=STYLE["font.size"])
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=fig.dpi, bbox_inches="tight", metadata={TEXT_KEY: f"{smallest:g}"})
    return buffer.getvalue()


def show(fig, caption: str | None = None) -> None:
    """Show a figure in the notebook as the book shows it (``png``), with its data and alt text, and close it.

    A figure whose smallest text would read smaller than the body text, at the size the column
    shows it, gets a warning that says by how much; the book's browser test reads the same size
    back from the image. The image's output metadata carries, under ``FIGURE_KEY``, the figure's
    alt text and the data behind it (``figure_metadata``), read before the figure is closed: the
    build writes the data as CSV (``figure_table``) and gives the image the alt text.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    caption : str, optional
        The figure's caption, whose first sentence opens the alt text (``describe``).
    """
    import io
    import warnings

    import matplotlib.pyplot as plt
    import PIL.Image
    from IPython.display import Image, display

    from rankscale.book.readout import FIGURE_KEY, figure_metadata

    metadata = figure_metadata(fig, caption)
    data = png(fig)
    plt.close(fig)
    image = PIL.Image.open(io.BytesIO(data))
    smallest = float(image.info[TEXT_KEY])
    px = displayed_text_px(smallest, fig.dpi, image.width)
    if px < BODY_PX:
        warnings.warn(f"the figure's smallest text ({smallest:g} pt) reads at {px:.1f} px in the book's "
                      f"{COLUMN_PX} px column, below the body's {BODY_PX} px: draw it narrower or its text larger",
                      stacklevel=2)
    display(Image(data=data, format="png"), metadata={FIGURE_KEY: metadata})
